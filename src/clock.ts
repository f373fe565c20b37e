/**
 * The service clock. `CASHLINE_NOW` (an ISO instant) freezes it for tests,
 * demos and backtests; code asks `clock.now()` instead of `new Date()`.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(at: Date | string): Clock {
  const ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
  if (!Number.isFinite(ms)) throw new Error(`not an instant: ${String(at)}`);
  return { now: () => new Date(ms) };
}

/** A clock tests can move. */
export class ManualClock implements Clock {
  private ms: number;
  constructor(at: Date | string) {
    this.ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  set(at: Date | string): void {
    this.ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
