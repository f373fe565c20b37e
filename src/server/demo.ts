/**
 * `cashline-server demo` (what `npm start` runs): creates the demo
 * organisations idempotently through the real import path, flags their
 * sensitive contacts and accounts, links them to a demo partner practice,
 * computes what is derived, issues three fresh demo keys (the previous demo
 * keys are revoked, since secrets are never stored and cannot be shown again)
 * and serves.
 */
import type { Db } from '../store/db.js';
import { hasImportRun } from '../store/queries/connections.js';
import { generateDemo, ROASTER, WHOLESALER } from '../demo/generate.js';
import { importFiles } from '../ledger/import.js';
import {
  createKey,
  createOrg,
  createPartner,
  getOrg,
  linkPartner,
  setAccountSensitive,
  setContactSensitive,
  partnerExists,
  revokeKeysNamed,
} from '../store/tenancy.js';
import { SCOPES } from '../domain/scopes.js';
import type { Progress } from './progress.js';
import { recomputeForecast, recomputeYesterday } from '../jobs/forecast.js';
import { recomputeBaselines } from '../jobs/baselines.js';
import { recalibrateIfStale, seedTrackRecord } from '../jobs/calibration.js';
import { recordForecastRun } from '../jobs/worker.js';
import { generateDailyBrief } from '../jobs/brief.js';
import type { LlmConfig } from '../jobs/brief-llm.js';

export const DEMO_PARTNER_ID = '00000000-0000-4000-8000-0000000000a1';
/** Days of stored forecasts the demo starts with (replayed: docs/forecast.md#accuracy). */
const DEMO_TRACK_DAYS = 182;

export const DEMO_ORGS = [
  { id: '00000000-0000-4000-8000-000000000d01', name: 'Harbour & Vine Supplies', seed: 20_240_601, scale: 1, plan: 'Wallet', profile: WHOLESALER },
  { id: '00000000-0000-4000-8000-000000000d02', name: 'Cobalt Coffee Roasters', seed: 7_331, scale: 0.35, plan: 'Pocket', profile: ROASTER },
] as const;

export interface DemoKeys {
  /** Every scope, including READ_SENSITIVE. */
  full: string;
  /** Every scope but READ_SENSITIVE: sensitive contacts and accounts are hidden or renamed. */
  noSensitive: string;
  /** A partner key over the demo practice's organisations (send X-Service-Org-Id). */
  partner: string;
}

export interface DemoSetup {
  orgId: string;
  orgs: { id: string; name: string; created: boolean }[];
  partnerId: string;
  keys: DemoKeys;
}

/**
 * `created`: demo organisations the caller made in this run (the ledger
 * sync of `demo --ledger`), new like the ones imported here.
 */
export async function setupDemo(db: Db, now: Date, progress: Progress, opts: { llm?: LlmConfig | null; created?: readonly string[] } = {}): Promise<DemoSetup> {
  const orgs: DemoSetup['orgs'] = [];
  for (const demo of DEMO_ORGS) {
    const existing = await getOrg(db, demo.id);
    if (existing && (await hasImported(db, demo.id))) {
      orgs.push({ id: demo.id, name: demo.name, created: opts.created?.includes(demo.id) ?? false });
      continue;
    }
    if (!existing) {
      await createOrg(db, { id: demo.id, name: demo.name, plan: demo.plan, ownerName: 'Demo owner', now });
    }
    const out = generateDemo({ seed: demo.seed, asOf: now, scale: demo.scale, name: demo.name, profile: demo.profile, onProgress: (step, d, t) => progress(`generate ${demo.name}: ${step}`, d, t) });
    await importFiles(db, demo.id, out.files, { now, where: `(the demo generator, seed ${demo.seed})`, onProgress: (e) => progress(`import ${demo.name}: ${e.resource}`, e.done, e.total) });
    for (const contactId of out.sensitive.contactIds) await setContactSensitive(db, demo.id, contactId, true);
    for (const code of out.sensitive.accountCodes) await setAccountSensitive(db, demo.id, code, true);
    orgs.push({ id: demo.id, name: demo.name, created: true });
  }

  // Derived, before any key is printed: the baselines (analytics: LTV, cohorts, summaries),
  // the calibration and the forecast snapshots (every scenario), each recorded as today's
  // run so the nightly worker does not repeat them, and today's brief of each demo organisation, as of now.
  const steps = DEMO_ORGS.length * 4;
  for (const [i, demo] of DEMO_ORGS.entries()) {
    progress(`derive ${demo.name}: baselines`, i * 4, steps);
    await recomputeBaselines(db, demo.id, now);
    progress(`derive ${demo.name}: calibration`, i * 4 + 1, steps);
    await recalibrateIfStale(db, demo.id, now);
    // The track record the demo starts with: the weekly forecasts it would have stored over the six months before (docs/forecast.md#accuracy).
    await seedTrackRecord(db, demo.id, now, DEMO_TRACK_DAYS);
    progress(`derive ${demo.name}: forecast`, i * 4 + 2, steps);
    // A new demo starts with yesterday's forecast too (replayed), so that GET /forecast/changes explains a real day (docs/forecast.md#changes).
    if (orgs.find((o) => o.id === demo.id)?.created) await recomputeYesterday(db, demo.id, now);
    const { asOfDate } = await recomputeForecast(db, demo.id, now);
    // Recorded as the day's forecast run (the workers' claim), as the baselines are: the workers' first tick does not
    // calibrate and recompute again on the same books (a sync later in the day is in the next day's run, as everywhere).
    // The run's day is the forecast's own as-of date (the organisation's today in its time zone).
    await recordForecastRun(db, demo.id, asOfDate, 'demo');
    progress(`derive ${demo.name}: brief`, i * 4 + 3, steps);
    await generateDailyBrief(db, demo.id, now, { llm: opts.llm ?? null });
  }
  progress('derive', steps, steps);

  if (!(await partnerExists(db, DEMO_PARTNER_ID))) await createPartner(db, { id: DEMO_PARTNER_ID, name: 'Demo Advisory Practice', now });
  for (const demo of DEMO_ORGS) await linkPartner(db, { partnerId: DEMO_PARTNER_ID, orgId: demo.id, now });

  // Fresh keys each start; the previous demo keys stop working.
  const orgIds = DEMO_ORGS.map((o) => o.id);
  await revokeKeysNamed(db, { namePrefix: 'demo:', orgIds, partnerId: DEMO_PARTNER_ID, now });
  const main = DEMO_ORGS[0].id;
  const full = await createKey(db, { orgId: main, scopes: [...SCOPES], name: 'demo: full scope with READ_SENSITIVE', now });
  const noSensitive = await createKey(db, {
    orgId: main,
    scopes: SCOPES.filter((x) => x !== 'READ_SENSITIVE'),
    name: 'demo: full scope without READ_SENSITIVE',
    now,
  });
  const partnerKey = await createKey(db, { partnerId: DEMO_PARTNER_ID, scopes: [...SCOPES], name: 'demo: partner practice', now });
  progress.done();
  return { orgId: main, orgs, partnerId: DEMO_PARTNER_ID, keys: { full: full.key, noSensitive: noSensitive.key, partner: partnerKey.key } };
}

const hasImported = hasImportRun;
