/**
 * The SQL store's limiter: sliding logs in `burst_events` and `credit_events`.
 * Each admission runs in one transaction holding a transaction-scoped advisory
 * lock on its bucket, so count-then-insert cannot double-spend under
 * concurrency on PostgreSQL (PGlite runs one transaction at a time anyway).
 * Events that left the window are deleted in the same transaction.
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
  usageFrom,
} from '../api/limits.js';

export class SqlLimiter implements Limiter {
  readonly name = 'sql';
  constructor(private readonly db: Db) {}

  async hitBurst(keyId: string, route: string, now: Date): Promise<BurstResult> {
    const since = new Date(now.getTime() - BURST_WINDOW_MS);
    return this.db.transaction(async (tx) => {
      const t = tx as unknown as Db;
      await t.execute(sql`select pg_advisory_xact_lock(hashtext(${`burst:${keyId}:${route}`}))`);
      await t.execute(sql`delete from burst_events where key_id = ${keyId} and route = ${route} and at <= ${since}`);
      const events = await rows<{ at: unknown }>(
        t,
        sql`select at from burst_events where key_id = ${keyId} and route = ${route} and at > ${since} order by at asc, id asc`,
      );
      const times = events.map((e) => pgTimestamp(e.at)!.getTime());
      const nowMs = now.getTime();
      if (times.length >= BURST_LIMIT) {
        const freeing = times[times.length - BURST_LIMIT]!;
        return {
          allowed: false,
          limit: BURST_LIMIT,
          remaining: 0,
          retryAfterSeconds: secondsUntilFree(freeing, nowMs, BURST_WINDOW_MS),
          resetSeconds: secondsUntilFree(times[times.length - 1]!, nowMs, BURST_WINDOW_MS),
        };
      }
      await t.execute(sql`insert into burst_events (key_id, route, at) values (${keyId}, ${route}, ${now})`);
      const oldest = times[0] ?? nowMs;
      return {
        allowed: true,
        limit: BURST_LIMIT,
        remaining: BURST_LIMIT - times.length - 1,
        retryAfterSeconds: 0,
        resetSeconds: secondsUntilFree(Math.max(oldest, nowMs), nowMs, BURST_WINDOW_MS),
      };
    });
  }

  async reserveCredit(subject: CreditSubject, now: Date): Promise<CreditResult> {
    const since = new Date(now.getTime() - CREDIT_WINDOW_MS);
    return this.db.transaction(async (tx) => {
      const t = tx as unknown as Db;
      await t.execute(sql`select pg_advisory_xact_lock(hashtext(${`credit:${subject.billingAccountId}:${subject.meterId}`}))`);
      await t.execute(
        sql`delete from credit_events where billing_account_id = ${subject.billingAccountId} and user_id = ${subject.meterId} and at <= ${since}`,
      );
      const times = await this.windowTimes(t, subject, since);
      const nowMs = now.getTime();
      if (times.length >= subject.limit) {
        const usage = usageFrom(subject.limit, times, nowMs);
        const freeing = times[times.length - subject.limit]!;
        return { allowed: false, retryAfterSeconds: secondsUntilFree(freeing, nowMs, CREDIT_WINDOW_MS), usage };
      }
      const [ins] = await rows<{ id: number }>(
        t,
        sql`insert into credit_events (org_id, billing_account_id, user_id, at)
            values (${subject.orgId}, ${subject.billingAccountId}, ${subject.meterId}, ${now}) returning id`,
      );
      return { allowed: true, reservation: String(ins!.id), usage: usageFrom(subject.limit, [...times, nowMs], nowMs) };
    });
  }

  async releaseCredit(subject: CreditSubject, reservation: string): Promise<void> {
    await this.db.execute(
      sql`delete from credit_events where org_id = ${subject.orgId} and id = ${Number(reservation)} and billing_account_id = ${subject.billingAccountId}`,
    );
  }

  async usage(subject: CreditSubject, now: Date): Promise<Usage> {
    const since = new Date(now.getTime() - CREDIT_WINDOW_MS);
    return usageFrom(subject.limit, await this.windowTimes(this.db, subject, since), now.getTime());
  }

  private async windowTimes(db: Db, subject: CreditSubject, since: Date): Promise<number[]> {
    const events = await rows<{ at: unknown }>(
      db,
      sql`select at from credit_events
          where billing_account_id = ${subject.billingAccountId} and user_id = ${subject.meterId} and at > ${since}
          order by at asc, id asc`,
    );
    return events.map((e) => pgTimestamp(e.at)!.getTime());
  }
}
