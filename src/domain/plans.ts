/**
 * Plans and their limits, declared once (spec section 8, decisions.md).
 *
 * Limits: the burst cap (60 requests a minute
 * per key per endpoint template, a sliding window) and query credits (a
 * rolling 5-hour window per (user, billing account of the target
 * organisation)). Backends implement `Limiter` (small and backend-neutral:
 * the SQL store's is src/store/usage.ts, Redis's src/store/redis-usage.ts);
 * the pipeline that calls it is src/api/admission.ts.
 *
 * Contract of a backend: `admit` (the pipeline's one round trip), `hitBurst`
 * and `reserveCredit` are atomic per bucket (count the window and admit in
 * one step, so N concurrent requests can never admit more than the limit); a
 * refused request is not recorded; `settle` and `releaseCredit` undo what was
 * taken (the call was not chargeable).
 */
export const BURST_LIMIT = 60;
export const BURST_WINDOW_MS = 60_000;
export const CREDIT_WINDOW_MS = 5 * 60 * 60 * 1000;

/** The plans, cheapest first: the one list every layer reads. */
export const PLANS = ['Free', 'Pocket', 'Wallet', 'Vault', 'Reserve'] as const;
export type Plan = (typeof PLANS)[number];

/** Query credits per rolling 5 hours, by plan. */
export const PLAN_CREDITS: Record<Plan, number> = {
  Free: 10,
  Pocket: 50,
  Wallet: 250,
  Vault: 1_000,
  Reserve: 5_000,
};

/** Plans whose daily brief may come from the premium (LLM) tier: every paid plan. */
export const PREMIUM_PLANS: ReadonlySet<string> = new Set(PLANS.filter((p) => p !== 'Free'));

/** A billing account's subscription states (decisions.md). */
export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled', 'trial_ended'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export function planCredits(plan: string): number {
  return PLAN_CREDITS[plan as Plan] ?? PLAN_CREDITS.Free;
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
  /** When the oldest call in the window frees its credit (null for an empty window). */
  oldestFreesAt: Date | null;
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

/**
 * What one request asks of the limits, in one round trip (issue 21): count
 * it against its key's burst bucket; then, only when the burst admits it and
 * a billing account is behind it (`subject`), either reserve a credit
 * (`credit: 'reserve'`) or just read the window (`'read'`: /status and the
 * endpoints that meter themselves), and count it in the organisation's
 * legacy daily bucket of `day` (`daily: 'count'`; `'read'` only reads it).
 * A refusal (burst or credits) records nothing but the refused burst's own
 * verdict (nothing at all: refused requests are not recorded).
 */
export interface AdmissionRequest {
  keyId: string;
  route: string;
  subject: CreditSubject | null;
  credit: 'reserve' | 'read';
  daily: 'count' | 'read';
  /** The UTC day (YYYY-MM-DD) of the legacy daily bucket. */
  day: string;
}

export interface Admission {
  burst: BurstResult;
  /** Reserve mode, burst admitted, a subject: the credit verdict. */
  credit: CreditResult | null;
  /** The credit window after this call (null: no subject, or the burst refused it). */
  usage: Usage | null;
  /** The legacy daily bucket's charged calls of `day`, this one included when counted (null: no subject, or refused). */
  dailyUsed: number | null;
  /** What `settle` undoes if the answer is not chargeable (null: nothing was taken). */
  taken: Taken | null;
}

/** What an admission took beyond the burst: a credit reservation and/or one call of the daily bucket. */
export interface Taken {
  subject: CreditSubject;
  reservation: string | null;
  /** The day whose daily bucket was counted, or null. */
  day: string | null;
}

export interface Limiter {
  readonly name: string;
  /** Burst, credits and the daily bucket of one request: one atomic round trip (see AdmissionRequest). */
  admit(req: AdmissionRequest, now: Date): Promise<Admission>;
  /** Undoes what `admit` took (the answer was not chargeable): one round trip. */
  settle(taken: Taken): Promise<void>;
  /** Counts one request against the key's burst bucket for `route`; refuses past the cap. */
  hitBurst(keyId: string, route: string, now: Date): Promise<BurstResult>;
  /** Reserves one credit atomically, or refuses when the window is full. */
  reserveCredit(subject: CreditSubject, now: Date): Promise<CreditResult>;
  /** Returns a reserved credit (the call turned out not chargeable). */
  releaseCredit(subject: CreditSubject, reservation: string): Promise<void>;
  close?(): Promise<void>;
}

/** Usage from the timestamps (ms) of the calls still in the window, oldest first. */
export function usageFrom(limit: number, inWindow: number[], nowMs: number, windowMs = CREDIT_WINDOW_MS): Usage {
  const used = inWindow.length;
  const remaining = Math.max(0, limit - used);

  const newest = inWindow[used - 1];
  const oldest = inWindow[0];
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
    oldestFreesAt: oldest === undefined ? null : new Date(oldest + windowMs),
  };
}

/**
 * Usage from a summary of the window (what a store can aggregate without
 * reading every event): the number of calls in it, the oldest and newest, and
 * the (used - limit + 1)-th oldest (`freeingMs`, only needed when the window
 * holds more calls than the limit, e.g. after a downgrade; else the oldest).
 * Equal to `usageFrom` over the same calls.
 */
export function usageFromSummary(
  limit: number,
  w: { used: number; oldestMs: number | null; newestMs: number | null; freeingMs: number | null },
  nowMs: number,
  windowMs = CREDIT_WINDOW_MS,
): Usage {
  const remaining = Math.max(0, limit - w.used);
  const minutesUntil = (ms: number) => Math.max(0, Math.ceil((ms - nowMs) / 60_000));
  const freeing = w.freeingMs ?? w.oldestMs;
  return {
    limit,
    used: w.used,
    remaining,
    nextCreditInMinutes: remaining > 0 || freeing === null ? 0 : minutesUntil(freeing + windowMs),
    fullResetInMinutes: w.newestMs === null ? 0 : minutesUntil(w.newestMs + windowMs),
    windowResetAt: new Date(w.newestMs === null ? nowMs : w.newestMs + windowMs),
    oldestFreesAt: w.oldestMs === null ? null : new Date(w.oldestMs + windowMs),
  };
}

/** Seconds until the call at `ms` leaves a window of `windowMs` (at least 1). */
export function secondsUntilFree(ms: number, nowMs: number, windowMs: number): number {
  return Math.max(1, Math.ceil((ms + windowMs - nowMs) / 1000));
}
