/**
 * The nightly baselines job (src/jobs/baselines.ts; docs/analytics.md
 * "Nightly job") and `cashline-server recompute --org ID` (decisions.md,
 * "Operations interface"): due in each organisation's own night, claimed
 * atomically so several workers run an organisation once, a crashed run taken
 * over when its claim goes stale, and reads served from what it stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { baselinesDue, NIGHTLY_LOCAL_HOUR, runNightlyBaselines, STALE_CLAIM_MS } from '../src/jobs/baselines.js';
import { RUN_CLAIM_KIND } from '../src/store/queries/runs.js';
import { rows, type Db } from '../src/store/db.js';
import * as s from '../src/store/schema.js';
import { createOrg } from '../src/store/tenancy.js';
import { freshStore, type TestStore } from './helpers/store.js';
import { ops } from './helpers/ops.js';

const day = fc.integer({ min: 0, max: 3000 }).map((n) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));

describe('baselinesDue (pure)', () => {
  it('property: never computed is always due; computed for today is never due; an earlier day is due exactly from the nightly hour', () => {
    fc.assert(
      fc.property(day, day, fc.integer({ min: 0, max: 23 }), (last, today, hour) => {
        expect(baselinesDue(null, today, hour)).toBe(true);
        expect(baselinesDue(today, today, hour)).toBe(false);
        expect(baselinesDue(last, today, hour)).toBe(last < today && hour >= NIGHTLY_LOCAL_HOUR);
      }),
    );
  });
});

async function seedCustomer(db: Db, orgId: string, now: Date) {
  await db.insert(s.contacts).values({ orgId, id: 'c1', name: 'Customer One', isCustomer: true, lastSyncedAt: now });
  await db.insert(s.cashItems).values(
    [0, 1, 2, 3].map((k) => {
      const date = `2026-0${k + 6}-10`;
      return {
        orgId, id: `inv-${k}`, source: 'LEDGER_INVOICE', ledgerType: 'ACCREC', contactId: 'c1', ledgerStatus: 'PAID', status: 'ACTUAL', currency: 'AUD',
        issueDate: date, dueDate: date, paidDate: date, sortDate: date, subTotal: '100', totalTax: '10', total: '110', amountDue: '0', amountPaid: '110',
        amountCredited: '0', lastSyncedAt: now,
      };
    }),
  );
}

const claimOf = async (db: Db, orgId: string) =>
  (await rows<{ payload: { asOfDate: string; done: boolean } }>(db, sql`select payload from derived_snapshots where org_id = ${orgId} and kind = ${RUN_CLAIM_KIND}`))[0]?.payload ?? null;
const computedAt = async (db: Db, orgId: string) =>
  (await rows<{ at: string }>(db, sql`select computed_at::text as at from contact_baselines where org_id = ${orgId} and contact_id = 'c1'`))[0]?.at ?? null;

describe('the nightly job on PostgreSQL', () => {
  let store: TestStore;
  let sydney: string;
  let london: string;
  // 2026-11-23 09:00 UTC: 20:00 in Sydney (23 Nov), 09:00 in London (23 Nov)
  const T0 = new Date('2026-11-23T09:00:00Z');

  beforeAll(async () => {
    store = await freshStore('postgres');
    ({ orgId: sydney } = await createOrg(store.db, { name: 'Sydney Co', now: T0 }));
    ({ orgId: london } = await createOrg(store.db, { name: 'London Co', timezone: 'Europe/London', now: T0 }));
    await seedCustomer(store.db, sydney, T0);
    await seedCustomer(store.db, london, T0);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('four workers ticking together compute each organisation exactly once; the next tick the same day does nothing', async () => {
    const results = await Promise.all([0, 1, 2, 3].map(() => runNightlyBaselines(store.db, T0)));
    const ran = results.flatMap((r) => r.ran.map((x) => x.orgId)).filter((id) => id === sydney || id === london);
    expect(ran.sort()).toEqual([sydney, london].sort());
    expect(results.flatMap((r) => r.failed)).toEqual([]);
    expect(await claimOf(store.db, sydney)).toMatchObject({ asOfDate: '2026-11-23', done: true });
    expect(await claimOf(store.db, london)).toMatchObject({ asOfDate: '2026-11-23', done: true });
    const again = await runNightlyBaselines(store.db, new Date(T0.getTime() + 60_000));
    expect(again.ran).toEqual([]);
  });

  it("each organisation's next run waits for 02:00 of its own next day", async () => {
    // 14:30 UTC = 01:30 on 24 Nov in Sydney (not yet), 14:30 on 23 Nov in London (same day)
    expect((await runNightlyBaselines(store.db, new Date('2026-11-23T14:30:00Z'))).ran).toEqual([]);
    // 15:05 UTC = 02:05 on 24 Nov in Sydney: due; London still on 23 Nov
    const r = await runNightlyBaselines(store.db, new Date('2026-11-23T15:05:00Z'));
    expect(r.ran.map((x) => [x.orgId, x.asOfDate])).toEqual([[sydney, '2026-11-24']]);
    // 02:10 on 24 Nov in London
    const l = await runNightlyBaselines(store.db, new Date('2026-11-24T02:10:00Z'));
    expect(l.ran.map((x) => [x.orgId, x.asOfDate])).toEqual([[london, '2026-11-24']]);
  });

  it('a run claimed but never finished (a crashed worker) is taken over once the claim is stale, not before', async () => {
    const at = new Date('2026-11-25T16:00:00Z'); // 03:00 on 26 Nov in Sydney, 16:00 on 25 Nov in London
    const crashed = JSON.stringify({ asOfDate: '2026-11-26', done: false, claimedAt: at.toISOString() });
    await store.db.execute(
      sql`update derived_snapshots set payload = ${crashed}::jsonb, computed_at = ${at.toISOString()}::timestamptz where org_id = ${sydney} and kind = ${RUN_CLAIM_KIND}`,
    );
    const before = await computedAt(store.db, sydney);
    const soon = await runNightlyBaselines(store.db, new Date(at.getTime() + 60_000));
    expect(soon.ran.map((x) => x.orgId)).not.toContain(sydney);
    expect(await computedAt(store.db, sydney)).toBe(before);
    const later = await runNightlyBaselines(store.db, new Date(at.getTime() + STALE_CLAIM_MS + 60_000));
    expect(later.ran.map((x) => x.orgId)).toContain(sydney);
    expect(await claimOf(store.db, sydney)).toMatchObject({ asOfDate: '2026-11-26', done: true });
  });

  it('an inactive organisation is skipped', async () => {
    const { orgId } = await createOrg(store.db, { name: 'Dormant', now: T0 });
    await store.db.execute(sql`update organisations set active = false where id = ${orgId}`);
    const r = await runNightlyBaselines(store.db, new Date('2026-11-27T16:00:00Z'));
    expect(r.ran.map((x) => x.orgId)).not.toContain(orgId);
    expect(await claimOf(store.db, orgId)).toBeNull();
  });
});

describe('cashline-server recompute --org ID', () => {
  let store: TestStore;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    store = await freshStore('postgres');
    env = { DATABASE_URL: store.url!, CASHLINE_NOW: '2026-11-23T09:00:00Z' };
  });
  afterAll(async () => {
    await store?.close();
  });

  it("computes the organisation's baselines now (per CASHLINE_NOW), prints JSON, and records today's run so the nightly job skips it", async () => {
    const org = await ops(['org', 'create', '--name', 'Recompute Co'], env);
    expect(org.code, org.stderr).toBe(0);
    const orgId = org.json.orgId as string;
    await seedCustomer(store.db, orgId, new Date('2026-11-23T09:00:00Z'));
    const r = await ops(['recompute', '--org', orgId], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.baselines).toMatchObject({ orgId, asOfDate: '2026-11-23', contacts: 1, invoices: 4 });
    const [b] = await rows<{ cadence: string; revenue_all_time: string }>(store.db, sql`select cadence, revenue_all_time from contact_baselines where org_id = ${orgId}`);
    expect(b).toEqual({ cadence: 'MONTHLY', revenue_all_time: '440' });
    const kinds = await rows<{ kind: string }>(store.db, sql`select kind from derived_snapshots where org_id = ${orgId} order by kind`);
    // (recompute may store more kinds as other derived data joins it: forecast, insights, brief)
    expect(kinds.map((k) => k.kind)).toEqual(expect.arrayContaining(['analytics', RUN_CLAIM_KIND, 'cohorts', 'contacts_summary']));
    const nightly = await runNightlyBaselines(store.db, new Date('2026-11-23T10:00:00Z'));
    expect(nightly.ran.map((x) => x.orgId)).not.toContain(orgId);
  });

  it('an unknown organisation or a missing --org fails with `error: <message>` and a non-zero exit', async () => {
    const r = await ops(['recompute', '--org', 'nope'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: .*--org/);
    const m = await ops(['recompute'], env);
    expect(m.code).not.toBe(0);
    expect(m.stderr).toMatch(/--org/);
  });
});
