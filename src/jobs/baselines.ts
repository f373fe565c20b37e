/**
 * The nightly baseline job (docs/analytics.md): per-contact analytics
 * (revenue, payment delay, cadence, churn, lifetime values, ABC tier,
 * available credit) into contact_baselines, and the contacts summary and
 * cohorts into derived_snapshots, so the summary endpoints read stored
 * results. Loads its input with a few set-based queries, computes with the
 * pure functions of src/domain/analytics/, writes in one transaction.
 * Idempotent: a second run at the same `now` writes the same rows.
 */
import { sql } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import { dateIn } from '../domain/calendar.js';
import { lastFullMonths } from '../domain/fiscal.js';
import { analyseOrganisation, type OrganisationAnalytics } from '../domain/analytics/organisation.js';
import { MARGIN_MONTHS } from '../domain/analytics/summary.js';
import { type Db, rows } from '../store/db.js';
import { loadAnalyticsInput, loadOrgSettings, writeAnalytics } from '../store/queries/analytics.js';

export interface BaselineRun {
  orgId: string;
  asOfDate: string;
  contacts: number;
  invoices: number;
  grossMarginPercent: number | null;
  expectedLifetimeYears: number;
  /** Milliseconds spent loading, computing and writing. */
  timings: { loadMs: number; computeMs: number; writeMs: number };
  result: OrganisationAnalytics;
}

/** Computes and stores the organisation's baselines as at `now` (its calendar date in the organisation's time zone). */
export async function computeBaselines(db: Db, orgId: string, now: Date): Promise<BaselineRun> {
  const t0 = performance.now();
  const org = await loadOrgSettings(db, orgId);
  if (!org) throw new Error(`organisation ${orgId} not found`);
  const today = dateIn(org.timezone, now);
  const input = await loadAnalyticsInput(db, org, today, lastFullMonths(today, MARGIN_MONTHS));
  const t1 = performance.now();
  const result = analyseOrganisation(input);
  const t2 = performance.now();
  await writeAnalytics(db, orgId, now, result);
  const t3 = performance.now();
  return {
    orgId,
    asOfDate: today,
    contacts: result.contacts.length,
    invoices: input.invoices.length,
    grossMarginPercent: result.grossMarginPercent,
    expectedLifetimeYears: result.expectedLifetimeYears,
    timings: { loadMs: Math.round(t1 - t0), computeMs: Math.round(t2 - t1), writeMs: Math.round(t3 - t2) },
    result,
  };
}

// ---------------------------------------------------------------------------
// The nightly run (docs/analytics.md "Nightly job")
// ---------------------------------------------------------------------------

/** Local hour (in each organisation's time zone) from which its nightly run is due. */
export const NIGHTLY_LOCAL_HOUR = 2;
/** A claim older than this whose run did not finish (a crashed worker) may be taken over. */
export const STALE_CLAIM_MS = 30 * 60_000;
/** derived_snapshots kind of the per-organisation run claim. */
export const RUN_CLAIM_KIND = 'baselines_run';

/**
 * Whether an organisation's nightly baselines are due (pure): never computed,
 * or last computed for an earlier local date and it is now past
 * NIGHTLY_LOCAL_HOUR in the organisation's time zone.
 */
export function baselinesDue(lastAsOfDate: string | null, localToday: string, localHour: number): boolean {
  if (lastAsOfDate === null) return true;
  return lastAsOfDate < localToday && localHour >= NIGHTLY_LOCAL_HOUR;
}

function localHour(tz: string, now: Date): number {
  return Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(tz).hour;
}

/**
 * Claims the organisation's run for `today` atomically (one upsert with a
 * condition), so that of several workers ticking together exactly one runs
 * it. The claim is taken when there is none, when it is for an earlier date,
 * or when it is an unfinished claim older than STALE_CLAIM_MS.
 */
async function claimRun(db: Db, orgId: string, today: string, now: Date): Promise<boolean> {
  const payload = JSON.stringify({ asOfDate: today, done: false, claimedAt: now.toISOString() });
  const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS).toISOString();
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

/** Records the organisation's run for `today` as done (the nightly job and `cashline-server recompute`). */
export async function recordRun(db: Db, orgId: string, today: string, now: Date): Promise<void> {
  const payload = JSON.stringify({ asOfDate: today, done: true, finishedAt: now.toISOString() });
  await db.execute(
    sql`insert into derived_snapshots (org_id, kind, key, engine_version, computed_at, payload)
      values (${orgId}, ${RUN_CLAIM_KIND}, '', 1, ${now.toISOString()}::timestamptz, ${payload}::jsonb)
      on conflict (org_id, kind, key) do update set computed_at = excluded.computed_at, payload = excluded.payload`,
  );
}

/**
 * `cashline-server recompute --org ID`: the organisation's baselines now (the
 * clock per CASHLINE_NOW), whatever the nightly schedule says, recorded as
 * today's run so the nightly job does not repeat it.
 */
export async function recomputeBaselines(db: Db, orgId: string, now: Date): Promise<Omit<BaselineRun, 'result'>> {
  const { result: _result, ...run } = await computeBaselines(db, orgId, now);
  await recordRun(db, orgId, run.asOfDate, now);
  return run;
}

export interface NightlyResult {
  ran: { orgId: string; asOfDate: string; contacts: number; ms: number }[];
  failed: { orgId: string; error: string }[];
}

/**
 * One tick of the nightly job: every active organisation whose baselines are
 * due (baselinesDue, from the last stored run) is claimed and computed, one
 * organisation at a time. Safe with several instances: the claim is atomic.
 * A failure of one organisation is reported and does not stop the others
 * (its claim goes stale and a later tick retries it).
 */
export async function runNightlyBaselines(db: Db, now: Date): Promise<NightlyResult> {
  const orgs = await rows<{ id: string; timezone: string; last: string | null; done: string | null }>(
    db,
    sql`select o.id, o.timezone, r.payload->>'asOfDate' as last, r.payload->>'done' as done
      from organisations o
      left join derived_snapshots r on r.org_id = o.id and r.kind = ${RUN_CLAIM_KIND} and r.key = ''
      where o.active
      order by o.id`,
  );
  const out: NightlyResult = { ran: [], failed: [] };
  for (const o of orgs) {
    const today = dateIn(o.timezone, now);
    // An unfinished claim for today is either running elsewhere or stale: claimRun decides.
    const last = o.done === 'true' ? o.last : o.last === today ? null : o.last;
    if (!baselinesDue(last, today, localHour(o.timezone, now))) continue;
    if (!(await claimRun(db, o.id, today, now))) continue;
    const t = performance.now();
    try {
      const r = await computeBaselines(db, o.id, now);
      await recordRun(db, o.id, today, now);
      out.ran.push({ orgId: o.id, asOfDate: r.asOfDate, contacts: r.contacts, ms: Math.round(performance.now() - t) });
    } catch (err) {
      out.failed.push({ orgId: o.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}


