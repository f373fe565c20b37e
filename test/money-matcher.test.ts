import { describe, expect, it } from 'vitest';

describe('toBeMoney', () => {
  it('holds for a decimal string equal to the amount, whatever its trailing zeros', () => {
    expect('12.30').toBeMoney('12.3');
    expect('-0.5').toBeMoney('-0.50');
  });

  it('fails for another amount, for a JSON number, and for text that is not a decimal', () => {
    expect(() => expect('12.31').toBeMoney('12.30')).toThrow(/to be the amount 12.30/);
    expect(() => expect(12.3).toBeMoney('12.30')).toThrow(/expected a decimal string \(money\), got number/);
    expect(() => expect('1e3').toBeMoney('1000')).toThrow(/decimal string/);
    expect('7').not.toBeMoney('8');
  });
});
