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
  BURST_LIMIT,
  BURST_WINDOW_MS,
  CREDIT_WINDOW_MS,
  type BurstResult,
  type CreditResult,
  type CreditSubject,
  type Limiter,
  secondsUntilFree,
  type Usage,
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

export class SqlLimiter implements Limiter {
  readonly name = 'sql';
  constructor(private readonly db: Db) {}

  async hitBurst(keyId: string, route: string, now: Date): Promise<BurstResult> {
    const since = new Date(now.getTime() - BURST_WINDOW_MS);
    const nowMs = now.getTime();
    const [r] = await rows<WindowRow>(
      this.db,
      sql`select n, oldest, newest, null as freeing, inserted from cashline_hit_burst(${keyId}, ${route}, ${now}, ${since}, ${BURST_LIMIT})`,
    );
    if (!r) throw new Error('cashline_hit_burst returned no row');
    const count = Number(r.n);
    const oldest = ms(r.oldest);
    if (r.inserted === null) {
      // Refused requests are not recorded, so the window holds exactly BURST_LIMIT: the oldest frees first.
      return {
        allowed: false,
        limit: BURST_LIMIT,
        remaining: 0,
        retryAfterSeconds: secondsUntilFree(oldest ?? nowMs, nowMs, BURST_WINDOW_MS),
        resetSeconds: secondsUntilFree(ms(r.newest) ?? nowMs, nowMs, BURST_WINDOW_MS),
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

  async reserveCredit(subject: CreditSubject, now: Date): Promise<CreditResult> {
    const since = new Date(now.getTime() - CREDIT_WINDOW_MS);
    const nowMs = now.getTime();
    const { billingAccountId: ba, meterId: user, limit } = subject;
    const [r] = await rows<WindowRow>(
      this.db,
      sql`select n, oldest, newest, freeing, inserted from cashline_reserve_credit(${subject.orgId}, ${ba}, ${user}, ${now}, ${since}, ${limit})`,
    );
    if (!r) throw new Error('cashline_reserve_credit returned no row');
    const used = Number(r.n);
    const oldestMs = ms(r.oldest);
    const newestMs = ms(r.newest);
    if (r.inserted === null) {
      const freeingMs = ms(r.freeing) ?? oldestMs ?? nowMs;
      return {
        allowed: false,
        retryAfterSeconds: secondsUntilFree(freeingMs, nowMs, CREDIT_WINDOW_MS),
        usage: usageFromSummary(limit, { used, oldestMs, newestMs, freeingMs }, nowMs),
      };
    }
    // The window with this call in it (admitted: used + 1 <= limit, so the oldest frees first).
    const usage = usageFromSummary(
      limit,
      { used: used + 1, oldestMs: Math.min(oldestMs ?? nowMs, nowMs), newestMs: Math.max(newestMs ?? nowMs, nowMs), freeingMs: null },
      nowMs,
    );
    return { allowed: true, reservation: String(r.inserted), usage };
  }

  async releaseCredit(subject: CreditSubject, reservation: string): Promise<void> {
    const id = Number(reservation);
    if (!Number.isSafeInteger(id)) return;
    await this.db.execute(
      sql`delete from credit_events where org_id = ${subject.orgId} and id = ${id} and billing_account_id = ${subject.billingAccountId}`,
    );
  }

  async usage(subject: CreditSubject, now: Date): Promise<Usage> {
    const since = new Date(now.getTime() - CREDIT_WINDOW_MS);
    const { billingAccountId: ba, meterId: user, limit } = subject;
    const [r] = await rows<WindowRow>(
      this.db,
      sql`with w as (
            select count(*)::int as n, min(at) as oldest, max(at) as newest
            from credit_events where billing_account_id = ${ba} and user_id = ${user} and at > ${since}
          )
          select w.n, w.oldest, w.newest,
            case when w.n > ${limit} then (
              select at from credit_events
              where billing_account_id = ${ba} and user_id = ${user} and at > ${since}
              order by at asc, id asc offset (w.n - ${limit}) limit 1
            ) end as freeing,
            null as inserted
          from w`,
    );
    return usageFromSummary(
      limit,
      { used: Number(r!.n), oldestMs: ms(r!.oldest), newestMs: ms(r!.newest), freeingMs: ms(r!.freeing) },
      now.getTime(),
    );
  }
}
