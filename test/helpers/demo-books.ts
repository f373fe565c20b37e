/**
 * Demo books for tests:
 * - `orgWithDemoBooks`: an organisation with demo books, as the forecast tests
 *   want one: a small demo business generated at `now`, written as Xero
 *   response bodies, imported through the same mapping and writer as a sync,
 *   connected and fresh, with the demo's sensitive contacts flagged;
 * - `startDemoApi`: a test API serving the demo of `npm start` (setupDemo:
 *   both demo organisations imported and derived, the partner, three keys) as
 *   of `now`, set up once per run and backend and copied into each file's
 *   store (helpers/fixtures.ts).
 */
import { startTestApi, type TestApi, type TestApiOptions } from './http.js';
import { type Fixture, storeWith } from './fixtures.js';
import { generateDemo } from '../../src/demo/generate.js';
import { importFiles } from '../../src/ledger/import.js';
import { setContactSensitive } from '../../src/store/tenancy.js';
import { type DemoSetup, setupDemo } from '../../src/server/demo.js';
import type { StoreKind } from '../../src/store/db.js';

export async function orgWithDemoBooks(api: TestApi, opts: { name: string; now: Date; seed: number; scale?: number }): Promise<{ orgId: string; sensitiveContactIds: string[] }> {
  const demo = generateDemo({ asOf: opts.now, scale: opts.scale ?? 0.2, seed: opts.seed });
  const orgId = (await api.org({ name: opts.name, plan: 'Reserve' })).orgId;
  await importFiles(api.store.db, orgId, demo.files, { now: opts.now });
  await api.ledger(orgId);
  for (const id of demo.sensitive.contactIds) await setContactSensitive(api.store.db, orgId, id, true);
  return { orgId, sensitiveContactIds: demo.sensitive.contactIds };
}

const quiet = Object.assign(() => {}, { done: () => {} });

/** The demo as `setupDemo(db, now)` leaves it, and what setupDemo returned (the demo keys): a fixture of the run (helpers/fixtures.ts). */
export const demoFixture = (now: Date): Fixture<DemoSetup> => ({
  name: `demo_${now.toISOString().replace(/\D/g, '').slice(0, 14)}`,
  build: (s) => setupDemo(s.db, now, quiet),
});

/** A test API (clock at `now`) over a copy of the demo fixture, and what setupDemo returned (the demo keys). */
export async function startDemoApi(kind: StoreKind, now: Date, opts: Omit<TestApiOptions, 'store' | 'now'> = {}): Promise<{ api: TestApi; demo: DemoSetup }> {
  const { store, value: demo } = await storeWith(kind, demoFixture(now));
  return { api: await startTestApi(kind, { ...opts, now: now.toISOString(), store }), demo };
}
