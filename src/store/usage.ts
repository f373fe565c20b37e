/**
 * The SQL store's limiter (the default; REDIS_URL selects
 * src/store/redis-usage.ts): sliding logs in `burst_events` and
 * `credit_events`, one row per admitted request.
 *
 * Exactness under concurrency: each admission is ONE statement, a call of a
 * plpgsql function (migration 0002_limiter_functions.sql), so one network
 * round trip. The function first takes `pg_advisory_xact_lock` on a hash of
 * its bucket ((key, route) for the burst cap, (billing account, user) for
 * credits); its later statements take fresh snapshots, so a concurrent
 * admission of the same bucket has committed by then and is counted; then it
 * forgets the events that left the window, summarises the window (count,
 * oldest, newest: never read row by row, so a Reserve plan's 5,000 credits
 * cost the same) and inserts the new event only below the limit. N
 * concurrent requests can never admit more than the limit (a plain
 * count-then-insert double-spends on PostgreSQL; PGlite runs one transaction
 * at a time anyway).
 */
import { sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from './db.js';
import {
  type Admission,
  type AdmissionRequest,
  BURST_LIMIT,
  BURST_WINDOW_MS,
  CREDIT_WINDOW_MS,
  type BurstResult,
  type CreditResult,
  type CreditSubject,
  type Limiter,
  secondsUntilFree,
  type Taken,
  usageFromSummary,
} from '../domain/plans.js';

interface WindowRow extends Record<string, unknown> {
  n: number;
  oldest: unknown;
  newest: unknown;
  freeing: unknown;
  inserted: unknown;
}

const ms = (v: unknown) => pgTimestamp(v)?.getTime() ?? null;

interface AdmitRow extends Record<string, unknown> {
  b_n: number;
  b_oldest: unknown;
  b_newest: unknown;
  b_inserted: unknown;
  c_n: number | null;
  c_oldest: unknown;
  c_newest: unknown;
  c_freeing: unknown;
  c_inserted: unknown;
  d_used: unknown;
}

/** The burst verdict from the window before this call (`count` events, oldest and newest) and whether it was admitted. */
function burstVerdict(admitted: boolean, count: number, oldest: number | null, newest: number | null, nowMs: number): BurstResult {
  if (!admitted) {
    // Refused requests are not recorded, so the window holds exactly BURST_LIMIT: the oldest frees first.
    return {
      allowed: false,
      limit: BURST_LIMIT,
      remaining: 0,
      retryAfterSeconds: secondsUntilFree(oldest ?? nowMs, nowMs, BURST_WINDOW_MS),
      resetSeconds: secondsUntilFree(newest ?? nowMs, nowMs, BURST_WINDOW_MS),
    };
  }
  return {
    allowed: true,
    limit: BURST_LIMIT,
    remaining: BURST_LIMIT - count - 1,
    retryAfterSeconds: 0,
    resetSeconds: secondsUntilFree(oldest ?? nowMs, nowMs, BURST_WINDOW_MS),
  };
}

/** The credit verdict from the window before this call (summary) and its reservation id (null: refused). */
function creditVerdict(
  limit: number,
  w: { used: number; oldestMs: number | null; newestMs: number | null; freeingMs: number | null },
  inserted: unknown,
  nowMs: number,
): CreditResult {
  if (inserted === null || inserted === undefined) {
    const freeingMs = w.freeingMs ?? w.oldestMs ?? nowMs;
    return {
      allowed: false,
      retryAfterSeconds: secondsUntilFree(freeingMs, nowMs, CREDIT_WINDOW_MS),
      usage: usageFromSummary(limit, { ...w, freeingMs }, nowMs),
    };
  }
  // The window with this call in it (admitted: used + 1 <= limit, so the oldest frees first).
  const usage = usageFromSummary(
    limit,
    { used: w.used + 1, oldestMs: Math.min(w.oldestMs ?? nowMs, nowMs), newestMs: Math.max(w.newestMs ?? nowMs, nowMs), freeingMs: null },
    nowMs,
  );
  return { allowed: true, reservation: String(inserted), usage };
}

export class SqlLimiter implements Limiter {
  readonly name = 'sql';
  constructor(private readonly db: Db) {}

  async admit(req: AdmissionRequest, now: Date): Promise<Admission> {
    const nowMs = now.getTime();
    const s = req.subject;
    const [r] = await rows<AdmitRow>(
      this.db,
      sql`select * from cashline_admit(${req.keyId}, ${req.route}, ${now}, ${new Date(nowMs - BURST_WINDOW_MS)}, ${BURST_LIMIT},
            ${s?.orgId ?? null}, ${s?.billingAccountId ?? null}, ${s?.meterId ?? null}, ${req.credit},
            ${new Date(nowMs - CREDIT_WINDOW_MS)}, ${s?.limit ?? 0}, ${req.daily}, ${req.day}::date)`,
    );
    if (!r) throw new Error('cashline_admit returned no row');
    const burst = burstVerdict(r.b_inserted !== null, Number(r.b_n), ms(r.b_oldest), ms(r.b_newest), nowMs);
    if (!burst.allowed || !s || r.c_n === null) return { burst, credit: null, usage: null, dailyUsed: null, taken: null };
    const w = { used: Number(r.c_n), oldestMs: ms(r.c_oldest), newestMs: ms(r.c_newest), freeingMs: ms(r.c_freeing) };
    const credit = req.credit === 'reserve' ? creditVerdict(s.limit, w, r.c_inserted, nowMs) : null;
    const usage = credit ? credit.usage : usageFromSummary(s.limit, w, nowMs);
    const dailyUsed = r.d_used === null ? null : Number(r.d_used);
    const reservation = credit?.allowed ? credit.reservation : null;
    const day = dailyUsed !== null && req.daily === 'count' ? req.day : null;
    return { burst, credit, usage, dailyUsed, taken: reservation || day ? { subject: s, reservation, day } : null };
  }

  async settle(taken: Taken): Promise<void> {
    const id = taken.reservation === null ? null : Number(taken.reservation);
    const { orgId, billingAccountId } = taken.subject;
    await this.db.execute(
      sql`with released as (
            delete from credit_events where org_id = ${orgId} and id = ${id}::int8 and billing_account_id = ${billingAccountId} returning id
          )
          update org_daily_calls set n = n - 1
          where ${taken.day}::date is not null and org_id = ${orgId} and day = ${taken.day}::date and n > 0`,
    );
  }

  async hitBurst(keyId: string, route: string, now: Date): Promise<BurstResult> {
    const since = new Date(now.getTime() - BURST_WINDOW_MS);
    const nowMs = now.getTime();
    const [r] = await rows<WindowRow>(
      this.db,
      sql`select n, oldest, newest, null as freeing, inserted from cashline_hit_burst(${keyId}, ${route}, ${now}, ${since}, ${BURST_LIMIT})`,
    );
    if (!r) throw new Error('cashline_hit_burst returned no row');
    return burstVerdict(r.inserted !== null, Number(r.n), ms(r.oldest), ms(r.newest), nowMs);
  }

  async reserveCredit(subject: CreditSubject, now: Date): Promise<CreditResult> {
    const since = new Date(now.getTime() - CREDIT_WINDOW_MS);
    const nowMs = now.getTime();
    const { billingAccountId: ba, meterId: user, limit } = subject;
    const [r] = await rows<WindowRow>(
      this.db,
      sql`select n, oldest, newest, freeing, inserted from cashline_reserve_credit(${subject.orgId}, ${ba}, ${user}, ${now}, ${since}, ${limit})`,
    );
    if (!r) throw new Error('cashline_reserve_credit returned no row');
    return creditVerdict(limit, { used: Number(r.n), oldestMs: ms(r.oldest), newestMs: ms(r.newest), freeingMs: ms(r.freeing) }, r.inserted, nowMs);
  }

  async releaseCredit(subject: CreditSubject, reservation: string): Promise<void> {
    const id = Number(reservation);
    if (!Number.isSafeInteger(id)) return;
    await this.db.execute(
      sql`delete from credit_events where org_id = ${subject.orgId} and id = ${id} and billing_account_id = ${subject.billingAccountId}`,
    );
  }
}
