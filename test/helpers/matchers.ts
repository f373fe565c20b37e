/**
 * Matchers that read as the specification says it: `expect(x).toBeMoney('12.30')`
 * holds when x is a decimal string (never a JSON number) equal to 12.30 as a
 * decimal ('12.3' and '12.30' are the same amount; 12.3 the number is not money).
 */
import { expect } from 'vitest';
import { Decimal } from 'decimal.js';

const DECIMAL = /^-?\d+(\.\d+)?$/;

expect.extend({
  toBeMoney(received: unknown, expected: string) {
    const isText = typeof received === 'string' && DECIMAL.test(received);
    const pass = isText && new Decimal(received).eq(new Decimal(expected));
    return {
      pass,
      message: () =>
        isText
          ? `expected ${received} ${pass ? 'not ' : ''}to be the amount ${expected}`
          : `expected a decimal string (money), got ${typeof received} ${JSON.stringify(received)}`,
    };
  },
});

interface MoneyMatchers<R = unknown> {
  /** A decimal string equal to `expected` as an amount. */
  toBeMoney(expected: string): R;
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends MoneyMatchers<T> {}
}
