/**
 * The engine's history (issue 9, "Speed: forecast recompute <= 2 s"; docs/forecast.md#history):
 * the summary the behaviour models learn from, read from the store as narrow
 * rows (loadHistory) instead of one document object each, must be exactly
 * what the documents themselves summarise to (summariseHistory over
 * loadLedgerItems), and the forecast from it exactly the forecast from the
 * documents - on both backends, at several dates, with the edge cases the
 * rules name (same-day documents, ties broken by id, foreign currencies,
 * voided and undated documents, purchase-order candidates).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { createOrg } from '../src/store/tenancy.js';
import * as s from '../src/store/schema.js';
import { insertSynthetic, syntheticLedger } from '../src/backtest/synthetic.js';
import { addDays } from '../src/domain/calendar.js';
import { loadForecastInput } from '../src/store/queries/forecast-input.js';
import { loadAccounts, orgMeta } from '../src/store/queries/organisation.js';
import { loadHistory, loadLedgerItems, loadOpenItems } from '../src/store/queries/forecast-items.js';
import { countsMedian, countsQuantiles, RECENT, summariseHistory } from '../src/domain/forecast/history.js';
import type { Counts } from '../src/domain/forecast/types.js';
import { median } from '../src/domain/forecast/behaviour.js';
import { prepareForecast } from '../src/domain/forecast/engine.js';
import { DEFAULT_SCENARIO_ADJUSTMENTS, projectForecast } from '../src/domain/forecast/project.js';
import type { LedgerItem } from '../src/domain/forecast/types.js';

const expand = (c: Counts) => [...c].flatMap(([v, n]) => Array<number>(n).fill(v));

describe('counts (the organisation-wide delays and terms)', () => {
  it('countsMedian is behaviour.ts median of the expanded values; countsQuantiles the value at rank floor(q n) of 0.1, 0.3, 0.5, 0.7, 0.9', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: -60, max: 400 }), fc.integer({ min: 1, max: 5 })), { maxLength: 40 }), (pairs) => {
        const c: Counts = new Map();
        for (const [v, n] of pairs) c.set(v, (c.get(v) ?? 0) + n);
        const values = expand(c);
        expect(countsMedian(c)).toBe(median(values));
        const sorted = [...values].sort((a, b) => a - b);
        const want = values.length ? [0.1, 0.3, 0.5, 0.7, 0.9].map((q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]) : [0, 0, 0, 0, 0];
        expect(countsQuantiles(c)).toEqual(want);
      }),
    );
  });
});

describe('summariseHistory (pure)', () => {
  const doc = (o: Partial<LedgerItem> & { id: string }): LedgerItem => ({
    kind: 'AR', contactId: 'c1', status: 'PAID', issueDate: null, dueDate: null, paidDate: null, total: '0', amountDue: '0',
    number: null, reference: null, accountId: null, ...o,
  });

  it('keeps each contact latest RECENT delays by paid date then id, oldest first, whatever order the documents come in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: -5, max: 30 })), { minLength: 1, maxLength: 40 }),
        (specs) => {
          // Documents issued on day 100 + issue offset, due 14 days later, paid `delay` days after.
          const items = specs.map(([k, n, delay], i) => {
            const due = addDays('2026-01-01', k);
            return doc({ id: `inv-${n}-${i}`, issueDate: addDays(due, -14), dueDate: due, paidDate: addDays(due, delay), total: '10' });
          });
          const h = summariseHistory(items, '2026-12-31');
          const want = items
            .map((it, i) => ({ paid: it.paidDate!, id: it.id, delay: specs[i]![2] }))
            .sort((a, b) => (a.paid < b.paid ? -1 : a.paid > b.paid ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
            .slice(-RECENT)
            .map((r) => r.delay);
          expect(h.customerDelays.get('c1')).toEqual(want);
        },
      ),
    );
  });

  it('sums same-day documents exactly (beyond the cent), leaves a lone document its own text, and reads nothing voided, undated, or paid today', () => {
    const items = [
      doc({ id: 'a', issueDate: '2026-03-02', dueDate: '2026-03-16', status: 'AUTHORISED', total: '0.005' }),
      doc({ id: 'b', issueDate: '2026-03-02', dueDate: '2026-03-16', status: 'PAID', paidDate: '2026-03-20', total: '0.005' }),
      doc({ id: 'c', issueDate: '2026-04-01', dueDate: '2026-04-15', status: 'PAID', paidDate: '2026-06-30', total: '100.50' }),
      doc({ id: 'v', issueDate: '2026-04-01', status: 'VOIDED', total: '999' }),
      doc({ id: 'u', status: 'AUTHORISED', total: '5' }),
      doc({ id: 'p', kind: 'AP', contactId: 's1', issueDate: '2026-05-01', dueDate: '2026-05-31', status: 'PAID', paidDate: '2026-06-02', total: '40' }),
    ];
    const h = summariseHistory(items, '2026-06-30');
    expect(h.orders.get('c1')).toEqual({ days: [20514, 20544], totals: ['0.01', '100.50'], accountId: null });
    expect(h.monthlyRevenue).toEqual(new Map([[2026 * 12 + 2, '0.01'], [2026 * 12 + 3, '100.5']]));
    // c is paid today (30 June): not yet a delay, not a receipt; b is.
    expect(expand(h.arDelays)).toEqual([4]);
    expect(h.receiptsLast28).toBe('0');
    expect(h.bills.get('s1')!.totals).toEqual(['40']);
    expect(expand(h.billDelays)).toEqual([2]);
    expect(expand(h.orgArTerms)).toEqual([14, 14, 14]);
  });
});

describe.each(BACKENDS)('the history read from the store on %s', (kind) => {
  let store: TestStore;
  let orgId: string;
  const NOW = new Date('2026-11-22T14:00:00Z');
  beforeAll(async () => {
    store = await freshStore(kind);
    orgId = (await createOrg(store.db, { name: 'History Co', now: NOW, timezone: 'Australia/Sydney' })).orgId;
    const ledger = syntheticLedger(orgId, { seed: 11, asOf: '2026-11-22', customers: 30, years: 3.5 });
    await insertSynthetic(store.db, ledger);
    const customer = ledger.contacts.find((c) => c.isCustomer)!.id;
    await store.db.insert(s.contacts).values({ orgId, id: 'tie-co', name: 'Tie Co', isCustomer: true, isSupplier: false, lastSyncedAt: NOW });
    const supplier = ledger.contacts.find((c) => c.name === 'Stock Supplier 1')!.id;
    const item = (id: string, o: Partial<typeof s.cashItems.$inferInsert>) => ({
      orgId, id, source: 'LEDGER_INVOICE', ledgerType: 'ACCREC', contactId: customer, ledgerStatus: 'PAID', status: 'ACTUAL',
      currency: 'AUD', sortDate: o.issueDate ?? o.dueDate ?? '2026-01-01', subTotal: '0', totalTax: '0', total: '0', amountDue: '0',
      amountPaid: '0', amountCredited: '0', lastSyncedAt: NOW, ...o,
    });
    await store.db.insert(s.cashItems).values([
      // Same day, same customer, one in USD (rate 0.65), sub-cent totals; paid on the same day, ids deciding the order.
      item('tie-b', { contactId: 'tie-co', issueDate: '2026-10-01', dueDate: '2026-10-15', paidDate: '2026-10-20', total: '10.005' }),
      item('tie-a', { contactId: 'tie-co', issueDate: '2026-10-01', dueDate: '2026-10-15', paidDate: '2026-10-20', total: '65', currency: 'USD', currencyRate: '0.65' }),
      item('tie-C', { contactId: 'tie-co', issueDate: '2026-10-01', dueDate: '2026-10-16', paidDate: '2026-10-20', total: '1' }),
      // An id holding the packing's separators, a character beyond the BMP and a line break (loadHistory packs documents into text).
      item('9:odd;id,\u{1F600}\n:P1,2,3;', { contactId: 'tie-co', issueDate: '2026-10-02', dueDate: '2026-10-16', paidDate: '2026-10-21', total: '-4.25' }),
      // A document with no contact (org-wide counts only) and one dated before 1970 (a negative day).
      item('no-contact', { contactId: null, issueDate: '2026-09-01', dueDate: '2026-09-15', paidDate: '2026-09-30', total: '12' }),
      item('pre-1970', { issueDate: '1969-12-01', dueDate: '1969-12-31', ledgerStatus: 'AUTHORISED', total: '8', amountDue: '8' }),
      // Voided, undated-but-open, future-dated draft, and one older than the history.
      item('void-1', { issueDate: '2026-09-01', dueDate: '2026-09-15', ledgerStatus: 'VOIDED', total: '500' }),
      item('nodate-1', { issueDate: null, dueDate: null, sortDate: '2026-11-01', ledgerStatus: 'AUTHORISED', total: '7', amountDue: '7' }),
      item('draft-future', { issueDate: '2026-12-05', dueDate: '2026-12-19', ledgerStatus: 'DRAFT', total: '70', amountDue: '70' }),
      item('ancient', { issueDate: '2021-01-04', dueDate: '2021-01-18', paidDate: '2021-01-20', total: '3' }),
      // Bills naming an order's number (in another case, padded) and a bill of an ordering supplier near the order.
      item('bill-ref', { source: 'LEDGER_BILL', ledgerType: 'ACCPAY', contactId: supplier, issueDate: '2026-06-01', dueDate: '2026-07-01', paidDate: '2026-07-01', total: '300', reference: '  po-h1 ' }),
      item('bill-near', { source: 'LEDGER_BILL', ledgerType: 'ACCPAY', contactId: supplier, issueDate: '2026-11-12', dueDate: '2026-12-12', ledgerStatus: 'PAID', paidDate: '2026-11-20', total: '812.40' }),
    ]);
    await store.db.insert(s.purchaseOrders).values([
      { orgId, id: 'po-h1', number: 'PO-H1', reference: '', contactId: supplier, status: 'BILLED', currency: 'AUD', issueDate: '2026-05-20', sortDate: '2026-05-20', subTotal: '300', totalTax: '0', total: '300', lastSyncedAt: NOW },
      { orgId, id: 'po-h2', number: 'PO-H2', reference: 'Stock', contactId: supplier, status: 'AUTHORISED', currency: 'AUD', issueDate: '2026-11-10', sortDate: '2026-11-10', subTotal: '812.40', totalTax: '0', total: '812.40', lastSyncedAt: NOW },
    ]);
  });
  afterAll(async () => {
    await store?.close();
  });

  for (const asOf of ['2026-11-23', '2026-10-20', '2025-06-30']) {
    it(`as of ${asOf}: loadHistory equals summariseHistory of the documents, and the open items are the documents' open ones plus their purchase-order candidates`, async () => {
      const { idByCode } = await loadAccounts(store.db, orgId);
      const docs = await loadLedgerItems(store.db, orgId, asOf, idByCode);
      const history = await loadHistory(store.db, orgId, asOf, idByCode);
      expect(history).toEqual(summariseHistory(docs, asOf));
      expect(history.orders.size).toBeGreaterThan(10);
      if (asOf === '2026-11-23') expect(history.customerDelays.get('tie-co')).toEqual([4, 5, 5, 5]); // tie-C, tie-a, tie-b by id ("C" < "a"), then the odd id
      expect([...history.orders.values()].some((o) => o.accountId !== null)).toBe(true);

      const open = await loadOpenItems(store.db, orgId, asOf, idByCode);
      const openIds = new Set(open.map((i) => i.id));
      const docsOpen = docs.filter((d) => ['AUTHORISED', 'DRAFT', 'SUBMITTED'].includes(d.status));
      expect(open.filter((i) => ['AUTHORISED', 'DRAFT', 'SUBMITTED'].includes(i.status)).map((i) => i.id).sort()).toEqual(docsOpen.map((d) => d.id).sort());
      for (const d of docsOpen) expect(open.find((i) => i.id === d.id)).toEqual(d);
      if (asOf === '2026-11-23') {
        expect(openIds.has('bill-ref')).toBe(true);
        expect(openIds.has('bill-near')).toBe(true);
      }
    });
  }

  it('the forecast from the store (history + open items) equals the forecast from every document, in every default scenario', async () => {
    const org = (await orgMeta(store.db, orgId))!;
    const input = await loadForecastInput(store.db, org, '2026-11-23');
    expect(input.history).toBeDefined();
    const { idByCode } = await loadAccounts(store.db, orgId);
    const fromDocs = { ...input, items: await loadLedgerItems(store.db, orgId, '2026-11-23', idByCode), history: undefined };
    expect(fromDocs.items.length).toBeGreaterThan(input.items.length);
    const a = prepareForecast(input);
    const b = prepareForecast(fromDocs);
    expect(a.poReasons).toEqual(b.poReasons);
    expect([...a.poReasons.values()].filter(Boolean).length).toBeGreaterThan(0);
    for (const k of ['BASE', 'BEST', 'WORST'] as const) {
      const sc = { id: k, name: k, kind: k, adjustments: DEFAULT_SCENARIO_ADJUSTMENTS[k] };
      expect(projectForecast(a, sc, NOW)).toEqual(projectForecast(b, sc, NOW));
    }
  });
});
