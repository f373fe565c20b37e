/**
 * The nightly baseline job (docs/analytics.md): per-contact analytics
 * (revenue, payment delay, cadence, churn, lifetime values, ABC tier,
 * available credit) into contact_baselines, and the contacts summary and
 * cohorts into derived_snapshots, so the summary endpoints read stored
 * results. Loads its input with a few set-based queries, computes with the
 * pure functions of src/domain/analytics/, writes in one transaction.
 * Idempotent: a second run at the same `now` writes the same rows.
 */
import { Temporal } from 'temporal-polyfill';
import { dateIn } from '../domain/calendar.js';
import { lastFullMonths } from '../domain/fiscal.js';
import { analyseOrganisation, type OrganisationAnalytics } from '../domain/analytics/organisation.js';
import { MARGIN_MONTHS } from '../domain/analytics/summary.js';
import type { Db } from '../store/db.js';
import { baselineRunStates, claimBaselineRun, recordBaselineRun } from '../store/queries/runs.js';
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

/** Records the organisation's run for `today` as done (the nightly job and `cashline-server recompute`). */
export async function recordRun(db: Db, orgId: string, today: string, now: Date): Promise<void> {
  await recordBaselineRun(db, orgId, today, now);
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
  const orgs = await baselineRunStates(db);
  const out: NightlyResult = { ran: [], failed: [] };
  for (const o of orgs) {
    const today = dateIn(o.timezone, now);
    // An unfinished claim for today is either running elsewhere or stale: claimRun decides.
    const last = o.done === 'true' ? o.last : o.last === today ? null : o.last;
    if (!baselinesDue(last, today, localHour(o.timezone, now))) continue;
    if (!(await claimBaselineRun(db, o.id, today, now, STALE_CLAIM_MS))) continue;
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


