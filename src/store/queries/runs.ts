/**
 * The nightly baseline run's claim per organisation (src/jobs/baselines.ts):
 * a row of derived_snapshots (kind RUN_CLAIM_KIND) saying which day's run was
 * claimed or done, so that of several workers exactly one runs it.
 */
import { sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';

/** The derived_snapshots kind of the nightly run's claim. */
export const RUN_CLAIM_KIND = 'baselines_run';

/**
 * Claims the organisation's run for `today` atomically (one upsert with a
 * condition), so that of several workers ticking together exactly one runs
 * it. The claim is taken when there is none, when it is for an earlier date,
 * or when it is an unfinished claim older than `staleMs`.
 */
export async function claimBaselineRun(db: Db, orgId: string, today: string, now: Date, staleMs: number): Promise<boolean> {
  const payload = JSON.stringify({ asOfDate: today, done: false, claimedAt: now.toISOString() });
  const staleBefore = new Date(now.getTime() - staleMs).toISOString();
  const got = await rows<{ org_id: string }>(
    db,
    sql`insert into derived_snapshots (org_id, kind, key, engine_version, computed_at, payload)
      values (${orgId}, ${RUN_CLAIM_KIND}, '', 1, ${now.toISOString()}::timestamptz, ${payload}::jsonb)
      on conflict (org_id, kind, key) do update set computed_at = excluded.computed_at, payload = excluded.payload
      where derived_snapshots.payload->>'asOfDate' < ${today}
        or (derived_snapshots.payload->>'done' = 'false' and derived_snapshots.computed_at < ${staleBefore}::timestamptz)
      returning org_id`,
  );
  return got.length === 1;
}

/** Records the organisation's run for `today` as done. */
export async function recordBaselineRun(db: Db, orgId: string, today: string, now: Date): Promise<void> {
  const payload = JSON.stringify({ asOfDate: today, done: true, finishedAt: now.toISOString() });
  await db.execute(
    sql`insert into derived_snapshots (org_id, kind, key, engine_version, computed_at, payload)
      values (${orgId}, ${RUN_CLAIM_KIND}, '', 1, ${now.toISOString()}::timestamptz, ${payload}::jsonb)
      on conflict (org_id, kind, key) do update set computed_at = excluded.computed_at, payload = excluded.payload`,
  );
}

/** Every active organisation with its time zone and its last run (date and whether it finished). */
export async function baselineRunStates(db: Db) {
  return rows<{ id: string; timezone: string; last: string | null; done: string | null }>(
    db,
    sql`select o.id, o.timezone, r.payload->>'asOfDate' as last, r.payload->>'done' as done
      from organisations o
      left join derived_snapshots r on r.org_id = o.id and r.kind = ${RUN_CLAIM_KIND} and r.key = ''
      where o.active
      order by o.id`,
  );
}

/** Active organisations whose last baseline run finished, with the day it was for. */
export async function orgsWithBaselinesDone(db: Db) {
  return rows<{ id: string; timezone: string; as_of: string }>(
    db,
    sql`select o.id, o.timezone, r.payload->>'asOfDate' as as_of from organisations o
        join derived_snapshots r on r.org_id = o.id and r.kind = ${RUN_CLAIM_KIND} and r.key = ''
        where o.active and r.payload->>'done' = 'true' order by o.id`,
  );
}
