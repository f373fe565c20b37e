/**
 * `cashline-server demo --ledger`: the main demo organisation's books are
 * served by the shipped Xero-compatible server (src/xero-server/) on
 * loopback, connected like a real ledger (a grant from its identity
 * endpoint) and synced from it through the live sync, instead of imported
 * from files. The workers then keep syncing it on their cadence. The other
 * demo organisation is imported as usual. docs/sync.md.
 */
import type { Db } from '../store/db.js';
import { clearWatermarks } from '../store/queries/connections.js';
import { generateDemo } from '../demo/generate.js';
import { datasetFromFiles, startXeroServer } from '../xero-server/server.js';
import { connectLedger, type LedgerEndpoint, syncOrganisation } from '../ledger/sync/sync.js';
import { createOrg, getOrg, setAccountSensitive, setContactSensitive } from '../store/tenancy.js';
import type { CommandContext } from './action.js';
import type { Progress } from './progress.js';
import { DEMO_ORGS } from './demo.js';
import { OperatorError } from './action.js';

/** The demo's own server allows more than Xero's 60 calls a minute, so the first sync takes seconds (Xero's limits apply against Xero). */
const DEMO_PER_MINUTE = 1200;

export interface DemoLedger {
  apiUrl: string;
  config: LedgerEndpoint;
  synced: { orgId: string; outcome: string; records: Record<string, number>; durationMs: number };
  /** Whether this run created the organisation (the banner's `created`). */
  created: boolean;
  close(): Promise<void>;
}

export async function startDemoLedger(ctx: CommandContext, db: Db, progress: Progress): Promise<DemoLedger> {
  const demo = DEMO_ORGS[0];
  const now = ctx.config.clock.now();
  const created = !(await getOrg(db, demo.id));
  if (created) await createOrg(db, { id: demo.id, name: demo.name, plan: demo.plan, ownerName: 'Demo owner', now });
  const out = generateDemo({ seed: demo.seed, asOf: now, scale: demo.scale, name: demo.name, onProgress: (step, d, t) => progress(`generate: ${step}`, d, t) });
  const server = await startXeroServer({ data: datasetFromFiles(out.files), limits: { perMinute: DEMO_PER_MINUTE, concurrent: 5 } });
  const keyring = ctx.keyring();
  const config: LedgerEndpoint = { apiUrl: server.apiUrl, identityUrl: server.identityUrl, clientId: server.clientId, clientSecret: server.clientSecret, keyring };
  // A fresh server is a fresh ledger: connect to it (the grant of an OAuth consent) and read it from the start.
  const grant = server.issueGrant();
  await connectLedger(db, keyring, { orgId: demo.id, tenantId: server.tenantId, refreshToken: grant.refreshToken, now });
  await clearWatermarks(db, demo.id);
  const r = await syncOrganisation(db, demo.id, {
    ...config,
    now: () => ctx.config.clock.now(),
    force: true,
    client: { perMinute: DEMO_PER_MINUTE },
    onProgress: (resource, done, total) => progress(`sync ${resource}`, done, total),
  });
  progress.done();
  if (r.outcome !== 'ok') {
    await server.close();
    throw new OperatorError(`the demo ledger sync failed: ${r.error ?? r.outcome}`);
  }
  for (const contactId of out.sensitive.contactIds) await setContactSensitive(db, demo.id, contactId, true);
  for (const code of out.sensitive.accountCodes) await setAccountSensitive(db, demo.id, code, true);
  return {
    apiUrl: server.apiUrl,
    config,
    synced: { orgId: demo.id, outcome: r.outcome, records: r.records as Record<string, number>, durationMs: r.durationMs },
    created,
    close: () => server.close(),
  };
}
