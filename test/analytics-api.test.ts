/**
 * The nightly baseline job (src/jobs/baselines.ts) and the summary and cohort
 * endpoints, through real HTTP, on PGlite and PostgreSQL, over a small
 * hand-made ledger whose expected figures are worked out below with plain
 * loops. Spec rules are named on each test: 2.5 (contact baselines), 2.8
 * (summaries), 2.9 (cohorts), 4.1 (scope READ_SUMMARY), 4.6 (parameters and
 * default window), 5.4 (sensitive renaming, redactedItemCount), 8 (limits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { addDays } from '../src/domain/calendar.js';
import { D } from '../src/domain/money.js';
import { SCOPES } from '../src/domain/scopes.js';
import { computeBaselines } from '../src/jobs/baselines.js';
import { rows, type Db } from '../src/store/db.js';
import * as s from '../src/store/schema.js';
import { createOrg } from '../src/store/tenancy.js';
import { ContactDrillResponse } from '../src/schemas/ledger.js';
import {
  CohortRetentionResponse,
  CohortSummaryResponse,
  ContactsSummaryResponse,
  ExpensesSummaryResponse,
  RevenueSummaryResponse,
} from '../src/schemas/analytics.js';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { startTestApi, type TestApi } from './helpers/http.js';

const NOW = '2026-11-23T09:00:00Z'; // 20:00 in Sydney
const TODAY = '2026-11-23';
const T0 = new Date(NOW);
const NO_SENSITIVE = SCOPES.filter((x) => x !== 'READ_SENSITIVE');

// ---------------------------------------------------------------------------
// The ledger (AUD, Australia/Sydney, financial year ending 30 June)
// ---------------------------------------------------------------------------

interface Item {
  id: string;
  kind: 'ACCREC' | 'ACCPAY' | 'ACCRECCREDIT';
  contactId: string;
  ledgerStatus: 'DRAFT' | 'AUTHORISED' | 'PAID' | 'VOIDED';
  issue: string;
  due: string;
  paid: string | null;
  sub: number;
  tax: number;
  currency?: string;
  rate?: string;
  remaining?: string;
  account: string;
}

const CONTACTS = [
  { id: 'cw', name: 'Weekly Wines', isCustomer: true },
  { id: 'cs', name: 'Secret Client', isCustomer: true, isSensitive: true },
  { id: 'co', name: 'One-off Co', isCustomer: true },
  { id: 'cl', name: 'Late Payer', isCustomer: true },
  { id: 'cf', name: 'Export Inc', isCustomer: true },
  { id: 'cb', name: 'Both Co', isCustomer: true, isSupplier: true },
  { id: 'sc', name: 'Stock Supplier', isSupplier: true },
  { id: 'sr', name: 'Landlord', isSupplier: true },
  { id: 'ss', name: 'Hidden Supplier', isSupplier: true, isSensitive: true },
  { id: 'nn', name: 'Nobody' },
];

function ledger(): Item[] {
  const items: Item[] = [];
  // cw: weekly, 40 invoices up to 20 Nov; paid 2 days after a 7-day term, except the latest (open)
  for (let k = 0; k < 40; k++) {
    const issue = addDays('2026-11-20', -7 * k);
    const due = addDays(issue, 7);
    items.push({ id: `cw-${k}`, kind: 'ACCREC', contactId: 'cw', ledgerStatus: k === 0 ? 'AUTHORISED' : 'PAID', issue, due, paid: k === 0 ? null : addDays(due, 2), sub: 1000, tax: 100, account: '200' });
  }
  // cs: monthly on the 5th, Dec 2025 to Nov 2026, paid on the due date
  for (let k = 0; k < 12; k++) {
    const issue = `${k === 0 ? '2025-12' : `2026-${String(k).padStart(2, '0')}`}-05`;
    const due = addDays(issue, 14);
    items.push({ id: `cs-${k}`, kind: 'ACCREC', contactId: 'cs', ledgerStatus: 'PAID', issue, due, paid: due, sub: 2000, tax: 200, account: '200' });
  }
  items.push({ id: 'co-1', kind: 'ACCREC', contactId: 'co', ledgerStatus: 'PAID', issue: '2024-01-10', due: '2024-01-20', paid: '2024-01-20', sub: 500, tax: 50, account: '200' });
  items.push({ id: 'cl-1', kind: 'ACCREC', contactId: 'cl', ledgerStatus: 'AUTHORISED', issue: '2026-10-01', due: '2026-10-31', paid: null, sub: 300, tax: 30, account: '200' });
  items.push({ id: 'cl-2', kind: 'ACCREC', contactId: 'cl', ledgerStatus: 'DRAFT', issue: '2026-11-20', due: '2026-12-20', paid: null, sub: 100, tax: 10, account: '200' });
  items.push({ id: 'cl-3', kind: 'ACCREC', contactId: 'cl', ledgerStatus: 'VOIDED', issue: '2026-09-01', due: '2026-10-01', paid: null, sub: 200, tax: 20, account: '200' });
  items.push({ id: 'cf-1', kind: 'ACCREC', contactId: 'cf', ledgerStatus: 'PAID', issue: '2026-09-10', due: '2026-09-20', paid: '2026-09-20', sub: 100, tax: 0, currency: 'USD', rate: '0.5', account: '200' });
  // Paid on 1 August (the business's calendar date): belongs to August.
  items.push({ id: 'cb-1', kind: 'ACCREC', contactId: 'cb', ledgerStatus: 'PAID', issue: '2026-07-20', due: '2026-08-01', paid: '2026-08-01', sub: 400, tax: 40, account: '200' });
  items.push({ id: 'cn-cs', kind: 'ACCRECCREDIT', contactId: 'cs', ledgerStatus: 'AUTHORISED', issue: '2026-10-01', due: '2026-10-01', paid: null, sub: 300, tax: 0, remaining: '120', account: '200' });
  items.push({ id: 'cn-cf', kind: 'ACCRECCREDIT', contactId: 'cf', ledgerStatus: 'AUTHORISED', issue: '2026-10-05', due: '2026-10-05', paid: null, sub: 50, tax: 0, currency: 'USD', rate: '0.5', remaining: '50', account: '200' });
  // sc: stock bills on the 15th to cost of goods sold (310), 30-day terms, paid on time; the November one open
  for (let k = 0; k < 13; k++) {
    const issue = `${k <= 1 ? `2025-${k === 0 ? '11' : '12'}` : `2026-${String(k - 1).padStart(2, '0')}`}-15`;
    const due = addDays(issue, 30);
    items.push({ id: `sc-${k}`, kind: 'ACCPAY', contactId: 'sc', ledgerStatus: k === 12 ? 'AUTHORISED' : 'PAID', issue, due, paid: k === 12 ? null : due, sub: 3000, tax: 300, account: '310' });
  }
  // sr: rent on the 1st (400), paid the same day
  for (let k = 1; k <= 11; k++) {
    const issue = `2026-${String(k).padStart(2, '0')}-01`;
    items.push({ id: `sr-${k}`, kind: 'ACCPAY', contactId: 'sr', ledgerStatus: 'PAID', issue, due: issue, paid: issue, sub: 2000, tax: 200, account: '400' });
  }
  items.push({ id: 'ss-1', kind: 'ACCPAY', contactId: 'ss', ledgerStatus: 'PAID', issue: '2026-09-30', due: '2026-09-30', paid: '2026-09-30', sub: 5000, tax: 0, account: '400' });
  items.push({ id: 'cb-b1', kind: 'ACCPAY', contactId: 'cb', ledgerStatus: 'PAID', issue: '2026-10-10', due: '2026-10-10', paid: '2026-10-10', sub: 100, tax: 10, account: '400' });
  return items;
}

const ITEMS = ledger();
const gross = (i: Item) => i.sub + i.tax;
/** Base (AUD) value of an item amount: USD at 0.5 USD per AUD. */
const base = (i: Item, amount: number) => (i.rate ? amount / Number(i.rate) : amount);

async function seed(db: Db, orgId: string): Promise<void> {
  await db.insert(s.contacts).values(
    CONTACTS.map((c) => ({ orgId, id: c.id, name: c.name, isCustomer: !!c.isCustomer, isSupplier: !!c.isSupplier, isSensitive: !!c.isSensitive, lastSyncedAt: T0 })),
  );
  await db.insert(s.accounts).values([
    { orgId, id: 'a200', code: '200', name: 'Sales', type: 'REVENUE', class: 'REVENUE', lastSyncedAt: T0 },
    { orgId, id: 'a310', code: '310', name: 'Cost of Goods Sold', type: 'DIRECTCOSTS', class: 'EXPENSE', lastSyncedAt: T0 },
    { orgId, id: 'a400', code: '400', name: 'Rent', type: 'EXPENSE', class: 'EXPENSE', lastSyncedAt: T0 },
  ]);
  await db.insert(s.cashItems).values(
    ITEMS.map((i) => {
      const total = gross(i);
      const paid = i.ledgerStatus === 'PAID';
      return {
        orgId,
        id: i.id,
        source: i.kind === 'ACCREC' ? 'LEDGER_INVOICE' : i.kind === 'ACCPAY' ? 'LEDGER_BILL' : 'LEDGER_CREDIT_NOTE',
        ledgerType: i.kind,
        contactId: i.contactId,
        ledgerStatus: i.ledgerStatus,
        status: paid ? 'ACTUAL' : i.ledgerStatus === 'VOIDED' ? 'CANCELLED' : 'FORECAST',
        currency: i.currency ?? 'AUD',
        currencyRate: i.rate ?? null,
        lineAmountTypes: 'Exclusive',
        issueDate: i.issue,
        dueDate: i.due,
        paidDate: i.paid,
        sortDate: i.issue,
        subTotal: String(i.sub),
        totalTax: String(i.tax),
        total: String(total),
        amountDue: paid ? '0' : String(total),
        amountPaid: paid ? String(total) : '0',
        amountCredited: '0',
        remainingCredit: i.remaining ?? null,
        lastSyncedAt: T0,
      };
    }),
  );
  await db.insert(s.cashItemLines).values(
    ITEMS.map((i) => ({ orgId, itemId: i.id, lineNumber: 1, id: `${i.id}:1`, lineAmount: String(i.sub), taxAmount: String(i.tax), accountCode: i.account })),
  );
}

/** Another organisation's data (must never leak into the first one's figures). */
async function seedOther(db: Db, orgId: string): Promise<void> {
  await db.insert(s.contacts).values({ orgId, id: 'cw', name: 'Other Weekly Wines', isCustomer: true, lastSyncedAt: T0 });
  await db.insert(s.cashItems).values({
    orgId, id: 'other-1', source: 'LEDGER_INVOICE', ledgerType: 'ACCREC', contactId: 'cw', ledgerStatus: 'PAID', status: 'ACTUAL', currency: 'AUD',
    issueDate: '2026-10-01', dueDate: '2026-10-01', paidDate: '2026-10-01', sortDate: '2026-10-01', subTotal: '99999', totalTax: '0', total: '99999',
    amountDue: '0', amountPaid: '99999', amountCredited: '0', lastSyncedAt: T0,
  });
}

// ---------------------------------------------------------------------------
// Expected figures, by plain loops over ITEMS
// ---------------------------------------------------------------------------

const sumBy = (list: Item[], f: (i: Item) => number) => list.reduce((a, i) => a.plus(f(i)), new D(0));
const isSale = (i: Item) => i.ledgerStatus === 'AUTHORISED' || i.ledgerStatus === 'PAID';
const between = (d: string | null, from: string, to: string) => d !== null && d >= from && d <= to;

function expectedMargin(from: string, to: string) {
  const inWin = ITEMS.filter((i) => isSale(i) && between(i.issue, from, to));
  const revenue = sumBy(inWin.filter((i) => i.kind === 'ACCREC'), (i) => base(i, i.sub)).minus(sumBy(inWin.filter((i) => i.kind === 'ACCRECCREDIT'), (i) => base(i, i.sub)));
  const cost = sumBy(inWin.filter((i) => i.kind === 'ACCPAY' && i.account === '310'), (i) => i.sub);
  return { revenue, cost, margin: Math.round(revenue.minus(cost).div(revenue).toNumber() * 10_000) / 10_000 };
}

function expectedSummary(kind: 'ACCREC' | 'ACCPAY', from: string, to: string) {
  const own = ITEMS.filter((i) => i.kind === kind);
  const paid = own.filter((i) => i.ledgerStatus === 'PAID' && between(i.paid, from, to));
  const months = new Map<string, { count: number; amount: InstanceType<typeof D> }>();
  const byContact = new Map<string, { count: number; amount: InstanceType<typeof D> }>();
  for (const i of paid) {
    const m = i.paid!.slice(0, 7);
    const b = months.get(m) ?? { count: 0, amount: new D(0) };
    months.set(m, { count: b.count + 1, amount: b.amount.plus(base(i, i.sub)) });
    const c = byContact.get(i.contactId) ?? { count: 0, amount: new D(0) };
    byContact.set(i.contactId, { count: c.count + 1, amount: c.amount.plus(base(i, i.sub)) });
  }
  const issued = own.filter((i) => i.ledgerStatus !== 'PAID' && between(i.issue, from, to));
  const status = (st: string) => {
    const l = issued.filter((i) => i.ledgerStatus === st);
    return { count: l.length, amount: sumBy(l, (i) => base(i, gross(i))).toFixed() };
  };
  return {
    paid: { count: paid.length, amount: sumBy(paid, (i) => base(i, i.sub)).toFixed() },
    months,
    top: [...byContact].sort((a, b) => b[1].amount.comparedTo(a[1].amount) || (a[0] < b[0] ? -1 : 1)),
    status,
  };
}

const DETAIL_KEYS = ['projectedLtv', 'historicalLtv', 'grossMarginPercent', 'expectedLifetimeYears', 'churnState', 'availableCredit'];

describe.each(BACKENDS)('analytics on %s', (kind) => {
  let api: TestApi;
  let orgId: string;
  let otherId: string;
  let full: string;
  let masked: string;
  const get = async (path: string, key: string) => {
    const res = await api.get(path, key);
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW });
    ({ orgId } = await api.org({ name: 'Harbour Test', plan: 'Reserve' }));
    ({ orgId: otherId } = await api.org({ name: 'Other Org', plan: 'Reserve' }));
    await seed(api.store.db, orgId);
    await seedOther(api.store.db, otherId);
    full = await api.key(orgId, SCOPES);
    masked = await api.key(orgId, NO_SENSITIVE);
  });
  afterAll(async () => {
    await api?.close();
  });

  // -------------------------------------------------------------------------
  // Before the first baseline run
  // -------------------------------------------------------------------------

  it('spec 2.8/2.9: before the nightly job has run, the contacts summary and cohorts are computed for the request (and nothing is stored by a GET)', async () => {
    const a = await get('/api/agent/contacts/summary', full);
    expect(a.status).toBe(200);
    expect(a.body.byType).toEqual({ customer: 5, supplier: 3, both: 1, neither: 1 });
    const c = await get('/api/agent/cohorts/summary', full);
    expect(c.status).toBe(200);
    const [n] = await rows<{ n: number }>(api.store.db, sql`select count(*)::int8 as n from derived_snapshots where org_id = ${orgId}`);
    expect(n!.n).toBe(0);
  });

  it('spec 2.5 ContactDrill before the nightly job: ledger sums and availableCredit are live, the baseline fields are null (projectedLtv needs the churn state)', async () => {
    const d = await get('/api/agent/contacts/cw', full);
    expect(d.status).toBe(200);
    expect(d.body.contact).toMatchObject({
      revenueAllTime: '42900', revenueTrailing12m: '42900', availableCredit: '0', cadence: null, cadenceConfidence: null, abcClass: null,
      projectedLtv: null, historicalLtv: null, grossMarginPercent: null, expectedLifetimeYears: 1, paymentDelayMedianDays: null,
    });
    expect((await get('/api/agent/contacts/cs', full)).body.contact.availableCredit).toBe('120');
  });

  // -------------------------------------------------------------------------
  // The job
  // -------------------------------------------------------------------------

  describe('computeBaselines', () => {
    let before: { contacts: unknown; cohorts: unknown; grossProfit: unknown };
    beforeAll(async () => {
      before = {
        contacts: (await get('/api/agent/contacts/summary?topN=100', full)).body,
        cohorts: (await get('/api/agent/cohorts/retention?periods=24', full)).body,
        grossProfit: (await get('/api/agent/revenue/summary', full)).body.grossProfit,
      };
      await computeBaselines(api.store.db, orgId, T0);
    });

    it('spec 2.5: writes one contact_baselines row per contact of this organisation only, with the cumulative gross-profit ltv = revenueAllTime x margin', async () => {
      const b = await rows<{ contact_id: string; ltv: string | null; revenue_all_time: string; details: Record<string, unknown> }>(
        api.store.db,
        sql`select contact_id, ltv, revenue_all_time, details from contact_baselines where org_id = ${orgId} order by contact_id`,
      );
      expect(b.map((r) => r.contact_id)).toEqual(CONTACTS.map((c) => c.id).sort());
      const { margin } = expectedMargin('2025-11-01', '2026-10-31'); // the last 12 full months
      expect(margin).toBe(0.395);
      const cw = b.find((r) => r.contact_id === 'cw')!;
      expect(cw.revenue_all_time).toBe('42900'); // 39 paid x 1,100
      expect(new D(cw.ltv!).eq(new D(42900).times(margin))).toBe(true);
      for (const r of b) for (const k of DETAIL_KEYS) expect(r.details).toHaveProperty(k);
      const [other] = await rows<{ n: number }>(api.store.db, sql`select count(*)::int8 as n from contact_baselines where org_id = ${otherId}`);
      expect(other!.n).toBe(0);
    });

    it('spec 2.5: cadence, confidence, payment delay, churn state and lifetime values per customer', async () => {
      const b = await rows<{
        contact_id: string;
        cadence: string | null;
        cadence_confidence: number | null;
        payment_delay_median_days: string | null;
        revenue_trailing_12m: string;
        abc_class: string | null;
        spend_all_time: string;
        details: Record<string, unknown>;
      }>(api.store.db, sql`select * from contact_baselines where org_id = ${orgId}`);
      const by = new Map(b.map((r) => [r.contact_id, r]));
      expect(by.get('cw')).toMatchObject({ cadence: 'WEEKLY', cadence_confidence: 95, payment_delay_median_days: '2', revenue_trailing_12m: '42900', abc_class: 'A' });
      expect(by.get('cw')!.details).toMatchObject({ churnState: 'Active', churnStatus: 'ACTIVE', projectedLtv: '16945.5', historicalLtv: '16945.5', grossMarginPercent: 0.395, expectedLifetimeYears: 1, availableCredit: '0' });
      expect(by.get('cs')).toMatchObject({ cadence: 'MONTHLY', payment_delay_median_days: '0', abc_class: 'A' });
      expect(by.get('cs')!.details).toMatchObject({ availableCredit: '120', projectedLtv: '10428' }); // USD credit of cf is not counted for anyone in AUD
      expect(by.get('co')).toMatchObject({ cadence: 'NONE', cadence_confidence: 0, abc_class: 'C' });
      expect(by.get('co')!.details).toMatchObject({ churnState: 'Churned', projectedLtv: '0', historicalLtv: '217.25' });
      expect(by.get('cf')!.details).toMatchObject({ availableCredit: '0' });
      expect(by.get('cl')).toMatchObject({ abc_class: null, payment_delay_median_days: null });
      expect(by.get('sc')).toMatchObject({ cadence: null, abc_class: null, spend_all_time: '39600' }); // 12 paid x 3,300
      expect(by.get('sc')!.details).toMatchObject({ projectedLtv: null, historicalLtv: null, churnState: null });
    });

    it('stores the contacts summary and cohorts as derived snapshots, and a read after the run answers exactly what the read before it computed', async () => {
      const kinds = await rows<{ kind: string }>(api.store.db, sql`select kind from derived_snapshots where org_id = ${orgId} order by kind`);
      expect(kinds.map((k) => k.kind)).toEqual(['analytics', 'cohorts', 'contacts_summary']);
      expect((await get('/api/agent/contacts/summary?topN=100', full)).body).toEqual(before.contacts);
      expect((await get('/api/agent/cohorts/retention?periods=24', full)).body).toEqual(before.cohorts);
      // the revenue summary's grossProfit is now the stored reading of the same three months
      const [org] = await rows<{ payload: { grossProfit: unknown } }>(api.store.db, sql`select payload from derived_snapshots where org_id = ${orgId} and kind = 'analytics'`);
      expect(org!.payload.grossProfit).toEqual(before.grossProfit);
      expect((await get('/api/agent/revenue/summary', full)).body.grossProfit).toEqual(before.grossProfit);
    });

    it('spec 2.5/4.5 ContactDrill over HTTP after the job: every computed field, agreeing with the stored baseline', async () => {
      const cw = await get('/api/agent/contacts/cw', full);
      expect(cw.status).toBe(200);
      expect(ContactDrillResponse.safeParse(cw.body).success).toBe(true);
      expect(cw.body.contact).toMatchObject({
        id: 'cw', name: 'Weekly Wines', isCustomer: true, isSupplier: false, isSensitive: false,
        availableCredit: '0', revenueAllTime: '42900', revenueTrailing12m: '42900',
        // 42,900 x 0.395 x 1 year x Active 1.0
        projectedLtv: '16945.5', historicalLtv: '16945.5', grossMarginPercent: 0.395, expectedLifetimeYears: 1,
        paymentDelayMedianDays: '2', cadence: 'WEEKLY', cadenceConfidence: 95, abcClass: 'A',
      });
      expect(cw.body.contact.recentPaidInvoices).toHaveLength(39);
      expect(cw.body.contact.lastInvoice).toMatchObject({ id: 'cw-0', ledgerStatus: 'AUTHORISED' });
      // 12 x 2,200 paid in the last 365 days, x 0.395; the AUD credit note's remaining 120
      const cs = await get('/api/agent/contacts/cs', full);
      expect(cs.body.contact).toMatchObject({ availableCredit: '120', revenueTrailing12m: '26400', projectedLtv: '10428', cadence: 'MONTHLY', abcClass: 'A' });
      // the USD credit note is excluded (spec: foreign-currency credits are not available credit)
      expect((await get('/api/agent/contacts/cf', full)).body.contact.availableCredit).toBe('0');
      // a churned one-off customer: projectedLtv 0, historicalLtv 550 x 0.395
      expect((await get('/api/agent/contacts/co', full)).body.contact).toMatchObject({ cadence: 'NONE', cadenceConfidence: 0, projectedLtv: '0', historicalLtv: '217.25', abcClass: 'C' });
      // a supplier: no tier, no cadence, no lifetime values
      expect((await get('/api/agent/contacts/sc', full)).body.contact).toMatchObject({ abcClass: null, cadence: null, projectedLtv: null, historicalLtv: null, grossMarginPercent: null });
      // the sensitive customer is not reachable without READ_SENSITIVE, like in the list
      expect((await get('/api/agent/contacts/cs', masked)).status).toBe(404);
      // the same figures as the stored baseline rows
      const b = await rows<{ contact_id: string; ltv: string | null; abc_class: string | null; cadence: string | null; details: Record<string, unknown> }>(
        api.store.db,
        sql`select contact_id, ltv, abc_class, cadence, details from contact_baselines where org_id = ${orgId} and contact_id in ('cw', 'cs', 'co', 'cb', 'cl')`,
      );
      for (const r of b) {
        const d = (await get(`/api/agent/contacts/${r.contact_id}`, full)).body.contact;
        expect({ id: r.contact_id, abc: d.abcClass, cadence: d.cadence, historicalLtv: d.historicalLtv, projectedLtv: d.projectedLtv }).toEqual({
          id: r.contact_id,
          abc: r.abc_class,
          cadence: r.cadence,
          historicalLtv: r.ltv,
          projectedLtv: r.details.projectedLtv,
        });
      }
    });

    it('is idempotent: a second run at the same instant leaves the same rows', async () => {
      const snap = () => rows(api.store.db, sql`select * from contact_baselines where org_id = ${orgId} order by contact_id`);
      const a = await snap();
      await computeBaselines(api.store.db, orgId, T0);
      expect(await snap()).toEqual(a);
    });
  });

  // -------------------------------------------------------------------------
  // Scopes and parameters
  // -------------------------------------------------------------------------

  it('spec 4.1: every summary endpoint needs READ_SUMMARY; /contacts/summary is not the contact drill (a READ_CONTACTS key gets 403)', async () => {
    const summaryOnly = await api.key(orgId, ['READ_SUMMARY']);
    const contactsOnly = await api.key(orgId, ['READ_CONTACTS']);
    for (const path of ['/api/agent/revenue/summary', '/api/agent/expenses/summary', '/api/agent/contacts/summary', '/api/agent/cohorts/summary', '/api/agent/cohorts/retention']) {
      expect((await get(path, summaryOnly)).status).toBe(200);
      const denied = await get(path, contactsOnly);
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe('insufficient_scope');
    }
  });

  it('decisions.md: a malformed known parameter is a 400 naming it (topN 1-100, dates, dateFrom after dateTo, metric, periods 1-24)', async () => {
    const bad: [string, string][] = [
      ['/api/agent/revenue/summary?topN=0', 'topN'],
      ['/api/agent/revenue/summary?topN=101', 'topN'],
      ['/api/agent/expenses/summary?topN=abc', 'topN'],
      ['/api/agent/revenue/summary?topN=2.5', 'topN'],
      ['/api/agent/revenue/summary?dateFrom=2026-02-30', 'dateFrom'],
      ['/api/agent/revenue/summary?dateTo=23/11/2026', 'dateTo'],
      ['/api/agent/revenue/summary?dateFrom=2026-10-02&dateTo=2026-10-01', 'dateFrom'],
      ['/api/agent/contacts/summary?topN=-1', 'topN'],
      ['/api/agent/cohorts/retention?metric=ltv', 'metric'],
      ['/api/agent/cohorts/retention?periods=0', 'periods'],
      ['/api/agent/cohorts/retention?periods=25', 'periods'],
    ];
    for (const [path, parameter] of bad) {
      const r = await get(path, full);
      expect(r.status, path).toBe(400);
      expect(r.body).toMatchObject({ error: 'bad_request', parameter });
    }
  });

  // -------------------------------------------------------------------------
  // Revenue and expenses
  // -------------------------------------------------------------------------

  it('spec 2.8/4.6: the revenue summary defaults to the financial year to date; PAID ex-tax by payment date, grandTotal PAID only, AUTHORISED gross outstanding, months zero-filled', async () => {
    const r = await get('/api/agent/revenue/summary', full);
    expect(r.status).toBe(200);
    RevenueSummaryResponse.parse(r.body);
    const x = expectedSummary('ACCREC', '2026-07-01', TODAY);
    expect(r.body.asOfDate).toBe(TODAY);
    expect(r.body.currency).toBe('AUD');
    expect(r.body.window).toEqual({ from: '2026-07-01', to: TODAY });
    expect(r.body.grandTotal).toEqual(x.paid);
    expect(x.paid).toEqual({ count: 28, amount: '31600' }); // 21 weekly + 5 monthly + the USD one (200 AUD) + Both Co
    expect(r.body.byStatus).toEqual({
      DRAFT: x.status('DRAFT'),
      SUBMITTED: { count: 0, amount: '0' },
      AUTHORISED: x.status('AUTHORISED'),
      PAID: x.paid,
      VOIDED: x.status('VOIDED'),
      DELETED: { count: 0, amount: '0' },
    });
    expect(r.body.byStatus.AUTHORISED).toEqual({ count: 2, amount: '1430' });
    expect(r.body.byMonth.map((m: { month: string }) => m.month)).toEqual(['2026-07', '2026-08', '2026-09', '2026-10', '2026-11']);
    for (const m of r.body.byMonth) {
      const e = x.months.get(m.month);
      expect(m).toEqual({ month: m.month, count: e?.count ?? 0, amount: e ? e.amount.toFixed() : '0' });
    }
    // Both Co's invoice was paid on 1 August (the business's date): August, not July.
    expect(x.months.get('2026-08')!.amount.gte(400)).toBe(true);
    expect(r.body.topContacts).toEqual(x.top.map(([id, v]) => ({ contactId: id, name: CONTACTS.find((c) => c.id === id)!.name, count: v.count, amount: v.amount.toFixed() })));
    expect(r.body.redactedItemCount).toBe(0);
  });

  it('spec 2.8 grossProfit: the last three full months from cost-of-sales coded bill lines, whatever the requested range', async () => {
    const { revenue, cost } = expectedMargin('2026-08-01', '2026-10-31');
    const gp = {
      window: { from: '2026-08-01', to: '2026-10-31' },
      revenue: revenue.toFixed(),
      costOfSales: cost.toFixed(),
      amount: revenue.minus(cost).toFixed(),
      marginPercent: Math.round(revenue.minus(cost).div(revenue).toNumber() * 10_000) / 10_000,
    };
    expect(cost.toFixed()).toBe('9000');
    expect((await get('/api/agent/revenue/summary', full)).body.grossProfit).toEqual(gp);
    expect((await get('/api/agent/revenue/summary?dateFrom=2020-01-01&dateTo=2020-12-31', full)).body.grossProfit).toEqual(gp);
  });

  it('spec 5.4/2.8: without READ_SENSITIVE a sensitive top contact is renamed with a blank id, its count and amount kept, and counted in redactedItemCount; aggregates are never masked', async () => {
    const a = (await get('/api/agent/revenue/summary', full)).body;
    const b = (await get('/api/agent/revenue/summary', masked)).body;
    const i = a.topContacts.findIndex((t: { contactId: string }) => t.contactId === 'cs');
    expect(i).toBeGreaterThanOrEqual(0);
    expect(b.topContacts[i]).toEqual({ contactId: '', name: 'Sensitive contact', count: a.topContacts[i].count, amount: a.topContacts[i].amount });
    expect(b.redactedItemCount).toBe(1);
    expect({ ...b, topContacts: null, redactedItemCount: null }).toEqual({ ...a, topContacts: null, redactedItemCount: null });
  });

  it('spec 4.6: dateTo is inclusive (to the end of that day) and topN caps the list', async () => {
    // cs pays on the 19th: a window ending 19 Oct includes October's payment
    const r = (await get('/api/agent/revenue/summary?dateFrom=2026-10-19&dateTo=2026-10-19&topN=1', full)).body;
    const x = expectedSummary('ACCREC', '2026-10-19', '2026-10-19');
    expect(r.window).toEqual({ from: '2026-10-19', to: '2026-10-19' });
    expect(r.grandTotal).toEqual(x.paid);
    expect(r.grandTotal.count).toBeGreaterThanOrEqual(1);
    expect(r.topContacts).toHaveLength(1);
    // only dateTo: from the start of its financial year
    const y = (await get('/api/agent/revenue/summary?dateTo=2026-03-31', full)).body;
    expect(y.window).toEqual({ from: '2025-07-01', to: '2026-03-31' });
    expect(y.grandTotal).toEqual(expectedSummary('ACCREC', '2025-07-01', '2026-03-31').paid);
  });

  it('spec 2.8 ExpensesSummaryResponse: the payables mirror, without grossProfit; the sensitive supplier renamed', async () => {
    const r = await get('/api/agent/expenses/summary', masked);
    expect(r.status).toBe(200);
    ExpensesSummaryResponse.parse(r.body);
    expect(r.body).not.toHaveProperty('grossProfit');
    const x = expectedSummary('ACCPAY', '2026-07-01', TODAY);
    expect(r.body.grandTotal).toEqual(x.paid);
    expect(r.body.byStatus.AUTHORISED).toEqual(x.status('AUTHORISED'));
    expect(r.body.topContacts.map((t: { name: string }) => t.name)).toEqual(
      x.top.map(([id]) => (id === 'ss' ? 'Sensitive contact' : CONTACTS.find((c) => c.id === id)!.name)),
    );
    expect(r.body.redactedItemCount).toBe(1);
  });

  it("spec 2.8 SummaryMonthBucket: months are the organisation's: at 00:30 on 1 July in Sydney (30 June in UTC) the year to date is already the new financial year", async () => {
    const saved = api.clock.now();
    api.clock.set('2026-06-30T14:30:00Z');
    try {
      const r = (await get('/api/agent/expenses/summary', full)).body;
      expect(r.asOfDate).toBe('2026-07-01');
      expect(r.window).toEqual({ from: '2026-07-01', to: '2026-07-01' });
      expect(r.byMonth).toEqual([{ month: '2026-07', count: 1, amount: '2000' }]); // July's rent, paid on the 1st
    } finally {
      api.clock.set(saved.toISOString());
    }
  });

  // -------------------------------------------------------------------------
  // Contacts summary
  // -------------------------------------------------------------------------

  it('spec 2.8 ContactsSummaryResponse: byType, abcDistribution, top customers by gross-profit ltv and suppliers by bill gross; renamed rows counted across both lists', async () => {
    const a = await get('/api/agent/contacts/summary', full);
    ContactsSummaryResponse.parse(a.body);
    expect(a.body).toMatchObject({
      asOfDate: TODAY,
      currency: 'AUD',
      byType: { customer: 5, supplier: 3, both: 1, neither: 1 },
      abcDistribution: { A: 2, B: 0, C: 3, unclassified: 1 },
      topByRevenueBasis: 'ltv',
      redactedItemCount: 0,
    });
    expect(a.body.topByRevenue).toEqual([
      { contactId: 'cw', name: 'Weekly Wines', count: 39, amount: '16945.5' },
      { contactId: 'cs', name: 'Secret Client', count: 12, amount: '10428' },
      { contactId: 'co', name: 'One-off Co', count: 1, amount: '217.25' },
      { contactId: 'cb', name: 'Both Co', count: 1, amount: '173.8' },
      { contactId: 'cf', name: 'Export Inc', count: 1, amount: '79' },
    ]);
    expect(a.body.topBySpend).toEqual([
      { contactId: 'sc', name: 'Stock Supplier', count: 13, amount: '42900' },
      { contactId: 'sr', name: 'Landlord', count: 11, amount: '24200' },
      { contactId: 'ss', name: 'Hidden Supplier', count: 1, amount: '5000' },
      { contactId: 'cb', name: 'Both Co', count: 1, amount: '110' },
    ]);
    const b = (await get('/api/agent/contacts/summary?topN=2', masked)).body;
    expect(b.topByRevenue[1]).toEqual({ contactId: '', name: 'Sensitive contact', count: 12, amount: '10428' });
    expect(b.topBySpend).toHaveLength(2);
    expect(b.redactedItemCount).toBe(1);
    expect((await get('/api/agent/contacts/summary?topN=3', masked)).body.redactedItemCount).toBe(2);
  });

  it('spec 5.4: a contact flagged sensitive after the nightly run is masked at once (names are read at request time)', async () => {
    await api.store.db.execute(sql`update contacts set is_sensitive = true where org_id = ${orgId} and id = 'sr'`);
    try {
      const b = (await get('/api/agent/contacts/summary', masked)).body;
      expect(b.topBySpend[1]).toEqual({ contactId: '', name: 'Sensitive contact', count: 11, amount: '24200' });
      expect(b.redactedItemCount).toBe(3);
    } finally {
      await api.store.db.execute(sql`update contacts set is_sensitive = false where org_id = ${orgId} and id = 'sr'`);
    }
  });

  // -------------------------------------------------------------------------
  // Cohorts
  // -------------------------------------------------------------------------

  it('spec 2.9 CohortSummaryResponse: window of acquisition months, four KPIs with deltas, top cohorts by M3 retention, redactedItemCount 0', async () => {
    const r = await get('/api/agent/cohorts/summary', masked);
    CohortSummaryResponse.parse(r.body);
    // acquisitions: cs 2025-12, cw 2026-02, cb 2026-07, cf 2026-09, cl 2026-10 (co's 2024-01 is older than 24 months)
    expect(r.body.window).toEqual({ from: '2025-12', to: '2026-10' });
    expect(r.body.kpis.newCustomers).toEqual({ value: 3, delta: 0.5, deltaKind: 'rate' }); // 3 (Jun-Nov) vs 2 (Dec-May)
    expect(r.body.kpis.repeatOrderRate).toEqual({ value: 0, delta: -1, deltaKind: 'pct' });
    expect(r.body.kpis.retention90d).toEqual({ value: 0, delta: -1, deltaKind: 'pct' }); // Jul cohort (Both Co) not back in Oct; Dec and Feb cohorts all back
    expect(r.body.topCohorts).toEqual([
      { acquisitionMonth: '2025-12', cohortSize: 1, retention3: 1 },
      { acquisitionMonth: '2026-02', cohortSize: 1, retention3: 1 },
      { acquisitionMonth: '2026-07', cohortSize: 1, retention3: 0 },
    ]);
    expect(r.body.redactedItemCount).toBe(0);
    expect(r.body.notesForAgent.map((n: { kind: string; severity: string }) => [n.kind, n.severity])).toEqual([
      ['trend', 'info'],
      ['trend', 'warn'],
    ]);
  });

  it('spec 2.9 CohortRetentionResponse: metric and periods; null for months not yet elapsed, distinct from a real 0', async () => {
    const r = await get('/api/agent/cohorts/retention', full);
    CohortRetentionResponse.parse(r.body);
    expect(r.body.metric).toBe('retention');
    expect(r.body.periodLabels).toEqual(['M0', 'M1', 'M2', 'M3', 'M4', 'M5', 'M6', 'M7', 'M8', 'M9', 'M10', 'M11']);
    const row = (cohort: string, body = r.body) => body.cohorts.find((c: { cohort: string }) => c.cohort === cohort);
    expect(row('2025-12')).toEqual({ cohort: '2025-12', customers: 1, revenue: '24000', activeNow: 1, values: Array(12).fill(1) });
    expect(row('2026-07')).toEqual({ cohort: '2026-07', customers: 1, revenue: '400', activeNow: 1, values: [1, 0, 0, 0, 0, null, null, null, null, null, null, null] });
    expect(r.body.redactedItemCount).toBe(0);
    expect(r.body.notesForAgent).toEqual([]);

    const c = (await get('/api/agent/cohorts/retention?metric=customers&periods=3', full)).body;
    expect(c.periodLabels).toEqual(['M0', 'M1', 'M2']);
    expect(row('2026-10', c).values).toEqual([1, 0, null]);
    const v = (await get('/api/agent/cohorts/retention?metric=revenue&periods=24', full)).body;
    expect(v.periodLabels).toHaveLength(24);
    expect(row('2026-09', v).values.slice(0, 4)).toEqual(['200', '0', '0', null]);
    expect(row('2026-02', v).values[9]).toBe('3000'); // November: 6, 13 and 20 Nov (the open one is a sale too)
  });
});

describe.each(BACKENDS)('baselines at scale on %s', (kind) => {
  let store: TestStore;
  const orgId = 'scale';
  beforeAll(async () => {
    store = await freshStore(kind);
    await createOrg(store.db, { id: orgId, name: 'Scale', now: T0, timezone: 'Europe/London', baseCurrency: 'GBP' });
    // 25,000 paid invoices over 2 years for 4,000 customers, as set-based inserts
    await store.db.execute(sql`insert into contacts (org_id, id, name, is_customer, last_synced_at)
      select ${orgId}, 'c' || g, 'Customer ' || g, true, now() from generate_series(1, 4000) g`);
    await store.db.execute(sql`insert into cash_items (org_id, id, source, ledger_type, contact_id, ledger_status, status, currency,
        issue_date, due_date, paid_date, sort_date, sub_total, total_tax, total, amount_due, amount_paid, amount_credited, last_synced_at)
      select ${orgId}, 'i' || g, 'LEDGER_INVOICE', 'ACCREC', 'c' || (1 + (g * 7919) % 4000), 'PAID', 'ACTUAL', 'GBP',
        d, d, d, d, (g % 500) + 0.5, 0, (g % 500) + 0.5, 0, (g % 500) + 0.5, 0, now()
      from (select g, date '2024-11-01' + (g % 730) as d from generate_series(1, 25000) g) x`);
  });
  afterAll(async () => {
    await store?.close();
  });

  // Speed is measured in bench/analytics.ts, not asserted here (the guide's rule); the time is logged.
  it('handles 25,000 invoices (set-based loads, one transaction of writes): one baseline row per customer', async () => {
    const t = performance.now();
    const run = await computeBaselines(store.db, orgId, new Date('2026-11-01T12:00:00Z'));
    const ms = performance.now() - t;
    expect(run.invoices).toBe(25_000);
    expect(run.contacts).toBe(4_000);
    const [n] = await rows<{ n: number }>(store.db, sql`select count(*)::int8 as n from contact_baselines where org_id = ${orgId}`);
    expect(n!.n).toBe(4_000);
    console.log(`${kind}: baselines for 25,000 invoices in ${Math.round(ms)} ms`, run.timings);
  });
});
