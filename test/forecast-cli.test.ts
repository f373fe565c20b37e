/**
 * Forecast operations of `cashline-server` (issue 9; decisions.md
 * "Operations interface": JSON on stdout, `error: <message>` and a non-zero
 * exit on failure): recompute, the opening-cash override, CUSTOM scenarios,
 * manual lines, and the backtest command with its --json object.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { freshStore, type TestStore } from './helpers/store.js';
import { ops } from './helpers/ops.js';
import * as s from '../src/store/schema.js';
import { createOrg } from '../src/store/tenancy.js';
import { insertSynthetic, syntheticLedger } from '../src/backtest/synthetic.js';
import { latestSnapshot } from '../src/store/queries/forecast-snapshots.js';
import { dec, isCanonical } from '../src/domain/money.js';

const NOW = '2026-11-22T14:00:00Z'; // Monday 23 November in Sydney

describe('cashline-server forecast operations on PostgreSQL', () => {
  let store: TestStore;
  let env: NodeJS.ProcessEnv;
  let orgId: string;
  beforeAll(async () => {
    store = await freshStore('postgres');
    env = { DATABASE_URL: store.url!, CASHLINE_NOW: NOW };
    orgId = (await createOrg(store.db, { name: 'Ops Forecast Co', now: new Date(NOW) })).orgId;
    await insertSynthetic(store.db, syntheticLedger(orgId, { seed: 11, asOf: '2026-11-22', customers: 20, years: 1.5 }));
  });
  afterAll(async () => {
    await store?.close();
  });

  const base = async () => (await latestSnapshot(store.db, orgId))!.payload;

  it('recompute (and forecast recompute) store a snapshot per scenario (BASE, BEST, WORST) and print them', async () => {
    const r = await ops(['recompute', '--org', orgId], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.forecast).toMatchObject({ orgId, asOfDate: '2026-11-23', computedAt: '2026-11-22T14:00:00.000Z' });
    expect(r.json.forecast.snapshots.map((x: { scenarioKind: string }) => x.scenarioKind)).toEqual(['BASE', 'BEST', 'WORST']);
    const again = await ops(['forecast', 'recompute', '--org', orgId], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.snapshots).toHaveLength(3);
    expect((await base()).weeks[0]!.weekStart).toBe('2026-11-23');
    const bad = await ops(['recompute', '--org', 'nope'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/^error: --org/);
  });

  it("spec 2.2 source manual: override set makes the operator's amount the opening cash; clear returns to the ledger", async () => {
    const before = await base();
    expect(before.cashPosition.source).toBe('ledger_reconciled');
    const r = await ops(['forecast', 'override', 'set', '--org', orgId, '--amount', '12345.670', '--note', 'bank statement 23 Nov'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.override).toMatchObject({ amount: '12345.67', note: 'bank statement 23 Nov' });
    const after = await base();
    expect(after.cashPosition).toMatchObject({ source: 'manual', startingCash: '12345.67', effectiveStartingCash: '12345.67', adjustment: '0' });
    expect(after.cashPosition.ledgerReconciledTotal).toBe(before.cashPosition.ledgerReconciledTotal);
    expect(after.startingCash).toBe('12345.67');
    expect(after.weeks[0]!.opening).toBe('12345.67');
    const cleared = await ops(['forecast', 'override', 'clear', '--org', orgId], env);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.json.cleared).toBe(true);
    expect((await base()).cashPosition).toMatchObject({ source: 'ledger_reconciled', startingCash: before.startingCash });
    for (const bad of ['abc', '1e5', '12,50', '']) {
      const x = await ops(['forecast', 'override', 'set', '--org', orgId, '--amount', bad], env);
      expect(x.code, bad).not.toBe(0);
      expect(x.stderr, bad).toMatch(/^error: .*--amount/);
    }
  });

  it('CUSTOM scenario: set with documented adjustments, forecast under its id, built-in ids refused, remove drops it and its snapshots', async () => {
    const r = await ops(['forecast', 'scenario', 'set', '--org', orgId, '--id', 'stress', '--name', 'Half the sales', '--inflow-factor', '0.5', '--delay-shift', '14'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.scenario).toEqual({ id: 'stress', name: 'Half the sales', kind: 'CUSTOM', adjustments: { inflowFactor: '0.5', paymentDelayShiftDays: 14 } });
    const b = await base();
    const stress = (await latestSnapshot(store.db, orgId, 'stress'))!.payload;
    expect(stress).toMatchObject({ scenarioKind: 'CUSTOM', scenarioName: 'Half the sales', totalOutflow: b.totalOutflow, startingCash: b.startingCash });
    expect(dec(stress.totalInflow).lt(dec(b.totalInflow).times('0.55'))).toBe(true);
    const list = await ops(['forecast', 'scenario', 'list', '--org', orgId], env);
    expect(list.json.scenarios.map((x: { id: string }) => x.id)).toEqual(['base', 'best', 'worst', 'stress']);
    for (const args of [
      ['--id', 'base', '--name', 'X'],
      ['--id', 'bad id', '--name', 'X'],
      ['--id', 'x', '--name', 'X', '--inflow-factor', '-1'],
      ['--id', 'x', '--name', 'X', '--delay-shift', '2.5'],
    ]) {
      const x = await ops(['forecast', 'scenario', 'set', '--org', orgId, ...args], env);
      expect(x.code, args.join(' ')).not.toBe(0);
      expect(x.stderr, args.join(' ')).toMatch(/^error: .*(--id|--inflow-factor|--delay-shift)/);
    }
    const rm = await ops(['forecast', 'scenario', 'remove', '--org', orgId, '--id', 'stress'], env);
    expect(rm.code, rm.stderr).toBe(0);
    expect(await latestSnapshot(store.db, orgId, 'stress')).toBeNull();
    expect((await ops(['forecast', 'scenario', 'remove', '--org', orgId, '--id', 'stress'], env)).stderr).toMatch(/^error: --id: no scenario/);
    expect((await ops(['forecast', 'scenario', 'remove', '--org', orgId, '--id', 'worst'], env)).stderr).toMatch(/^error: --id: .*built in/);
  });

  it('manual lines: add places the amount in its week in every scenario; remove takes it out; bad date or zero amount refused', async () => {
    const before = await base();
    const r = await ops(['forecast', 'manual', 'add', '--org', orgId, '--date', '2026-12-02', '--amount', '-5000.25', '--description', 'Equipment', '--id', 'equipment'], env);
    expect(r.code, r.stderr).toBe(0);
    const after = await base();
    expect(after.weeks[1]!.itemIds).toContain('equipment'); // week of Monday 30 November
    expect(dec(after.totalOutflow).minus(before.totalOutflow).toString()).toBe('5000.25');
    const best = (await latestSnapshot(store.db, orgId, 'best'))!.payload;
    expect(best.weeks[1]!.itemIds).toContain('equipment');
    const list = await ops(['forecast', 'manual', 'list', '--org', orgId], env);
    expect(list.json.items).toEqual([{ id: 'equipment', date: '2026-12-02', amount: '-5000.25', description: 'Equipment' }]);
    const rm = await ops(['forecast', 'manual', 'remove', '--org', orgId, '--id', 'equipment'], env);
    expect(rm.code, rm.stderr).toBe(0);
    expect((await base()).totalOutflow).toBe(before.totalOutflow);
    for (const args of [
      ['--date', '2026-02-30', '--amount', '10'],
      ['--date', '2026-12-02', '--amount', '0'],
    ]) {
      const x = await ops(['forecast', 'manual', 'add', '--org', orgId, ...args], env);
      expect(x.code).not.toBe(0);
      expect(x.stderr).toMatch(/^error: .*(--date|--amount)/);
    }
  });

  it('backtest --json prints one object {cutoffs, weeks: 13, methods: {cashline, due_date, median_delay, naive_run_rate}} of {receipts, payments, closing} {mae, wape, pinball, coverage80, width80}, byHorizon for cashline, the shortfall reliability', async () => {
    const r = await ops(['backtest', '--org', orgId, '--from', '2026-03-02', '--to', '2026-08-17', '--every', '28d', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.cutoffs).toBe(7);
    expect(r.json.weeks).toBe(13);
    expect(Object.keys(r.json.methods).sort()).toEqual(['cashline', 'due_date', 'median_delay', 'naive_run_rate']);
    for (const [name, m] of Object.entries(r.json.methods) as [string, Record<string, Record<string, unknown>>][]) {
      expect(Object.keys(m).sort()).toEqual(name === 'cashline' ? ['byHorizon', 'closing', 'payments', 'receipts'] : ['closing', 'payments', 'receipts']);
      for (const figure of ['receipts', 'payments', 'closing']) {
        const x = m[figure]!;
        expect(Object.keys(x).sort()).toEqual(['coverage80', 'mae', 'pinball', 'wape', 'width80']);
        expect(isCanonical(x.mae as string)).toBe(true);
        for (const k of ['wape', 'pinball', 'coverage80', 'width80']) expect(Number.isFinite(x[k])).toBe(true);
        expect(x.coverage80).toBeGreaterThanOrEqual(0);
        expect(x.coverage80).toBeLessThanOrEqual(1);
      }
    }
    const byHorizon = (r.json.methods.cashline as { byHorizon: Record<string, { week: number; wape: number; coverage80: number }[]> }).byHorizon;
    for (const figure of ['receipts', 'payments', 'closing']) expect(byHorizon[figure]!.map((h) => h.week)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(r.json.shortfall).toMatchObject({ cells: 7 * 13 });
    // Progress went to stderr, the table did not (--json).
    expect(r.stderr).toMatch(/backtest: cut-off 2026-08-17 7\/7/);
    expect(r.stderr).not.toMatch(/WAPE/);
    const table = await ops(['backtest', '--org', orgId, '--from', '2026-06-01', '--to', '2026-06-01'], env);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).toMatch(/cashline/);
    for (const args of [
      ['--every', 'monthly'],
      ['--every', '0d'],
      ['--from', '2026-13-01'],
    ]) {
      const x = await ops(['backtest', '--org', orgId, '--from', '2026-03-02', '--to', '2026-08-17', ...args], env);
      expect(x.code, args.join(' ')).not.toBe(0);
      expect(x.stderr, args.join(' ')).toMatch(/^error: .*(--every|--from)/);
    }
    // No cut-off with data: too recent (no 13 complete weeks after), or before the ledger's history: exit 1, never a WAPE of 0.
    for (const [from, to] of [['2026-11-01', '2026-11-20'], ['2019-01-07', '2019-06-03']] as const) {
      const none = await ops(['backtest', '--org', orgId, '--from', from, '--to', to, '--json'], env);
      expect(none.code, `${from}..${to}`).toBe(1);
      expect(none.stdout).toBe('');
      expect(none.stderr).toMatch(/^error: no cut-off between \d{4}-\d{2}-\d{2} and \d{4}-\d{2}-\d{2} has data \(\d+ tried\): the ledger's history runs from \d{4}-\d{2}-\d{2} to/);
    }
  });

  it('the org must exist for every forecast command', async () => {
    const [o] = await store.db.select().from(s.organisations).where(and(eq(s.organisations.id, orgId)));
    expect(o).toBeDefined();
    for (const args of [
      ['forecast', 'override', 'clear', '--org', 'missing'],
      ['forecast', 'manual', 'list', '--org', 'missing'],
      ['backtest', '--org', 'missing', '--from', '2026-01-01', '--to', '2026-02-01'],
    ]) {
      const x = await ops(args, env);
      expect(x.code, args.join(' ')).not.toBe(0);
      expect(x.stderr).toMatch(/^error: --org/);
    }
  });
});
