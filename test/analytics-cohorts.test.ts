/**
 * Cohorts, summary building blocks and the organisation analysis (pure):
 * spec 2.9 (CohortKpi, CohortTopEntry, CohortSummaryResponse,
 * CohortRetentionRow: "null for offsets not yet elapsed, kept distinct from a
 * real zero"), spec 8 ("Cohort history: up to 24 acquisition months",
 * "topCohorts: up to 3"), spec 2.8 (SummaryMonthBucket, SummaryTopContact,
 * ContactsSummaryResponse byType / abcDistribution).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addDays } from '../src/domain/calendar.js';
import { addMonths } from '../src/domain/fiscal.js';
import { D } from '../src/domain/money.js';
import { analyseCohorts, cohortNotes, type Purchase, retentionValues } from '../src/domain/analytics/cohorts.js';
import { analyseOrganisation, type AnalyticsInput } from '../src/domain/analytics/organisation.js';
import { grossProfitReading, maskTopContacts, monthBuckets, statusBuckets } from '../src/domain/analytics/summary.js';
import type { SalesInvoice } from '../src/domain/analytics/customer.js';

const p = (contactId: string, date: string, amount = '100'): Purchase => ({ contactId, date, amount });

describe('cohort matrix (spec 2.9 CohortRetentionRow)', () => {
  // asOf 2026-03-15: cohorts 2026-01 (a, b), 2026-02 (c), 2026-03 (d)
  const purchases = [
    p('a', '2026-01-05'),
    p('a', '2026-01-20', '50'),
    p('a', '2026-03-02'),
    p('b', '2026-01-31', '10'),
    p('c', '2026-02-10'),
    p('c', '2026-03-01', '25.5'),
    p('d', '2026-03-14'),
    p('d', '2026-04-01'), // after asOf: ignored
  ];
  const a = analyseCohorts(purchases, '2026-03-15', new Map([['a', 'Active'], ['b', 'Churned'], ['c', 'Active'], ['d', 'Active']]));

  it('Given four customers, When analysed on 15 March, Then each cohort holds the customers first seen that month, with per-offset counts and revenue', () => {
    expect(a.window).toEqual({ from: '2026-01', to: '2026-03' });
    expect(a.cohorts.map((c) => [c.cohort, c.customers, c.activeNow, c.revenue])).toEqual([
      ['2026-01', 2, 1, '260'],
      ['2026-02', 1, 1, '125.5'],
      ['2026-03', 1, 1, '100'],
    ]);
    const jan = a.cohorts[0]!;
    expect(jan.active.slice(0, 4)).toEqual([2, 0, 1, null]);
    expect(jan.revenueByOffset.slice(0, 4)).toEqual(['160', '0', '100', null]);
    expect(jan.active).toHaveLength(24);
  });

  it('Given the retention metric, Then fractions; a month with no buyer is a real 0 and a month not yet elapsed is null', () => {
    const jan = a.cohorts[0]!;
    expect(retentionValues(jan, 'retention', 4)).toEqual([1, 0, 0.5, null]);
    expect(retentionValues(jan, 'customers', 4)).toEqual([2, 0, 1, null]);
    expect(retentionValues(jan, 'revenue', 4)).toEqual(['160', '0', '100', null]);
    expect(retentionValues(a.cohorts[2]!, 'retention', 2)).toEqual([1, null]);
  });

  it('Given purchases over 30 months, Then only the 24 acquisition months ending with the as-of month are cohorts', () => {
    const many = Array.from({ length: 30 }, (_, k) => p(`c${k}`, `${addMonths('2024-01', k)}-15`));
    const r = analyseCohorts(many, '2026-06-20');
    expect(r.cohorts).toHaveLength(24);
    expect(r.window).toEqual({ from: '2024-07', to: '2026-06' });
  });

  it('Given no purchases, Then no cohorts, empty window strings, zero KPIs with null deltas', () => {
    const r = analyseCohorts([], '2026-06-20');
    expect(r.window).toEqual({ from: '', to: '' });
    expect(r.cohorts).toEqual([]);
    expect(r.topCohorts).toEqual([]);
    expect(r.kpis.newCustomers).toEqual({ value: 0, delta: null, deltaKind: 'rate' });
    expect(r.kpis.retention90d).toEqual({ value: 0, delta: null, deltaKind: 'pct' });
  });

  it('property: M0 retention is 1, counts never exceed the cohort size, values after the as-of month are null and the rest are not', () => {
    const arb = fc.array(fc.record({ id: fc.integer({ min: 0, max: 30 }), day: fc.integer({ min: 0, max: 900 }) }), { maxLength: 120 });
    fc.assert(
      fc.property(arb, fc.integer({ min: 0, max: 900 }), (rows, asOfK) => {
        const asOf = addDays('2024-01-01', asOfK);
        const r = analyseCohorts(rows.map((x) => p(`c${x.id}`, addDays('2024-01-01', x.day))), asOf);
        let total = 0;
        for (const c of r.cohorts) {
          const v = retentionValues(c, 'retention', 24);
          expect(v[0]).toBe(1);
          for (let k = 0; k < 24; k++) {
            const elapsed = addMonths(c.cohort, k) <= asOf.slice(0, 7);
            expect(v[k] === null).toBe(!elapsed);
            if (c.active[k] !== null) expect(c.active[k]!).toBeLessThanOrEqual(c.customers);
          }
          total += c.customers;
        }
        // every customer with a purchase on or before asOf (in the 24-month window) is in exactly one cohort
        const seen = new Set(rows.filter((x) => addDays('2024-01-01', x.day) <= asOf).map((x) => x.id));
        expect(total).toBeLessThanOrEqual(seen.size);
        expect(r.topCohorts.length).toBeLessThanOrEqual(3);
      }),
      { numRuns: 150 },
    );
  });
});

describe('cohort KPIs and top cohorts (spec 2.9 CohortKpi: deltas of the latest 6 months against the prior 6)', () => {
  // asOf 2026-12-10: latest half = 2026-07..2026-12, prior half = 2026-01..2026-06
  const purchases: Purchase[] = [];
  // prior half: 4 customers acquired in 2026-01, two of whom buy again in 2026-04 (M3)
  for (const id of ['p1', 'p2', 'p3', 'p4']) purchases.push(p(id, '2026-01-10', '100'));
  purchases.push(p('p1', '2026-04-10', '100'), p('p2', '2026-04-12', '100'));
  // latest half: 6 customers in 2026-07 (3 back in 2026-10), 2 in 2026-11
  for (const id of ['n1', 'n2', 'n3', 'n4', 'n5', 'n6']) purchases.push(p(id, '2026-07-05', '50'));
  purchases.push(p('n1', '2026-10-01', '50'), p('n2', '2026-10-02', '50'), p('n3', '2026-10-03', '50'));
  purchases.push(p('m1', '2026-11-01', '10'), p('m2', '2026-11-02', '10'));
  const r = analyseCohorts(purchases, '2026-12-10');

  it('Given 4 customers in the prior half and 8 in the latest, Then newCustomers is 8 with a +100% rate delta', () => {
    expect(r.kpis.newCustomers).toEqual({ value: 8, delta: 1, deltaKind: 'rate' });
  });

  it('Given 3 of 8 repeat buyers against 2 of 4, Then repeatOrderRate is 0.375 with a -0.125 point change (pct)', () => {
    expect(r.kpis.repeatOrderRate).toEqual({ value: 0.375, delta: -0.125, deltaKind: 'pct' });
  });

  it('Given revenue 470 over 8 customers against 600 over 4, Then avgRevenuePerCustomer 58.75 with a relative change of -0.6083', () => {
    expect(r.kpis.avgRevenuePerCustomer).toEqual({ value: 58.75, delta: -0.6083, deltaKind: 'rate' });
  });

  it('Given M3 retention 3/6 (July; November has no M3 yet) against 2/4, Then retention90d 0.5 with delta 0', () => {
    expect(r.kpis.retention90d).toEqual({ value: 0.5, delta: 0, deltaKind: 'pct' });
  });

  it('Given two cohorts of equal M3 retention, Then topCohorts ranks the larger first and leaves out cohorts without an elapsed M3', () => {
    expect(r.topCohorts).toEqual([
      { acquisitionMonth: '2026-07', cohortSize: 6, retention3: 0.5 },
      { acquisitionMonth: '2026-01', cohortSize: 4, retention3: 0.5 },
    ]);
  });

  it('Given new customers up 100%, Then a trend note for the agent', () => {
    expect(cohortNotes(r.kpis)).toEqual([
      { kind: 'trend', window: 'this_quarter', severity: 'info', text: 'New customers in the last 6 months are up 100% on the 6 months before (8).' },
    ]);
  });
});

describe('summary building blocks (spec 2.8)', () => {
  it('Given paid days across a window, Then every month of the window is present (zero-filled) with the days added to their month', () => {
    const b = monthBuckets({ from: '2026-07-15', to: '2026-10-02' }, [
      { date: '2026-07-31', count: 1, amount: '10.5' },
      { date: '2026-08-01', count: 2, amount: '20' },
      { date: '2026-08-31', count: 1, amount: '0.5' },
      { date: '2026-10-02', count: 1, amount: '1' },
    ]);
    expect(b).toEqual([
      { month: '2026-07', count: 1, amount: '10.5' },
      { month: '2026-08', count: 3, amount: '20.5' },
      { month: '2026-09', count: 0, amount: '0' },
      { month: '2026-10', count: 1, amount: '1' },
    ]);
  });

  it('Given statuses, Then every ledger status is a key, zero-filled', () => {
    expect(statusBuckets([{ status: 'PAID', count: 2, amount: '5' }, { status: 'PAID', count: 1, amount: '1.5' }])).toEqual({
      DRAFT: { count: 0, amount: '0' },
      SUBMITTED: { count: 0, amount: '0' },
      AUTHORISED: { count: 0, amount: '0' },
      PAID: { count: 3, amount: '6.5' },
      VOIDED: { count: 0, amount: '0' },
      DELETED: { count: 0, amount: '0' },
    });
  });

  it('Given a sensitive contact and a key without READ_SENSITIVE, Then its row is renamed, its id blanked, its count and amount kept, and counted', () => {
    const entries = [
      { contactId: 'a', name: 'Acme', isSensitive: false, count: 2, amount: '10' },
      { contactId: 's', name: 'Secret', isSensitive: true, count: 3, amount: '99.5' },
    ];
    expect(maskTopContacts(entries, true)).toEqual({
      rows: [
        { contactId: 'a', name: 'Acme', count: 2, amount: '10' },
        { contactId: '', name: 'Sensitive contact', count: 3, amount: '99.5' },
      ],
      redacted: 1,
    });
    expect(maskTopContacts(entries, false).redacted).toBe(0);
    expect(maskTopContacts(entries, false).rows[1]).toEqual({ contactId: 's', name: 'Secret', count: 3, amount: '99.5' });
  });

  it('Given three months of sales 30,000 and cost of sales 18,000, Then gross profit 12,000 at 0.4; no cost lines gives a null margin', () => {
    const w = { from: '2026-08-01', to: '2026-10-31' };
    const months = [
      { month: '2026-08', revenue: '10000', costOfSales: '6000', costLines: 3 },
      { month: '2026-09', revenue: '10000', costOfSales: '6000', costLines: 3 },
      { month: '2026-10', revenue: '10000', costOfSales: '6000', costLines: 3 },
    ];
    expect(grossProfitReading(w, months)).toEqual({ window: w, revenue: '30000', costOfSales: '18000', amount: '12000', marginPercent: 0.4 });
    expect(grossProfitReading(w, months.map((m) => ({ ...m, costOfSales: '0', costLines: 0 }))).marginPercent).toBeNull();
  });
});

describe('organisation analysis (ContactsSummaryResponse byType, abcDistribution, topByRevenue, topBySpend)', () => {
  const inv = (contactId: string, date: string, total: string, ledgerStatus = 'PAID'): SalesInvoice => ({
    contactId,
    ledgerStatus,
    status: ledgerStatus === 'PAID' ? 'ACTUAL' : 'FORECAST',
    date,
    dueDate: date,
    paidDate: ledgerStatus === 'PAID' ? date : null,
    total,
    subTotal: total,
  });
  const input: AnalyticsInput = {
    today: '2026-11-23',
    baseCurrency: 'AUD',
    grossMarginOverride: '0.5',
    contacts: [
      { id: 'big', isCustomer: true, isSupplier: false },
      { id: 'small', isCustomer: true, isSupplier: true },
      { id: 'new', isCustomer: true, isSupplier: false },
      { id: 'sup', isCustomer: false, isSupplier: true },
      { id: 'nobody', isCustomer: false, isSupplier: false },
    ],
    invoices: [
      ...Array.from({ length: 12 }, (_, k) => inv('big', addDays('2025-12-01', 30 * k), '1000')),
      inv('small', '2026-10-01', '200'),
      inv('new', '2026-11-20', '500', 'AUTHORISED'),
    ],
    creditNotes: [{ contactId: 'small', ledgerType: 'ACCRECCREDIT', ledgerStatus: 'AUTHORISED', currency: 'AUD', remainingCredit: '15' }],
    supplierBills: [
      { contactId: 'sup', spendAllTime: '800', billGross: '900', bills: 3 },
      { contactId: 'small', spendAllTime: '50', billGross: '50', bills: 1 },
    ],
    marginMonths: [],
  };
  const r = analyseOrganisation(input);
  const byId = new Map(r.contacts.map((c) => [c.contactId, c]));

  it('Given five contacts, Then byType partitions them and abcDistribution counts customers (one without realised revenue is unclassified)', () => {
    expect(r.contactsSummary.byType).toEqual({ customer: 2, supplier: 1, both: 1, neither: 1 });
    expect(r.contactsSummary.abcDistribution).toEqual({ A: 1, B: 0, C: 1, unclassified: 1 });
    expect(byId.get('big')!.abcClass).toBe('A');
    expect(byId.get('small')!.abcClass).toBe('C'); // 12,000 of 12,200 before it: 98%
    expect(byId.get('sup')!.abcClass).toBeNull();
  });

  it('Given the 0.5 override, Then ltv = revenueAllTime x 0.5 and topByRevenue ranks by it; topBySpend by bill gross', () => {
    expect(byId.get('big')!).toMatchObject({ revenueAllTime: '12000', ltv: '6000', historicalLtv: '6000', cadence: 'MONTHLY', churnState: 'Active', grossMarginPercent: 0.5 });
    expect(r.contactsSummary.topByRevenueBasis).toBe('ltv');
    expect(r.contactsSummary.topByRevenue).toEqual([
      { contactId: 'big', count: 12, amount: '6000' },
      { contactId: 'small', count: 1, amount: '100' },
    ]);
    expect(r.contactsSummary.topBySpend).toEqual([
      { contactId: 'sup', count: 3, amount: '900' },
      { contactId: 'small', count: 1, amount: '50' },
    ]);
    expect(byId.get('small')!.availableCredit).toBe('15');
    expect(byId.get('sup')!).toMatchObject({ ltv: null, cadence: null, spendAllTime: '800', projectedLtv: null });
  });

  it('Given one engaged (MONTHLY) customer of 330 days, Then expectedLifetimeYears is clamped up to 1 and projectedLtv = 12,000 x 0.5 x 1', () => {
    expect(r.expectedLifetimeYears).toBe(1);
    expect(byId.get('big')!.projectedLtv).toBe('6000');
  });

  it('Given no override and no cost history, Then margins and lifetime values are null and topByRevenue falls back to realised revenue', () => {
    const r2 = analyseOrganisation({ ...input, grossMarginOverride: null });
    expect(r2.grossMarginPercent).toBeNull();
    expect(r2.contacts.every((c) => c.ltv === null && c.projectedLtv === null)).toBe(true);
    expect(r2.contactsSummary.topByRevenueBasis).toBe('revenue');
    expect(r2.contactsSummary.topByRevenue[0]).toEqual({ contactId: 'big', count: 12, amount: '12000' });
  });

  it('property: the summary is independent of the order of the input rows', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([...input.invoices], { minLength: input.invoices.length }), (shuffled) => {
        const again = analyseOrganisation({ ...input, invoices: shuffled });
        expect(again.contactsSummary).toEqual(r.contactsSummary);
        expect(again.cohorts).toEqual(r.cohorts);
      }),
      { numRuns: 30 },
    );
    expect(new D(byId.get('big')!.revenueTrailing12m).eq(12000)).toBe(true);
  });
});
