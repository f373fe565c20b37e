/** Xero's per-tenant rate limits, as the Xero-compatible server applies them: a per-minute window and concurrent calls. */
import type { ServerResponse } from 'node:http';
import { problem } from './http.js';

export interface RateLimits {
  perMinute: number;
  concurrent: number;
  windowMs?: number;
}

export class RateLimiter {
  /** Calls in flight. */
  private inFlight = 0;
  /** When the calls of the current window arrived, oldest first. */
  private readonly minute: number[] = [];
  private readonly limits: RateLimits | null;
  private readonly windowMs: number;

  /** `null`: no limits (calls are still counted). */
  constructor(limits: RateLimits | null) {
    this.limits = limits;
    this.windowMs = limits?.windowMs ?? 60_000;
  }

  /** A call arrives at `now`: drops the calls that left the window and counts this one in flight; the calls in flight. */
  enter(now: number): number {
    while (this.minute.length && this.minute[0]! <= now - this.windowMs) this.minute.shift();
    return ++this.inFlight;
  }

  /** A call's answer closed. */
  leave(): void {
    this.inFlight--;
  }

  /**
   * Answers 429 (Retry-After, X-MinLimit-Remaining: 0, X-Rate-Limit-Problem) and returns false when the call
   * breaches a limit; otherwise counts it in the window, sets X-MinLimit-Remaining and returns true.
   */
  admit(res: ServerResponse, now: number): boolean {
    const { limits, minute, inFlight } = this;
    if (limits && (inFlight > limits.concurrent || minute.length >= limits.perMinute)) {
      const retry = inFlight > limits.concurrent ? 1 : Math.max(1, Math.ceil((minute[0]! + this.windowMs - now) / 1000));
      problem(res, 429, 'Too Many Requests', inFlight > limits.concurrent ? 'concurrent limit exceeded' : 'minute limit exceeded', {
        'retry-after': String(retry),
        'x-minlimit-remaining': '0',
        'x-rate-limit-problem': inFlight > limits.concurrent ? 'concurrent' : 'minute',
      });
      return false;
    }
    minute.push(now);
    res.setHeader('x-minlimit-remaining', String(limits ? Math.max(0, limits.perMinute - minute.length) : 9999));
    return true;
  }
}
