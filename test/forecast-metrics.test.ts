/**
 * The backtest's measures (docs/forecast.md#backtest): an 80% band that holds
 * 80% of the actuals can still miss on one side only, so each horizon week
 * also states the shares below P10 and above P90.
 */
import { describe, expect, it } from 'vitest';
import { Scorer } from '../src/domain/forecast/metrics.js';
import { dec } from '../src/domain/money.js';

describe('the scorer of one figure', () => {
  it('Given ten weeks with one actual below P10, two above P90 and two on the band\'s edges (held), Then wape is 93 over 1,021, coverage80 is 0.7, below10 0.1 and above90 0.2', () => {
    const s = new Scorer();
    const band = { p10: 90, p50: 100, p90: 110 };
    for (const y of [100, 95, 105, 90, 110, 101, 99, 80, 111, 130]) s.add(dec('100'), dec(String(y)), band);
    expect(s.horizon(3)).toEqual({ week: 3, wape: 0.0911, coverage80: 0.7, below10: 0.1, above90: 0.2 });
  });

  it('Given no cells, Then every share is 0', () => {
    expect(new Scorer().horizon(1)).toEqual({ week: 1, wape: 0, coverage80: 0, below10: 0, above90: 0 });
  });
});
