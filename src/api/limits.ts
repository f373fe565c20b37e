/**
 * Limits (spec section 8, decisions.md): the burst cap (60 requests a minute
 * per key per endpoint, a sliding window) and query credits (a rolling 5-hour
 * window per (user, billing account of the target organisation)). Backends
 * implement `Limiter`; the SQL store's is src/store/usage.ts.
 */
export const BURST_LIMIT = 60;
export const BURST_WINDOW_MS = 60_000;
export const CREDIT_WINDOW_MS = 5 * 60 * 60 * 1000;

export const PLAN_CREDITS: Record<string, number> = {
  Free: 10,
  Pocket: 50,
  Wallet: 250,
  Vault: 1_000,
  Reserve: 5_000,
};

export function planCredits(plan: string): number {
  return PLAN_CREDITS[plan] ?? PLAN_CREDITS.Free!;
}

/** Whose credits a call spends: a member (or a partner practice) of a billing account. */
export interface CreditSubject {
  billingAccountId: string;
  /** The user id, or `partner:<partnerId>` for partner keys. */
  meterId: string;
  /** Organisation the call targets (kept with the event). */
  orgId: string;
  limit: number;
}

export interface Usage {
  limit: number;
  used: number;
  remaining: number;
  /** Minutes until the first credit frees; 0 when one is available now. */
  nextCreditInMinutes: number;
  /** Minutes until every credit is back; 0 for an empty window. */
  fullResetInMinutes: number;
  /** When the window fully empties (now, when it is empty). */
  windowResetAt: Date;
}

export interface BurstResult {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Seconds until a slot frees (0 when allowed with room). */
  retryAfterSeconds: number;
  /** Seconds until the window is empty again. */
  resetSeconds: number;
}

export type CreditResult =
  | { allowed: true; reservation: string; usage: Usage }
  | { allowed: false; retryAfterSeconds: number; usage: Usage };

export interface Limiter {
  readonly name: string;
  /** Counts one request against the key's burst bucket for `route`; refuses past the cap. */
  hitBurst(keyId: string, route: string, now: Date): Promise<BurstResult>;
  /** Reserves one credit atomically, or refuses when the window is full. */
  reserveCredit(subject: CreditSubject, now: Date): Promise<CreditResult>;
  /** Returns a reserved credit (the call turned out not chargeable). */
  releaseCredit(subject: CreditSubject, reservation: string): Promise<void>;
  usage(subject: CreditSubject, now: Date): Promise<Usage>;
  close?(): Promise<void>;
}

/** Usage from the timestamps (ms) of the calls still in the window, oldest first. */
export function usageFrom(limit: number, inWindow: number[], nowMs: number, windowMs = CREDIT_WINDOW_MS): Usage {
  const used = inWindow.length;
  const remaining = Math.max(0, limit - used);

  const newest = inWindow[used - 1];
  const minutesUntil = (ms: number) => Math.max(0, Math.ceil((ms - nowMs) / 60_000));
  // The first credit frees when the (used - limit + 1)-th oldest call ages out.
  const freeingIndex = Math.max(0, used - limit);
  const nextFree = inWindow[freeingIndex];
  return {
    limit,
    used,
    remaining,
    nextCreditInMinutes: remaining > 0 || nextFree === undefined ? 0 : minutesUntil(nextFree + windowMs),
    fullResetInMinutes: newest === undefined ? 0 : minutesUntil(newest + windowMs),
    windowResetAt: new Date(newest === undefined ? nowMs : newest + windowMs),
  };
}

/** Seconds until the call at `ms` leaves a window of `windowMs` (at least 1). */
export function secondsUntilFree(ms: number, nowMs: number, windowMs: number): number {
  return Math.max(1, Math.ceil((ms + windowMs - nowMs) / 1000));
}
