/**
 * The background worker (`cashline-server worker`, and `serve` unless
 * --no-workers): one loop that, every tick, runs what is due for every
 * active organisation, each under a claim (src/jobs/claims.ts) so that any
 * number of worker processes can run side by side:
 *   1. ledger sync on a cadence (CASHLINE_SYNC_INTERVAL_MINUTES), for
 *      connections whose token is good and whose breaker lets them through;
 *   2. the nightly baselines (src/jobs/baselines.ts, its own claims);
 *   3. the forecast snapshot once the day's baselines are done;
 *   4. the daily brief from 06:00 UTC, one per (organisation, UTC day).
 * docs/sync.md ("Workers").
 */
import type { Clock } from '../clock.js';
import { dateIn } from '../domain/calendar.js';
import type { Db } from '../store/db.js';
import { connectionsDue, type LedgerEndpoint, type SyncOptions, syncOrganisation } from '../ledger/sync/sync.js';
import type { LlmConfig } from './brief-llm.js';
import { type NightlyResult, runNightlyBaselines } from './baselines.js';
import { orgsWithBaselinesDone } from '../store/queries/runs.js';
import { recomputeForecast } from './forecast.js';
import { recalibrate } from './calibration.js';
import { briefsDue, type BriefRunResult, generateDailyBrief, utcDate } from './brief.js';
import { claim, type ClaimInput, finish, syncLockKey, withClaim, withLease, workerId } from '../store/claims.js';
import { startTicker, type Ticker } from './ticker.js';

export type Log = (level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>) => void;

export interface WorkerOptions {
  db: Db;
  clock: Clock;
  /** The ledger endpoint; null: syncing is not configured (XERO_CLIENT_ID/SECRET unset). */
  ledger: LedgerEndpoint | null;
  llm: LlmConfig | null;
  syncEveryMs: number;
  owner?: string;
  log?: Log;
  /** Client tuning of the sync (tests). */
  sync?: Partial<Pick<SyncOptions, 'client' | 'pageSize'>>;
  /** Run only these jobs (default all). */
  jobs?: readonly ('sync' | 'baselines' | 'forecast' | 'brief')[];
}

export interface TickReport {
  syncs: { orgId: string; outcome: string; error?: string }[];
  baselines: NightlyResult;
  forecasts: string[];
  briefs: BriefRunResult[];
  errors: { job: string; orgId: string; error: string }[];
}

/** The claim of an organisation's forecast job for a day (`today` in its time zone): calibration, then the snapshots. */
const forecastClaim = (orgId: string, today: string, owner: string): ClaimInput => ({ job: 'forecast', orgId, slot: today, owner });

/**
 * Records the organisation's forecast job for `today` as done, by `owner`,
 * unless a worker holds or finished it: for work that has just calibrated and
 * recomputed the forecast outside the workers (the demo's set-up), so that
 * their next tick does not repeat it on the same books.
 */
export async function recordForecastRun(db: Db, orgId: string, today: string, owner: string): Promise<void> {
  const c = forecastClaim(orgId, today, owner);
  if (await claim(db, c)) await finish(db, c);
}

/** The sync bucket of an instant: the start of its cadence window. */
export const syncSlot = (now: Date, everyMs: number) => new Date(Math.floor(now.getTime() / everyMs) * everyMs).toISOString();

export async function workerTick(o: WorkerOptions): Promise<TickReport> {
  const owner = o.owner ?? workerId();
  const now = o.clock.now();
  const wants = (j: 'sync' | 'baselines' | 'forecast' | 'brief') => !o.jobs || o.jobs.includes(j);
  const report: TickReport = { syncs: [], baselines: { ran: [], failed: [] }, forecasts: [], briefs: [], errors: [] };
  const failed = (job: string, orgId: string, err: unknown) => {
    const error = err instanceof Error ? err.message : String(err);
    report.errors.push({ job, orgId, error });
    o.log?.('error', `${job} failed`, { orgId, error });
  };

  if (wants('sync') && o.ledger) {
    for (const { orgId, requested } of await connectionsDue(o.db, now, o.syncEveryMs)) {
      try {
        // The bucket's claim (lease renewed every page, taken over if this worker dies), or the webhook request's, and the
        // organisation's sync lease, shared with the operator's `cashline-server sync` and the webhook's prompt sync
        // (checked every page: a run whose lease was taken over stops).
        const slot = requested ? `webhook:${requested.toISOString()}` : syncSlot(now, o.syncEveryMs);
        const claimInput = { job: 'sync', orgId, slot, owner, leaseMs: 5 * 60_000 };
        const r = await withClaim(o.db, claimInput, async (heartbeat) =>
          withLease(
            o.db,
            syncLockKey(orgId),
            (held) =>
              syncOrganisation(o.db, orgId, {
                ...o.ledger!,
                ...o.sync,
                now: () => o.clock.now(),
                heartbeat: async () => {
                  held();
                  await heartbeat();
                },
                log: (l, m, x) => o.log?.(l, m, x),
              }),
            { owner },
          ),
        );
        const run = r?.value?.value;
        if (run) report.syncs.push({ orgId, outcome: run.outcome, ...(run.error ? { error: run.error } : {}) });
      } catch (err) {
        failed('sync', orgId, err);
      }
    }
  }

  if (wants('baselines')) {
    try {
      report.baselines = await runNightlyBaselines(o.db, now);
    } catch (err) {
      failed('baselines', '*', err);
    }
  }

  if (wants('forecast')) {
    // The day's forecast snapshot follows the day's baselines.
    const done = await orgsWithBaselinesDone(o.db);
    for (const d of done) {
      const today = dateIn(d.timezone, now);
      if (d.as_of !== today) continue;
      try {
        const r = await withClaim(o.db, forecastClaim(d.id, today, owner), async () => {
          // The bands' calibration first (a replay of the organisation's history); a failed one leaves yesterday's in place.
          await recalibrate(o.db, d.id, o.clock.now()).catch((err) => failed('calibration', d.id, err));
          return recomputeForecast(o.db, d.id, o.clock.now());
        });
        if (r) report.forecasts.push(d.id);
      } catch (err) {
        failed('forecast', d.id, err);
      }
    }
  }

  if (wants('brief')) {
    for (const orgId of await briefsDue(o.db, now)) {
      try {
        const r = await withClaim(o.db, { job: 'brief', orgId, slot: utcDate(now), owner, leaseMs: 5 * 60_000 }, () =>
          generateDailyBrief(o.db, orgId, now, { llm: o.llm, log: (l, m, x) => o.log?.(l, m, x) }),
        );
        if (r) report.briefs.push(r.value);
      } catch (err) {
        failed('brief', orgId, err);
      }
    }
  }
  return report;
}

export type WorkerLoop = Ticker;

/** Ticks `workerTick` every `intervalMs`, first at once; never two ticks at a time in one process (ticker.ts). */
export function startWorkerLoop(o: WorkerOptions, opts: { intervalMs: number; onTick?: (r: TickReport) => void }): WorkerLoop {
  const owner = o.owner ?? workerId();
  return startTicker(() => workerTick({ ...o, owner }), opts.intervalMs, {
    result: (r) => opts.onTick?.(r),
    error: (err) => o.log?.('error', 'worker tick failed', { error: err instanceof Error ? err.message : String(err) }),
  });
}
