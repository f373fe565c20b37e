/**
 * The forecast job and its store side on both backends (issue 9: "recompute
 * + store snapshots for every scenario"; spec 2.2 opening cash, 2.3 snapshot
 * payload, spec 3 purchase-order suppression, spec 9 engine versions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { createOrg } from '../src/store/tenancy.js';
import { rows } from '../src/store/db.js';
import * as s from '../src/store/schema.js';
import { insertSynthetic, syntheticLedger } from '../src/backtest/synthetic.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { arAgeing } from '../src/domain/forecast/daily.js';
import { ENGINE_VERSION } from '../src/domain/forecast/project.js';
import { recalibrate, recalibrateIfStale } from '../src/jobs/calibration.js';
import { loadCalibration, saveCalibration } from '../src/store/queries/calibration.js';
import { CALIBRATION_VERSION } from '../src/domain/forecast/calibrate.js';
import { addDays } from '../src/domain/calendar.js';
import { arAgeingInStore, loadCashEvents, loadOpenReceivables } from '../src/store/queries/daily-summary.js';
import { loadForecastInput } from '../src/store/queries/forecast-input.js';
import { latestSnapshot, SNAPSHOTS_KEPT } from '../src/store/queries/forecast-snapshots.js';
import { saveManualItems } from '../src/store/queries/manual-items.js';
import { orgMeta } from '../src/store/queries/organisation.js';
import { loadRawLedger } from '../src/store/queries/raw-ledger.js';
import { dec, D } from '../src/domain/money.js';

// Sunday 22 November 2026, 14:00 UTC: already Monday 23 November in Sydney.
const NOW = new Date('2026-11-22T14:00:00Z');
const synced = NOW;

describe.each(BACKENDS)('forecast job on %s', (kind) => {
  let store: TestStore;
  let orgId: string;
  beforeAll(async () => {
    store = await freshStore(kind);
    orgId = (await createOrg(store.db, { name: 'Forecast Co', now: NOW, timezone: 'Australia/Sydney' })).orgId;
    const ledger = syntheticLedger(orgId, { seed: 7, asOf: '2026-11-22', customers: 40, years: 1.5 });
    await insertSynthetic(store.db, ledger);
    const db = store.db;
    // A USD invoice (rate 0.65: 65 USD is 100 AUD), open, due in two weeks.
    await db.insert(s.cashItems).values({
      orgId, id: 'usd-1', source: 'LEDGER_INVOICE', ledgerType: 'ACCREC', contactId: ledger.contacts[0]!.id, ledgerStatus: 'AUTHORISED',
      status: 'FORECAST', currency: 'USD', currencyRate: '0.65', issueDate: '2026-11-20', dueDate: '2026-12-04', sortDate: '2026-11-20',
      subTotal: '65', totalTax: '0', total: '65', amountDue: '65', amountPaid: '0', amountCredited: '0', lastSyncedAt: synced,
    });
    // A bill of the same supplier and amount as an open order, without its reference: CONTACT_AMOUNT.
    const supplier = ledger.contacts.find((c) => c.name === 'Stock Supplier 1')!.id;
    await db.insert(s.purchaseOrders).values({
      orgId, id: 'po-amount', number: 'PO-X1', reference: '', contactId: supplier, status: 'AUTHORISED', currency: 'EUR',
      issueDate: '2026-11-10', deliveryDate: '2026-11-25', sortDate: '2026-11-10', subTotal: '1234.56', totalTax: '0', total: '1234.56', lastSyncedAt: synced,
    });
    await db.insert(s.cashItems).values({
      orgId, id: 'bill-amount', source: 'LEDGER_BILL', ledgerType: 'ACCPAY', contactId: supplier, ledgerStatus: 'AUTHORISED', status: 'FORECAST',
      currency: 'EUR', issueDate: '2026-11-18', dueDate: '2026-12-18', sortDate: '2026-11-18', subTotal: '1234.56', totalTax: '0', total: '1234.56',
      amountDue: '1234.56', amountPaid: '0', amountCredited: '0', lastSyncedAt: synced,
    });
    // A sensitive account on an open bill's line (names are redacted at read time, stored as they are).
    await db.update(s.accounts).set({ isSensitive: true }).where(and(eq(s.accounts.orgId, orgId), eq(s.accounts.code, '469')));
  });
  afterAll(async () => {
    await store?.close();
  });

  it('issue 17: the calibration is stored per organisation; a second run the same day is skipped (recalibrateIfStale), the next day it runs again', async () => {
    const first = await recalibrate(store.db, orgId, NOW);
    expect(first.cutoffs).toBeGreaterThan(20);
    expect((await loadCalibration(store.db, orgId))!.asOf).toBe(first.asOf);
    expect(await recalibrateIfStale(store.db, orgId, NOW)).toBeNull();
    const nextDay = await recalibrateIfStale(store.db, orgId, new Date(NOW.getTime() + 86_400_000));
    expect(nextDay?.asOf).toBe(addDays(first.asOf, 1));
    expect((await loadCalibration(store.db, orgId))!.asOf).toBe(nextDay!.asOf);
    // A calibration stored by other rules (before versions, or of another version) is made again the same day.
    const later = new Date(NOW.getTime() + 86_400_000);
    for (const version of [undefined, CALIBRATION_VERSION - 1]) {
      const { version: _v, ...state } = (await loadCalibration(store.db, orgId))!;
      await saveCalibration(store.db, orgId, version === undefined ? state : { ...state, version }, later);
      const again = await recalibrateIfStale(store.db, orgId, later);
      expect(again?.asOf, `version ${version}`).toBe(nextDay!.asOf);
      expect((await loadCalibration(store.db, orgId))!.version).toBe(CALIBRATION_VERSION);
    }
    expect(await recalibrateIfStale(store.db, orgId, later)).toBeNull();
  });

  it('AR ageing aggregated in the store equals the domain rule (arAgeing) over every open receivable, on every band boundary and in a foreign currency', async () => {
    const asOf = '2026-11-23';
    const contactId = (await rows<{ id: string }>(store.db, sql`select id from contacts where org_id = ${orgId} limit 1`))[0]!.id;
    // Invoices exactly on each band's edges (0/1, 30/31, 60/61, 90/91 days past due), one without a due date, one of zero due.
    const edges = [0, 1, 30, 31, 60, 61, 90, 91, -3];
    await store.db.insert(s.cashItems).values([
      ...edges.map((late, k) => ({
        orgId, id: `edge-${k}`, source: 'LEDGER_INVOICE', ledgerType: 'ACCREC', contactId, ledgerStatus: 'AUTHORISED', status: 'FORECAST',
        currency: 'AUD', issueDate: addDays(asOf, -late - 10), dueDate: addDays(asOf, -late), sortDate: addDays(asOf, -late - 10),
        subTotal: '10.01', totalTax: '0', total: '10.01', amountDue: '10.01', amountPaid: '0', amountCredited: '0', lastSyncedAt: synced,
      })),
      { orgId, id: 'edge-nodue', source: 'LEDGER_INVOICE', ledgerType: 'ACCREC', contactId, ledgerStatus: 'AUTHORISED', status: 'FORECAST',
        currency: 'AUD', issueDate: addDays(asOf, -45), dueDate: null, sortDate: addDays(asOf, -45),
        subTotal: '7', totalTax: '0', total: '7', amountDue: '7', amountPaid: '0', amountCredited: '0', lastSyncedAt: synced },
    ]);
    const fromStore = await arAgeingInStore(store.db, orgId, asOf);
    const fromDomain = arAgeing(await loadOpenReceivables(store.db, orgId), asOf);
    expect(fromStore).toEqual(fromDomain);
    expect(fromStore.total.count).toBeGreaterThan(edges.length);
    await store.db.delete(s.cashItems).where(and(eq(s.cashItems.orgId, orgId), sql`${s.cashItems.id} like 'edge-%'`));
  });

  it('opening cash: reconciled balances plus unreconciled payments and bank transactions (the auto-detected adjustment); base-currency conversion', async () => {
    const org = (await orgMeta(store.db, orgId))!;
    const input = await loadForecastInput(store.db, org, '2026-11-23');
    const [unrec] = await rows<{ n: string }>(
      store.db,
      sql`select coalesce(sum(case when t.type like 'SPEND%' then -t.total else t.total end), 0)::text as n from bank_transactions t
          where t.org_id = ${orgId} and not t.is_reconciled`,
    );
    const [unrecPay] = await rows<{ n: string }>(
      store.db,
      sql`select coalesce(sum(case when i.ledger_type = 'ACCREC' then p.amount else -p.amount end), 0)::text as n
          from payments p join cash_items i on i.org_id = p.org_id and i.id = p.item_id where p.org_id = ${orgId} and not p.is_reconciled`,
    );
    const bank = input.bankAccounts[0]!;
    expect(dec(bank.unreconciledNet).eq(dec(unrec!.n).plus(unrecPay!.n))).toBe(true);
    const usd = input.items.find((i) => i.id === 'usd-1')!;
    expect(usd).toMatchObject({ kind: 'AR', status: 'AUTHORISED' });
    expect([dec(usd.total).toString(), dec(usd.amountDue).toString()]).toEqual(['100', '100']);
  });

  it('recomputeForecast: BASE, BEST and WORST created once, one snapshot per scenario; the org time zone decides week 1', async () => {
    await store.db.insert(s.forecastScenarios).values({ orgId, id: 'cautious', name: 'Cautious', kind: 'CUSTOM', adjustments: { inflowFactor: '0.8', paymentDelayShiftDays: 10 } });
    const r = await recomputeForecast(store.db, orgId, NOW);
    expect(r.asOfDate).toBe('2026-11-23');
    expect(r.snapshots.map((x) => x.scenarioKind)).toEqual(['BASE', 'BEST', 'WORST', 'CUSTOM']);
    await recomputeForecast(store.db, orgId, new Date(NOW.getTime() + 1000));
    const scenarios = await store.db.select().from(s.forecastScenarios).where(eq(s.forecastScenarios.orgId, orgId));
    expect(scenarios.map((x) => x.kind).sort()).toEqual(['BASE', 'BEST', 'CUSTOM', 'WORST']);
    const base = (await latestSnapshot(store.db, orgId))!;
    expect(base.scenarioId).toBe('base');
    expect(base.engineVersion).toBe(ENGINE_VERSION);
    expect(base.computedAt.getTime()).toBe(NOW.getTime() + 1000);
    const p = base.payload;
    expect(p.weeks[0]!.weekStart).toBe('2026-11-23');
    expect(p.weeks).toHaveLength(13);
    expect(p.scenarioKind).toBe('BASE');
    let opening = dec(p.startingCash);
    for (const w of p.weeks) {
      expect(dec(w.opening).eq(opening)).toBe(true);
      opening = dec(w.closing);
      expect(opening.eq(dec(w.opening).plus(w.inflow).minus(w.outflow))).toBe(true);
    }
    expect(p.cashPosition.effectiveStartingCash).toBe(p.startingCash);
    const custom = (await latestSnapshot(store.db, orgId, 'cautious'))!.payload;
    expect(dec(custom.totalInflow).lt(dec(p.totalInflow))).toBe(true);
    // Category names are stored (redaction happens at read time).
    const names = new Set(p.weeks.flatMap((w) => Object.values(w.categories!.accounts).map((a) => a.name)));
    expect(names.has('Sales')).toBe(true);
  });

  it('spec 3: the job records purchase-order matches as suppressed_reason (REFERENCE, CONTACT_AMOUNT, null) and leaves matched orders out', async () => {
    const pos = await store.db.select().from(s.purchaseOrders).where(eq(s.purchaseOrders.orgId, orgId));
    const byId = new Map(pos.map((p) => [p.id, p]));
    expect(byId.get('po-amount')!.suppressedReason).toBe('CONTACT_AMOUNT');
    const billed = pos.filter((p) => p.status === 'BILLED');
    expect(billed.length).toBeGreaterThan(0);
    expect(billed.every((p) => p.suppressedReason === 'REFERENCE')).toBe(true);
    const open = pos.filter((p) => p.status === 'AUTHORISED' && p.id !== 'po-amount');
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((p) => p.suppressedReason === null)).toBe(true);
    const base = (await latestSnapshot(store.db, orgId))!.payload;
    const ids = new Set(base.weeks.flatMap((w) => w.itemIds));
    expect(ids.has('po-amount')).toBe(false);
    expect(open.some((p) => ids.has(p.id))).toBe(true);
  });

  it('manual items (operator) appear in every scenario; snapshots are pruned to the last SNAPSHOTS_KEPT per scenario', async () => {
    await saveManualItems(store.db, orgId, [{ id: 'manual:grant', date: '2026-12-02', amount: '2500', description: 'Grant' }], NOW);
    for (let i = 0; i < SNAPSHOTS_KEPT + 1; i++) await recomputeForecast(store.db, orgId, new Date(NOW.getTime() + 10_000 + i * 1000));
    const [n] = await rows<{ n: number }>(store.db, sql`select count(*)::int8 as n from forecast_snapshots where org_id = ${orgId} and scenario_id = 'base'`);
    expect(Number(n!.n)).toBe(SNAPSHOTS_KEPT);
    for (const sc of ['base', 'best', 'worst', 'cautious']) {
      const p = (await latestSnapshot(store.db, orgId, sc))!.payload;
      expect(p.weeks[1]!.itemIds).toContain('manual:grant');
    }
  });

  it('spec 9: an engineVersion 1 snapshot reads with forecastInflow 0', async () => {
    const base = (await latestSnapshot(store.db, orgId))!.payload;
    const v1 = { ...base, engineVersion: 1, weeks: base.weeks.map(({ guaranteedInflow: _g, forecastInflow: _f, ...w }) => w) };
    const later = new Date(NOW.getTime() + 3_600_000);
    await store.db.insert(s.forecastSnapshots).values({ orgId, id: 'legacy', scenarioId: 'base', engineVersion: 1, asOfDate: '2026-11-23', computedAt: later, payload: v1 });
    const read = (await latestSnapshot(store.db, orgId))!;
    expect(read.engineVersion).toBe(1);
    expect(read.payload.weeks.every((w) => w.forecastInflow === '0' && !('guaranteedInflow' in w))).toBe(true);
  });

  it('cash events of the last days: payments and bank transactions, signed, with contact names; transfers excluded', async () => {
    const events = await loadCashEvents(store.db, orgId, '2026-11-16', '2026-11-22');
    expect(events.length).toBeGreaterThan(0);
    const net = events.reduce((a, e) => a.plus(e.amount), new D(0));
    const [check] = await rows<{ n: string }>(
      store.db,
      sql`select (coalesce((select sum(case when i.ledger_type = 'ACCREC' then p.amount else -p.amount end) from payments p
                  join cash_items i on i.org_id = p.org_id and i.id = p.item_id where p.org_id = ${orgId} and p.date between '2026-11-16' and '2026-11-22'), 0)
              + coalesce((select sum(case when type like 'SPEND%' then -total else total end) from bank_transactions
                  where org_id = ${orgId} and date between '2026-11-16' and '2026-11-22'), 0))::text as n`,
    );
    expect(net.eq(dec(check!.n))).toBe(true);
  });

  it('session 22: the liability accounts\' journal lines per day, credit positive, up to today: matched by code without an account id; not the control accounts, not other classes', async () => {
    const db = store.db;
    const acct = (id: string, code: string, name: string, type: string, cls: string, systemAccount: string | null = null) =>
      ({ orgId, id, code, name, type, class: cls, systemAccount, lastSyncedAt: synced });
    await db.insert(s.accounts).values([
      acct('liab-gst', '8820', 'GST test', 'CURRLIAB', 'LIABILITY', 'GST'),
      acct('liab-ap', '8800', 'Payables test', 'CURRLIAB', 'LIABILITY', 'CREDITORS'),
      acct('asset-x', '8090', 'Asset test', 'CURRENT', 'ASSET'),
    ]);
    const line = (id: string, date: string, accountId: string | null, accountCode: string, netAmount: string) =>
      ({ orgId, journalId: `lj-${id}`, id, journalDate: date, accountId, accountCode, netAmount, taxAmount: '0' });
    await db.insert(s.journalLines).values([
      line('l1', '2026-10-05', 'liab-gst', '8820', '-100.10'), // tax on a sale: a credit
      line('l2', '2026-10-05', null, '8820', '-0.90'), // the same day, by code
      line('l3', '2026-10-07', 'liab-gst', '8820', '30'), // tax on a purchase: a debit
      line('l4', '2026-11-23', 'liab-gst', '8820', '-5'), // today (Monday 23 November): kept
      line('l5', '2026-11-24', 'liab-gst', '8820', '-7'), // tomorrow: not yet
      line('l6', '2026-10-05', 'liab-ap', '8800', '-999'),
      line('l7', '2026-10-05', 'asset-x', '8090', '999'),
    ]);
    const org = (await orgMeta(db, orgId))!;
    const input = await loadForecastInput(db, org, '2026-11-23');
    expect(input.liabilityLines!.filter((l) => l.accountId.startsWith('liab-') || l.accountId === 'asset-x')).toEqual([
      { accountId: 'liab-gst', date: '2026-10-05', amount: '101' },
      { accountId: 'liab-gst', date: '2026-10-07', amount: '-30' },
      { accountId: 'liab-gst', date: '2026-11-23', amount: '5' },
    ]);
  });
  it('session 23: a bank transaction split over several accounts carries them all (sorted ids); the GST account of the documents counts only its own lines of it', async () => {
    const db = store.db;
    const other = (await createOrg(db, { name: 'Split BAS Co', now: NOW, timezone: 'Australia/Sydney' })).orgId;
    const acct = (id: string, code: string, name: string, systemAccount: string | null = null) =>
      ({ orgId: other, id, code, name, type: 'CURRLIAB', class: 'LIABILITY', systemAccount, lastSyncedAt: synced });
    await db.insert(s.accounts).values([acct('z-payg', '825', 'PAYG Withholdings Payable'), acct('a-gst', '820', 'GST', 'GST')]);
    const line = (accountCode: string, lineAmount: string, taxAmount = '0') => ({ description: null, quantity: '1', unitAmount: lineAmount, lineAmount, taxAmount, accountCode });
    const txn = (id: string, type: string, date: string, total: string, totalTax: string, lines: object[]) =>
      ({ orgId: other, id, type, contactId: 'ato', bankAccountId: 'bank', date, status: 'AUTHORISED', currency: 'AUD', subTotal: total, totalTax, total, lines, lastSyncedAt: synced });
    await db.insert(s.bankTransactions).values([
      txn('t-split', 'SPEND', '2026-10-28', '1000', '0', [line('825', '300'), line('820', '700')]), // one return: tax withheld first, then GST
      txn('t-gst', 'SPEND', '2026-07-28', '50', '0', [line('820', '50')]),
      txn('t-sale', 'RECEIVE', '2026-10-05', '110', '10', [line('200', '100', '10')]),
      txn('t-two', 'SPEND', '2026-10-06', '30', '0', [line('825', '10'), line('825', '20')]), // two lines of one account: one account
      txn('t-odd', 'SPEND', '2026-10-07', '40', '0', []),
    ]);
    // Lines that are not an array (the column takes any JSON): read as a transaction without lines, not a failed load.
    await db.execute(sql`update bank_transactions set lines = '{"accountCode":"820"}'::jsonb where org_id = ${other} and id = 't-odd'`);
    const org = (await orgMeta(db, other))!;
    const input = await loadForecastInput(db, org, '2026-11-23');
    const byId = new Map(input.bankTxns.map((t) => [t.id, t]));
    expect(byId.get('t-split')).toMatchObject({ amount: '-1000', accountId: 'z-payg', accountIds: ['a-gst', 'z-payg'] });
    for (const id of ['t-gst', 't-sale', 't-two', 't-odd']) expect(byId.get(id)!.accountIds).toBeUndefined();
    expect(byId.get('t-odd')).toMatchObject({ amount: '-40', accountId: null });
    const raw = await loadRawLedger(db, org);
    expect(raw.bankTxns.find((t) => t.id === 't-split')).toMatchObject({ accountIds: ['a-gst', 'z-payg'] });
    // A return raised as a bill to the tax office, a line for each account (the larger GST): its accounts, sorted, on the open bill
    // and on the supplier's bill series; the raw ledger the same.
    await db.insert(s.cashItems).values({
      orgId: other, id: 'bas-bill', source: 'LEDGER_BILL', ledgerType: 'ACCPAY', contactId: 'ato', ledgerStatus: 'AUTHORISED', status: 'FORECAST',
      currency: 'AUD', issueDate: '2026-11-20', dueDate: '2026-12-04', sortDate: '2026-11-20', subTotal: '1000', totalTax: '0', total: '1000',
      amountDue: '1000', amountPaid: '0', amountCredited: '0', lastSyncedAt: synced,
    });
    await db.insert(s.cashItemLines).values([
      { orgId: other, itemId: 'bas-bill', lineNumber: 1, id: 'bas-bill:1', lineAmount: '300', taxAmount: '0', accountCode: '825' },
      { orgId: other, itemId: 'bas-bill', lineNumber: 2, id: 'bas-bill:2', lineAmount: '700', taxAmount: '0', accountCode: '820' },
    ]);
    const withBill = await loadForecastInput(db, org, '2026-11-23');
    expect(withBill.items.find((it) => it.id === 'bas-bill')).toMatchObject({ accountId: 'a-gst', accountIds: ['a-gst', 'z-payg'] });
    expect(withBill.history!.bills.get('ato')).toMatchObject({ accountId: 'a-gst', accountIds: ['a-gst', 'z-payg'] });
    expect((await loadRawLedger(db, org)).items.find((it) => it.id === 'bas-bill')).toMatchObject({ accountId: 'a-gst', accountIds: ['a-gst', 'z-payg'] });
    // No journals: the GST account from the documents; of the split return only its 700 of GST.
    expect(input.liabilityLines).toEqual([
      { accountId: 'a-gst', date: '2026-07-28', amount: '-50' },
      { accountId: 'a-gst', date: '2026-10-05', amount: '10' },
      { accountId: 'a-gst', date: '2026-10-28', amount: '-700' },
    ]);
  });
});
