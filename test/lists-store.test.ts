/**
 * The ledger list and drill queries, directly against the store, on PGlite and
 * PostgreSQL. Each test names the rule of agent-read-api.md (spec) or
 * decisions.md it proves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { seedBulk, seedLedger } from './lists-fixture.js';
import { itemAggregate, itemWhere, listItems } from '../src/store/queries/cash-items.js';
import { countOf, totalsOf } from '../src/store/queries/paging.js';
import { rows } from '../src/store/db.js';
import { LEDGER_STATUS_VALUES } from '../src/domain/list-params.js';
import { getCreditNote, listCreditNotes } from '../src/store/queries/credit-notes.js';
import { getPurchaseOrder, listPurchaseOrders } from '../src/store/queries/purchase-orders.js';
import { getContact, listContacts } from '../src/store/queries/contacts.js';
import { listBankAccounts } from '../src/store/queries/bank.js';
import { accountBalances } from '../src/store/queries/account-balances.js';
import { AUTO_PAGINATE_CAP, type ItemFilters, TOTALS_CAP } from '../src/domain/list-params.js';
import type { CursorPosition } from '../src/domain/cursor.js';
import { isCanonical } from '../src/domain/money.js';
import {
  AccountBalancesResponse,
  BankAccountsResponse,
  BillsResponse,
  ContactDrillResponse,
  ContactsListResponse,
  CreditNoteDrillResponse,
  CreditNotesResponse,
  InvoicesResponse,
  PurchaseOrderDrillResponse,
  PurchaseOrdersResponse,
} from '../src/schemas/ledger.js';

const NO_FILTER: ItemFilters = { statuses: [] };

const page = (over: Partial<Parameters<typeof listItems>[1]> = {}) => ({
  orgId: 'o1',
  kind: 'invoices' as const,
  filters: NO_FILTER,
  after: null,
  limit: 200,
  lines: false,
  gate: false,
  totals: false,
  ...over,
});

/** Every string that looks like an amount under these keys must be canonical. */
function moneyStrings(v: unknown, keys: Set<string>, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => moneyStrings(x, keys, out));
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (keys.has(k) && typeof x === 'string') out.push(x);
      else moneyStrings(x, keys, out);
    }
  return out;
}

describe.each(BACKENDS)('ledger lists on %s', (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await freshStore(kind);
    await seedLedger(store.db);
    await seedBulk(store.db, 'big', 2600, 2200);
  });
  afterAll(async () => {
    await store?.close();
  });

  // ---------------------------------------------------------------- invoices

  it('spec 4.3: invoices are LEDGER_INVOICE items in sort-date desc, id desc order; credit notes never appear among invoices or bills', async () => {
    const r = await listItems(store.db, page());
    expect(r.items.map((i) => i.id)).toEqual(['inv-6', 'inv-4', 'inv-3', 'inv-2', 'inv-1', 'inv-5', 'inv-7']);
    const bills = await listItems(store.db, page({ kind: 'bills' }));
    expect(bills.items.map((i) => i.id)).toEqual(['bill-3', 'bill-2', 'bill-1', 'bill-4']);
    for (const i of [...r.items, ...bills.items]) expect(i.invoiceNumber).not.toMatch(/^CN-/);
    expect(r.totalCount).toBe(7);
    expect(r.next).toBeNull();
  });

  it('spec 2.4: Invoice fields: amount is the gross total, expectedDate the due date, actualDate the paid date, contactName, currency; every query filters by org_id', async () => {
    const r = await listItems(store.db, page());
    const inv1 = r.items.find((i) => i.id === 'inv-1')!;
    expect(inv1).toEqual({
      id: 'inv-1',
      externalId: 'inv-1',
      invoiceNumber: 'INV-0001',
      reference: 'Jan work',
      amount: '100.5',
      currency: 'AUD',
      expectedDate: '2026-02-10T00:00:00.000Z',
      actualDate: null,
      issueDate: '2026-01-10T00:00:00.000Z',
      status: 'FORECAST',
      ledgerStatus: 'AUTHORISED',
      contactId: 'cust-a',
      contactName: 'Acme Pty Ltd',
      amountPaid: '0',
      amountCredited: '0',
      amountDue: '100.5',
      // The largest line (50.775 on account 400) decides the category.
      category: 'General expenses',
      categorySlug: 'general-expenses',
    });
    const inv3 = r.items.find((i) => i.id === 'inv-3')!;
    expect(inv3.issueDate).toBeNull();
    expect(inv3.expectedDate).toBe('2026-01-31T00:00:00.000Z');
    expect(inv3.actualDate).toBe('2026-02-03T00:00:00.000Z');
    expect(inv3.status).toBe('ACTUAL');
    expect(r.items.some((i) => i.id === 'o2-inv')).toBe(false);
    const o2 = await listItems(store.db, page({ orgId: 'o2' }));
    expect(o2.items.map((i) => i.id)).toEqual(['o2-inv']);
    expect(InvoicesResponse.safeParse({ invoices: r.items, nextCursor: null, totalCount: r.totalCount, redactedItemCount: 0 }).success).toBe(true);
  });

  it('category: the account of the largest line, renamed Sensitive account for a sensitive account without READ_SENSITIVE; null without lines', async () => {
    const open = await listItems(store.db, page());
    const byId = new Map(open.items.map((i) => [i.id, i]));
    // inv-3: 100 on Sales (200) and 200.25 on Owner drawings (310, sensitive).
    expect([byId.get('inv-3')!.category, byId.get('inv-3')!.categorySlug]).toEqual(['Owner drawings', 'owner-drawings']);
    expect([byId.get('inv-7')!.category, byId.get('inv-7')!.categorySlug]).toEqual(['Sales', 'sales']);
    const gated = await listItems(store.db, page({ gate: true }));
    const inv3 = gated.items.find((i) => i.id === 'inv-3')!;
    expect([inv3.category, inv3.categorySlug]).toEqual(['Sensitive account', 'sensitive-account']);
    expect(JSON.stringify(gated.items)).not.toContain('Owner drawings');
    // An item without lines has no category.
    const noLines = open.items.filter((i) => !['inv-1', 'inv-3', 'inv-5', 'inv-7'].includes(i.id));
    expect(noLines.length).toBeGreaterThan(0);
    for (const i of noLines) expect([i.category, i.categorySlug]).toEqual([null, null]);
  });

  it('spec 4.3 status: comma list with OR semantics over ledgerStatus', async () => {
    const r = await listItems(store.db, page({ filters: { statuses: ['DRAFT', 'VOIDED'] } }));
    expect(r.items.map((i) => i.id)).toEqual(['inv-6', 'inv-4']);
    expect(r.totalCount).toBe(2);
  });

  it('spec 4.3 contactId: only that contact\'s items', async () => {
    const r = await listItems(store.db, page({ filters: { statuses: [], contactId: 'both-x' } }));
    expect(r.items.map((i) => i.id)).toEqual(['inv-6']);
    const none = await listItems(store.db, page({ filters: { statuses: [], contactId: 'nobody' } }));
    expect(none.items).toEqual([]);
    expect(none.totalCount).toBe(0);
  });

  it('spec 4.3 dateFrom/dateTo: inclusive on the issue date falling back to the due date; dateTo covers its whole day', async () => {
    const r = await listItems(store.db, page({ filters: { statuses: [], dateFrom: '2026-01-10', dateTo: '2026-01-31' } }));
    // inv-3 has no issue date: its due date 2026-01-31 is used; inv-4 is issued on dateTo itself.
    expect(r.items.map((i) => i.id)).toEqual(['inv-4', 'inv-3', 'inv-2', 'inv-1']);
    const one = await listItems(store.db, page({ filters: { statuses: [], dateFrom: '2026-01-31', dateTo: '2026-01-31' } }));
    expect(one.items.map((i) => i.id)).toEqual(['inv-4', 'inv-3']);
  });

  it('spec 4.3 lines=true: InvoiceLine fields; lineSubtotal = quantity x unitAmount exactly, null when either is unknown', async () => {
    const r = await listItems(store.db, page({ lines: true, filters: { statuses: [], contactId: 'cust-a' } }));
    const inv1 = r.items.find((i) => i.id === 'inv-1')!;
    expect(inv1.lines).toEqual([
      { id: 'l-1-1', lineNumber: 1, accountCode: '200', accountName: 'Sales', lineAmount: '45.225', taxAmount: '4.5', quantity: '2', unitAmount: '25.125',
        discountRate: '0.1', discountAmount: null, lineSubtotal: '50.25', taxType: 'OUTPUT', currency: 'AUD', lineDescription: 'Consulting' },
      { id: 'l-1-2', lineNumber: 2, accountCode: '400', accountName: 'General expenses', lineAmount: '50.775', taxAmount: '0', quantity: null,
        unitAmount: '50.775', discountRate: null, discountAmount: '1.5', lineSubtotal: null, taxType: null, currency: 'AUD', lineDescription: 'Expenses' },
      { id: 'l-1-3', lineNumber: 3, accountCode: null, accountName: '', lineAmount: '0', taxAmount: '0', quantity: '3', unitAmount: null,
        discountRate: null, discountAmount: null, lineSubtotal: null, taxType: null, currency: 'AUD', lineDescription: 'Note' },
    ]);
    expect(r.items.find((i) => i.id === 'inv-7')!.lines![0]!.currency).toBe('USD');
    expect(r.items.find((i) => i.id === 'inv-4')!.lines).toEqual([]);
    const plain = await listItems(store.db, page());
    expect(plain.items.every((i) => i.lines === undefined)).toBe(true);
  });

  it('spec 2.4 InvoiceLine: on bills discountRate, discountAmount and lineSubtotal are always null', async () => {
    const r = await listItems(store.db, page({ kind: 'bills', lines: true }));
    const line = r.items.find((i) => i.id === 'bill-1')!.lines![0]!;
    expect(line).toMatchObject({ quantity: '4', unitAmount: '50', discountRate: null, discountAmount: null, lineSubtotal: null });
    expect(BillsResponse.safeParse({ bills: r.items, nextCursor: null, totalCount: r.totalCount, redactedItemCount: 0 }).success).toBe(true);
  });

  it('spec 4.3 rule 3 / 5.4: without READ_SENSITIVE, items of sensitive contacts are dropped; totalCount counts before gating; redactedItemCount is exact', async () => {
    const r = await listItems(store.db, page({ gate: true }));
    expect(r.items.map((i) => i.id)).toEqual(['inv-6', 'inv-4', 'inv-3', 'inv-1', 'inv-5', 'inv-7']);
    expect(r.totalCount).toBe(7);
    expect(r.redactedItemCount).toBe(1);
    const bills = await listItems(store.db, page({ kind: 'bills', gate: true }));
    expect(bills.items.map((i) => i.id)).toEqual(['bill-3', 'bill-1', 'bill-4']);
    expect(bills.redactedItemCount).toBe(1);
  });

  it('spec 4.3 rule 3: with lines=true, items having a line on a sensitive account code are dropped too (only then)', async () => {
    const r = await listItems(store.db, page({ gate: true, lines: true }));
    // inv-2 (sensitive contact), inv-3 and inv-5 (a line on account 310) are withheld.
    expect(r.items.map((i) => i.id)).toEqual(['inv-6', 'inv-4', 'inv-1', 'inv-7']);
    expect(r.redactedItemCount).toBe(3);
    expect(r.totalCount).toBe(7);
  });

  it('spec 5.4: with READ_SENSITIVE nothing is withheld and redactedItemCount is 0', async () => {
    const r = await listItems(store.db, page({ gate: false, lines: true }));
    expect(r.items).toHaveLength(7);
    expect(r.redactedItemCount).toBe(0);
    expect(r.items.find((i) => i.id === 'inv-2')!.contactName).toBe('Secret Client');
  });

  it('spec 4.3 rule 3: a gated page still holds `limit` visible rows; redactedItemCount counts the withheld rows of the stretch the page covers', async () => {
    const p1 = await listItems(store.db, page({ gate: true, limit: 3 }));
    expect(p1.items.map((i) => i.id)).toEqual(['inv-6', 'inv-4', 'inv-3']);
    expect(p1.redactedItemCount).toBe(0);
    expect(p1.next).toEqual(['2026-01-31', 'inv-3']);
    const p2 = await listItems(store.db, page({ gate: true, limit: 3, after: p1.next }));
    // inv-2 (sensitive) lies between inv-3 and inv-1: counted on this page.
    expect(p2.items.map((i) => i.id)).toEqual(['inv-1', 'inv-5', 'inv-7']);
    expect(p2.redactedItemCount).toBe(1);
    expect(p2.next).toBeNull();
    expect(p1.items.length + p2.items.length + p1.redactedItemCount + p2.redactedItemCount).toBe(p1.totalCount);
  });

  // ------------------------------------------------------------------ totals

  it('spec 2.4 InvoiceBillTotals: single-currency set has every status key zero-filled, grandTotal and currency, in exact decimals', async () => {
    const r = await listItems(store.db, page({ totals: true, filters: { statuses: ['AUTHORISED', 'PAID', 'DRAFT'], dateFrom: '2026-01-01' } }));
    expect(r.totals).toEqual({
      byStatus: {
        DRAFT: { count: 1, amount: '10' },
        SUBMITTED: { count: 0, amount: '0' },
        AUTHORISED: { count: 2, amount: '155.5' },
        PAID: { count: 2, amount: '2300.25' },
        VOIDED: { count: 0, amount: '0' },
        DELETED: { count: 0, amount: '0' },
      },
      grandTotal: { count: 5, amount: '2465.75' },
      currency: 'AUD',
    });
  });

  it('spec 5.4 / 2.4: totals are computed over the whole filtered set, never from the page, and are never masked', async () => {
    const r = await listItems(store.db, page({ totals: true, gate: true, limit: 1, filters: { statuses: ['PAID'], dateFrom: '2026-01-01' } }));
    expect(r.items).toHaveLength(1);
    expect(r.totals!.byStatus!.PAID).toEqual({ count: 2, amount: '2300.25' });
  });

  it('spec 2.4 InvoiceBillTotals: several currencies give mixedCurrency, primaryCurrency (lexicographically first) and byStatus null', async () => {
    const r = await listItems(store.db, page({ totals: true }));
    expect(r.totals).toMatchObject({ mixedCurrency: true, primaryCurrency: 'AUD', byStatus: null });
    expect(r.totals!.currency).toBeUndefined();
    // grandTotal in the primary currency only (decisions: amounts of different currencies are never added).
    expect(r.totals!.grandTotal).toEqual({ count: 6, amount: '2542.75' });
    // Totals per currency, each in its own; and one base-currency total, each document converted with its own rate, labelled.
    expect(r.totals!.byCurrency).toEqual({ AUD: { count: 6, amount: '2542.75' }, USD: { count: 1, amount: '40' } });
    // inv-7: USD 40 at 0.5 USD per AUD = AUD 80.
    expect(r.totals!.convertedTotal).toEqual({ currency: 'AUD', count: 7, amount: '2622.75', converted: true, unconvertedCount: 0 });
    expect(InvoicesResponse.safeParse({ invoices: [], nextCursor: null, totalCount: 7, redactedItemCount: 0, totals: r.totals }).success).toBe(true);
    // A foreign document without a rate cannot be converted: it is left out, and counted as such (never silently).
    await store.db.execute(sql`update cash_items set currency_rate = null where org_id = 'o1' and id = 'inv-7'`);
    try {
      const q = await listItems(store.db, page({ totals: true }));
      expect(q.totals!.convertedTotal).toEqual({ currency: 'AUD', count: 6, amount: '2542.75', converted: true, unconvertedCount: 1 });
    } finally {
      await store.db.execute(sql`update cash_items set currency_rate = '0.5' where org_id = 'o1' and id = 'inv-7'`);
    }
  });

  it('spec 2.4 InvoiceBillTotals: the empty set has all-zero buckets and grandTotal count 0 amount 0', async () => {
    const r = await listItems(store.db, page({ totals: true, filters: { statuses: [], contactId: 'nobody' } }));
    expect(r.totals).toEqual({
      byStatus: Object.fromEntries(['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'].map((s) => [s, { count: 0, amount: '0' }])),
      grandTotal: { count: 0, amount: '0' },
    });
  });

  it('spec 4.3 / 8 totals cap: above the cap totals is omitted and totalsTruncated is true; the real cap is 100,000', async () => {
    expect(TOTALS_CAP).toBe(100_000);
    const over = await listItems(store.db, page({ totals: true, totalsCap: 6 }));
    expect(over.totals).toBeUndefined();
    expect(over.totalsTruncated).toBe(true);
    expect(over.totalCount).toBe(7);
    const at = await listItems(store.db, page({ totals: true, totalsCap: 7 }));
    expect(at.totals).toBeDefined();
    expect(at.totalsTruncated).toBeUndefined();
    const off = await listItems(store.db, page());
    expect(off.totals).toBeUndefined();
    expect(off.totalsTruncated).toBeUndefined();
  });

  // ------------------------------------------------------------------ paging

  it('decisions: keyset paging to the end yields exactly the full set, no duplicates or gaps, with 2,200 rows sharing one date (gated and not)', async () => {
    const all = await listItems(store.db, page({ orgId: 'big', limit: AUTO_PAGINATE_CAP }));
    expect(all.items).toHaveLength(2600);
    expect(all.next).toBeNull();
    for (const gate of [false, true]) {
      for (const lines of gate ? [false, true] : [false]) {
        const auto = await listItems(store.db, page({ orgId: 'big', limit: AUTO_PAGINATE_CAP, gate, lines }));
        const seen: string[] = [];
        let redacted = 0;
        let after: CursorPosition | null = null;
        let pages = 0;
        do {
          const p = await listItems(store.db, page({ orgId: 'big', limit: 200, gate, lines, after }));
          if (p.next) expect(p.items).toHaveLength(200);
          seen.push(...p.items.map((i) => i.id));
          redacted += p.redactedItemCount;
          expect(p.totalCount).toBe(2600);
          after = p.next;
          pages++;
        } while (after);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual(auto.items.map((i) => i.id));
        expect(redacted).toBe(auto.redactedItemCount);
        expect(seen.length + redacted).toBe(2600);
        if (gate) expect(redacted).toBeGreaterThan(100);
        expect(pages).toBe(Math.ceil(seen.length / 200));
      }
    }
    // The total order: sort date desc, then id desc.
    const ids = all.items.map((i) => i.id);
    const sameDay = ids.slice(0, 2200);
    expect(sameDay).toEqual([...sameDay].sort().reverse());
  });

  it('decisions: keyset paging with a status filter (keys picked on the index first) matches the rows in SQL order exactly', async () => {
    const expected = (
      await rows<{ id: string }>(
        store.db,
        sql`select id from cash_items where org_id = 'big' and source = 'LEDGER_INVOICE' and ledger_status = 'PAID' order by sort_date desc, id desc`,
      )
    ).map((r) => r.id);
    for (const gate of [false, true]) {
      const seen: string[] = [];
      let redacted = 0;
      let after: CursorPosition | null = null;
      do {
        const p = await listItems(store.db, page({ orgId: 'big', limit: 150, gate, after, filters: { statuses: ['PAID'] } }));
        seen.push(...p.items.map((i) => i.id));
        redacted += p.redactedItemCount;
        expect(p.totalCount).toBe(expected.length);
        after = p.next;
      } while (after);
      expect(seen.length + redacted).toBe(expected.length);
      expect(seen).toEqual(gate ? expected.filter((id) => seen.includes(id)) : expected);
      if (gate) expect(redacted).toBeGreaterThan(0);
    }
  });

  it('spec 4.3 autoPaginate: at most 5,000 rows; the caller learns of overflow (next is set, the route turns it into truncated)', async () => {
    const r = await listItems(store.db, page({ orgId: 'big', limit: 2000 }));
    expect(r.items).toHaveLength(2000);
    expect(r.next).not.toBeNull();
    expect(AUTO_PAGINATE_CAP).toBe(5000);
  });

  it('spec 4.3 rule 3: a long run of withheld rows (600 in a row) is walked in growing chunks; pages stay full and redaction exact', async () => {
    await store.db.execute(sql`insert into organisations (id, name, slug) values ('runs', 'Runs', 'runs')`);
    await store.db.execute(sql`insert into contacts (org_id, id, name, is_customer, is_sensitive, last_synced_at)
      values ('runs', 'open', 'Open', true, false, now()), ('runs', 'hid', 'Hidden', true, true, now())`);
    // ids r0001..r0635 on one date: the highest 5 and the lowest 30 visible, the 600 between them withheld.
    await store.db.execute(sql`insert into cash_items (org_id, id, source, ledger_type, contact_id, ledger_status, status, currency,
        issue_date, sort_date, sub_total, total_tax, total, amount_due, amount_paid, amount_credited, last_synced_at)
      select 'runs', 'r' || lpad(g::text, 4, '0'), 'LEDGER_INVOICE', 'ACCREC', case when g between 31 and 630 then 'hid' else 'open' end,
        'AUTHORISED', 'FORECAST', 'AUD', '2026-01-01', '2026-01-01', 1, 0, 1, 1, 0, 0, now()
      from generate_series(1, 635) g`);
    const walk: { n: number; redacted: number }[] = [];
    let after: CursorPosition | null = null;
    do {
      const p = await listItems(store.db, page({ orgId: 'runs', gate: true, limit: 10, after }));
      walk.push({ n: p.items.length, redacted: p.redactedItemCount });
      after = p.next;
    } while (after);
    // 5 visible, then the run of 600 (counted on the page that returns the next visible rows), then 30.
    expect(walk).toEqual([
      { n: 10, redacted: 600 },
      { n: 10, redacted: 0 },
      { n: 10, redacted: 0 },
      { n: 5, redacted: 0 },
    ]);
    const tail = await listItems(store.db, page({ orgId: 'runs', gate: true, limit: 5 }));
    // 30 visible rows remain after the run, so the run belongs to the next page's stretch.
    expect(tail).toMatchObject({ redactedItemCount: 0 });
    expect(tail.next).not.toBeNull();
  });

  it('spec 4.3 totals / rule 2: the count summary stays exact through inserts, upserts, updates of status, date and currency, and deletes', async () => {
    await store.db.execute(sql`insert into organisations (id, name, slug) values ('mut', 'Mut', 'mut')`);
    const ins = (from: number, to: number) =>
      store.db.execute(sql`insert into cash_items (org_id, id, source, ledger_type, contact_id, ledger_status, status, currency,
          issue_date, sort_date, sub_total, total_tax, total, amount_due, amount_paid, amount_credited, last_synced_at)
        select 'mut', 'm' || g, case when g % 4 = 0 then 'LEDGER_BILL' else 'LEDGER_INVOICE' end, case when g % 4 = 0 then 'ACCPAY' else 'ACCREC' end,
          'k' || (g % 3), (array['DRAFT','AUTHORISED','PAID','VOIDED'])[g % 4 + 1], 'FORECAST', case when g % 7 = 0 then 'USD' else 'AUD' end,
          date '2026-01-01' + (g % 40), date '2026-01-01' + (g % 40), g * 1.01, 0, g * 1.01, 0, 0, 0, now()
        from generate_series(${from}::int, ${to}::int) g
        on conflict (org_id, id) do update set ledger_status = 'PAID', total = excluded.total + 0.005, sort_date = excluded.sort_date + 1,
          currency = 'NZD'`);
    await ins(1, 300);
    await ins(250, 400); // 51 upserted, 100 new
    await store.db.execute(sql`update cash_items set ledger_status = 'DELETED', total = total * 2 where org_id = 'mut' and id like 'm1%'`);
    await store.db.execute(sql`update cash_items set sort_date = sort_date - 3 where org_id = 'mut' and id like 'm2%'`);
    await store.db.execute(sql`delete from cash_items where org_id = 'mut' and id like 'm3%'`);
    await store.db.execute(sql`update cash_items set reference = 'no-op for the summary' where org_id = 'mut'`);
    const filters: ItemFilters[] = [
      { statuses: [] },
      { statuses: ['PAID', 'DELETED'] },
      { statuses: [], dateFrom: '2026-01-10', dateTo: '2026-01-20' },
      { statuses: ['AUTHORISED'], dateTo: '2026-01-05' },
    ];
    for (const [source, type] of [['LEDGER_INVOICE', 'ACCREC'], ['LEDGER_BILL', 'ACCPAY']] as const) {
      for (const f of filters) {
        const summary = itemAggregate('mut', source, type, f);
        expect(summary.from).not.toEqual(itemAggregate('mut', source, type, { ...f, contactId: 'k1' }).from);
        const direct = { from: sql`from cash_items ci`, where: itemWhere('mut', source, type, f), status: sql`ci.ledger_status`,
          currency: sql`ci.currency`, n: sql`count(*)`, amount: sql`sum(ci.total)` };
        const n = await countOf(store.db, direct);
        expect(await countOf(store.db, summary)).toBe(n);
        expect(await totalsOf(store.db, summary, LEDGER_STATUS_VALUES, n)).toEqual(await totalsOf(store.db, direct, LEDGER_STATUS_VALUES, n));
      }
    }
    const [{ n }] = (await rows<{ n: number }>(store.db, sql`select count(*)::int8 as n from cash_items where org_id = 'mut'`)) as [{ n: number }];
    const [{ s }] = (await rows<{ s: number }>(store.db, sql`select coalesce(sum(n), 0)::int8 as s from cash_item_counts where org_id = 'mut'`)) as [{ s: number }];
    expect(Number(s)).toBe(Number(n));
    const [{ d }] = (await rows<{ d: number }>(store.db, sql`select coalesce(sum(n), 0)::int8 as d from cash_item_day_counts where org_id = 'mut'`)) as [{ d: number }];
    expect(Number(d)).toBe(Number(n));
  });

  // ------------------------------------------------------------ credit notes

  it('spec 2.6: credit notes list receivable credit notes (ACCRECCREDIT) with total, remainingCredit and allocatedAmount', async () => {
    const r = await listCreditNotes(store.db, { orgId: 'o1', filters: NO_FILTER, after: null, limit: 50, gate: false, totals: false });
    expect(r.items.map((c) => c.id)).toEqual(['cn-5', 'cn-4', 'cn-3', 'cn-1']);
    expect(r.items.find((c) => c.id === 'cn-1')).toEqual({
      id: 'cn-1',
      externalId: 'cn-1',
      creditNoteNumber: 'CN-0001',
      contactId: 'cust-a',
      contactName: 'Acme Pty Ltd',
      issueDate: '2026-01-20T00:00:00.000Z',
      status: 'FORECAST',
      ledgerStatus: 'AUTHORISED',
      total: '30',
      remainingCredit: '10',
      allocatedAmount: '20',
      currency: 'AUD',
    });
    expect(CreditNotesResponse.safeParse({ creditNotes: r.items, nextCursor: null, totalCount: 4, redactedItemCount: 0 }).success).toBe(true);
  });

  it('spec 4.6 credit notes: invoices\' parameters, gating and totals', async () => {
    const r = await listCreditNotes(store.db, {
      orgId: 'o1', filters: { statuses: ['AUTHORISED'], dateTo: '2026-01-21' }, after: null, limit: 50, gate: true, totals: true,
    });
    expect(r.items.map((c) => c.id)).toEqual(['cn-1']);
    expect(r.totalCount).toBe(2);
    expect(r.redactedItemCount).toBe(1);
    expect(r.totals).toMatchObject({ currency: 'AUD', grandTotal: { count: 2, amount: '35' } });
  });

  it('spec 2.6 drill: allocations and lines; lines on a sensitive account lose the account code without READ_SENSITIVE; 404 for unknown, other org\'s or payable ids', async () => {
    const open = await getCreditNote(store.db, { orgId: 'o1', id: 'cn-1', gate: false });
    expect(open!.creditNote.allocations).toEqual([{ invoiceNumber: 'INV-0001', invoiceExternalId: 'inv-1', amount: '20', date: '2026-01-25T00:00:00.000Z' }]);
    expect(open!.creditNote.lines.map((l) => l.accountCode)).toEqual(['200', '310']);
    expect(open!.redactedItemCount).toBe(0);
    const gated = await getCreditNote(store.db, { orgId: 'o1', id: 'cn-1', gate: true });
    expect(gated!.creditNote.lines.map((l) => l.accountCode)).toEqual(['200', null]);
    expect(gated!.creditNote.lines[1]!.lineAmount).toBe('10');
    expect(gated!.redactedItemCount).toBe(1);
    expect(CreditNoteDrillResponse.safeParse(gated).success).toBe(true);
    expect(await getCreditNote(store.db, { orgId: 'o1', id: 'nope', gate: false })).toBeNull();
    expect(await getCreditNote(store.db, { orgId: 'o1', id: 'o2-cn', gate: false })).toBeNull();
    expect(await getCreditNote(store.db, { orgId: 'o1', id: 'cn-2', gate: false })).toBeNull();
    expect(await getCreditNote(store.db, { orgId: 'o1', id: 'inv-1', gate: false })).toBeNull();
    // A sensitive contact's credit note is withheld from gated keys as in the list.
    expect(await getCreditNote(store.db, { orgId: 'o1', id: 'cn-3', gate: true })).toBeNull();
    expect(await getCreditNote(store.db, { orgId: 'o1', id: 'cn-3', gate: false })).not.toBeNull();
  });

  // --------------------------------------------------------- purchase orders

  it('spec 2.7 / 4.6: purchase orders with the raw status matched verbatim, suppressedReason, gating and totals by PO status', async () => {
    const r = await listPurchaseOrders(store.db, { orgId: 'o1', filters: { statuses: ['BILLED', 'DRAFT'] }, after: null, limit: 50, gate: true, totals: true });
    expect(r.items.map((p) => p.id)).toEqual(['po-2']);
    expect(r.items[0]).toEqual({
      id: 'po-2', externalId: 'po-2', purchaseOrderNumber: 'PO-0002', reference: '', contactId: 'sup-b', contactName: 'Bolt Supplies', status: 'BILLED',
      issueDate: '2026-01-06T00:00:00.000Z', deliveryDate: null, expectedArrivalDate: null, total: '55', currency: 'AUD', suppressedReason: 'REFERENCE',
    });
    expect(r.totalCount).toBe(2);
    expect(r.redactedItemCount).toBe(1);
    expect(r.totals).toEqual({
      byStatus: { DRAFT: { count: 1, amount: '1' }, SUBMITTED: { count: 0, amount: '0' }, AUTHORISED: { count: 0, amount: '0' }, BILLED: { count: 1, amount: '55' }, DELETED: { count: 0, amount: '0' } },
      grandTotal: { count: 2, amount: '56' },
      currency: 'AUD',
    });
    expect(PurchaseOrdersResponse.safeParse({ purchaseOrders: r.items, nextCursor: null, totalCount: 2, redactedItemCount: 1, totals: r.totals }).success).toBe(true);
  });

  it('spec 2.7 drill: lines; 404 for unknown or another organisation\'s id', async () => {
    const d = await getPurchaseOrder(store.db, { orgId: 'o1', id: 'po-1', gate: true });
    expect(d!.purchaseOrder.lines).toEqual([
      { description: 'Bolts', quantity: '100', unitAmount: '1', lineAmount: '100', itemCode: 'BOLT', accountCode: '400' },
      { description: 'Private', quantity: '1', unitAmount: '0', lineAmount: '0', itemCode: null, accountCode: null },
    ]);
    expect(d!.redactedItemCount).toBe(1);
    expect(d!.purchaseOrder.deliveryDate).toBe('2026-01-20T00:00:00.000Z');
    expect(PurchaseOrderDrillResponse.safeParse(d).success).toBe(true);
    expect(await getPurchaseOrder(store.db, { orgId: 'o1', id: 'o2-po', gate: false })).toBeNull();
    expect(await getPurchaseOrder(store.db, { orgId: 'o1', id: 'zzz', gate: false })).toBeNull();
    expect(await getPurchaseOrder(store.db, { orgId: 'o1', id: 'po-3', gate: true })).toBeNull();
  });

  // ---------------------------------------------------------------- contacts

  const contactsPage = (over: Partial<Parameters<typeof listContacts>[1]> = {}) =>
    listContacts(store.db, { orgId: 'o1', type: 'both', sort: 'recent_desc', after: null, limit: 200, gate: false, totals: false, ...over });

  it('spec 4.4 contacts: default order lastSyncedAt desc then id desc, exact to the microsecond; type both = every contact', async () => {
    const r = await contactsPage();
    expect(r.contacts.map((c) => c.id)).toEqual(['both-x', 'sup-b', 'cust-s', 'cust-a', 'sup-s', 'none-n']);
    expect(r.totalCount).toBe(6);
    expect(r.contacts[0]).toEqual({
      id: 'both-x', name: 'Dual Co', isCustomer: true, isSupplier: true, isSensitive: false, lastSyncedAt: '2026-02-02T00:00:00.000Z', ltv: '5000',
    });
    // ltv is null for non-customers even when a baseline row exists.
    expect(r.contacts.find((c) => c.id === 'sup-b')!.ltv).toBeNull();
    expect(ContactsListResponse.safeParse({ contacts: r.contacts, nextCursor: null, totalCount: 6, redactedItemCount: 0 }).success).toBe(true);
  });

  it('spec 4.4 type: customer and supplier filter on the flags (contacts that are both match either)', async () => {
    expect((await contactsPage({ type: 'customer' })).contacts.map((c) => c.id)).toEqual(['both-x', 'cust-s', 'cust-a']);
    expect((await contactsPage({ type: 'supplier' })).contacts.map((c) => c.id)).toEqual(['both-x', 'sup-b', 'sup-s']);
  });

  it('spec 4.4: sensitive contacts are dropped without READ_SENSITIVE, counted in redactedItemCount and totalCount; pages stay exact across microsecond ties', async () => {
    const r = await contactsPage({ gate: true });
    expect(r.contacts.map((c) => c.id)).toEqual(['both-x', 'sup-b', 'cust-a', 'none-n']);
    expect(r.redactedItemCount).toBe(2);
    expect(r.totalCount).toBe(6);
    const seen: string[] = [];
    let redacted = 0;
    let after: CursorPosition | null = null;
    do {
      const p = await contactsPage({ gate: true, limit: 1, after });
      seen.push(...p.contacts.map((c) => c.id));
      redacted += p.redactedItemCount;
      after = p.next;
    } while (after);
    expect(seen).toEqual(['both-x', 'sup-b', 'cust-a', 'none-n']);
    expect(redacted).toBe(2);
  });

  it('sort: revenue_desc and spend_desc order the whole set, page after page (not only the page), nulls last; a cursor is bound to its sort', async () => {
    // Ties (contacts without a value) in id order, descending, like every list's second key.
    for (const [sort, order] of [
      ['revenue_desc', ['both-x', 'cust-a', 'sup-s', 'sup-b', 'none-n', 'cust-s']],
      ['spend_desc', ['both-x', 'sup-s', 'sup-b', 'none-n', 'cust-s', 'cust-a']],
    ] as const) {
      const seen: string[] = [];
      let after: CursorPosition | null = null;
      do {
        const p = await contactsPage({ sort, limit: 1, after });
        seen.push(...p.contacts.map((c) => c.id));
        after = p.next;
      } while (after);
      expect(seen, sort).toEqual(order);
    }
    // A position of the recent_desc order (a timestamp) is refused under revenue_desc.
    const recent = await contactsPage({ limit: 1 });
    await expect(contactsPage({ sort: 'revenue_desc', limit: 1, after: recent.next })).rejects.toThrow();
  });

  it('spec 4.4 sort: revenue_desc orders the page by ltv, spend_desc by all-time paid bills, nulls last', async () => {
    const rev = await contactsPage({ sort: 'revenue_desc' });
    expect(rev.contacts.map((c) => c.id)).toEqual(['both-x', 'cust-a', 'sup-s', 'sup-b', 'none-n', 'cust-s']);
    const spend = await contactsPage({ sort: 'spend_desc' });
    // both-x paid 440.4, sup-s 330, sup-b 60 (bill-1 is not paid); non-suppliers last, by id descending (the lists' second key).
    expect(spend.contacts.map((c) => c.id)).toEqual(['both-x', 'sup-s', 'sup-b', 'none-n', 'cust-s', 'cust-a']);
  });

  it('spec 2.5 ContactsTotals: byType customer, supplier, both, neither, zero-filled, honouring the type filter, summing to totalCount; capped', async () => {
    const all = await contactsPage({ totals: true, gate: true });
    expect(all.totals).toEqual({ byType: { customer: 2, supplier: 2, both: 1, neither: 1 }, grandTotal: { count: 6 } });
    const cust = await contactsPage({ totals: true, type: 'customer' });
    expect(cust.totals).toEqual({ byType: { customer: 2, supplier: 0, both: 1, neither: 0 }, grandTotal: { count: 3 } });
    expect(cust.totalCount).toBe(3);
    const capped = await contactsPage({ totals: true, totalsCap: 5 });
    expect(capped.totals).toBeUndefined();
    expect(capped.totalsTruncated).toBe(true);
    expect(capped.totalCount).toBe(6);
  });

  it('spec 2.5 ContactDrill: ledger fields, plain sums computed in SQL, baseline analytics, lastInvoice/lastBill, recentPaidInvoices', async () => {
    const d = await getContact(store.db, { orgId: 'o1', id: 'cust-a', gate: false, today: '2026-03-01' });
    const c = d!.contact;
    expect(c).toMatchObject({
      id: 'cust-a', name: 'Acme Pty Ltd', isCustomer: true, isSupplier: false, isSensitive: false, lastSyncedAt: '2026-02-01T10:00:00.001Z',
      // cn-1 only: cn-5 is in USD (foreign credits excluded), cn-4 is PAID.
      availableCredit: '10',
      // inv-3 (300.25, paid 2026-02-03) and inv-7 (40 USD at 0.5 = 80 AUD, paid 2025-06-20, inside 365 days).
      revenueAllTime: '380.25',
      revenueTrailing12m: '380.25',
      grossMarginPercent: 0.4,
      historicalLtv: '152.1',
      // lifetime clamped to 5; AT_RISK factor 0.5: 380.25 x 0.4 x 5 x 0.5
      expectedLifetimeYears: 5,
      projectedLtv: '380.25',
      paymentDelayMedianDays: '3.5',
      cadence: 'MONTHLY',
      cadenceConfidence: 80,
      abcClass: 'A',
      lastBill: null,
    });
    expect(c.lastInvoice).toMatchObject({ id: 'inv-4', ledgerStatus: 'DRAFT', amount: '10', amountDue: '10' });
    expect(c.recentPaidInvoices.map((p) => p.id)).toEqual(['inv-3', 'inv-7']);
    // inv-3's main line is on 310 (sensitive); with READ_SENSITIVE it shows as is.
    expect(c.recentPaidInvoices[0]).toMatchObject({ accountCode: '310', accountName: 'Owner drawings', paidDate: '2026-02-03T00:00:00.000Z', daysLate: 3 });
    expect(d!.redactedItemCount).toBe(0);
    expect(ContactDrillResponse.safeParse(d).success).toBe(true);
    const later = await getContact(store.db, { orgId: 'o1', id: 'cust-a', gate: false, today: '2026-07-01' });
    expect(later!.contact.revenueTrailing12m).toBe('300.25');
  });

  it('spec 2.5 recentPaidInvoices: entries on sensitive accounts stay, with accountName `Sensitive account` and accountCode null; redactedItemCount counts them', async () => {
    const d = await getContact(store.db, { orgId: 'o1', id: 'cust-a', gate: true, today: '2026-03-01' });
    expect(d!.contact.recentPaidInvoices).toHaveLength(2);
    expect(d!.contact.recentPaidInvoices[0]).toMatchObject({ id: 'inv-3', accountCode: null, accountName: 'Sensitive account', amount: '300.25' });
    expect(d!.contact.recentPaidInvoices[1]).toMatchObject({ id: 'inv-7', accountCode: '200', accountName: 'Sales' });
    expect(d!.redactedItemCount).toBe(1);
  });

  it('spec 2.5: without a baseline the analytics fields are null, required fields stay present; drill of unknown, other org\'s or (gated) sensitive id is null', async () => {
    const d = await getContact(store.db, { orgId: 'o1', id: 'none-n', gate: false, today: '2026-03-01' });
    expect(d!.contact).toMatchObject({
      availableCredit: '0', revenueAllTime: '0', revenueTrailing12m: '0', projectedLtv: null, cadence: null, abcClass: null,
      expectedLifetimeYears: 1, paymentDelayMedianDays: null, recentPaidInvoices: [], lastInvoice: null, lastBill: null,
    });
    const supplier = await getContact(store.db, { orgId: 'o1', id: 'sup-b', gate: false, today: '2026-03-01' });
    expect(supplier!.contact.abcClass).toBeNull();
    expect(supplier!.contact.lastBill).toMatchObject({ id: 'bill-1' });
    expect(await getContact(store.db, { orgId: 'o1', id: 'o2-cust', gate: false, today: '2026-03-01' })).toBeNull();
    expect(await getContact(store.db, { orgId: 'o1', id: 'missing', gate: false, today: '2026-03-01' })).toBeNull();
    expect(await getContact(store.db, { orgId: 'o1', id: 'cust-s', gate: true, today: '2026-03-01' })).toBeNull();
    expect((await getContact(store.db, { orgId: 'o1', id: 'cust-s', gate: false, today: '2026-03-01' }))!.contact.isSensitive).toBe(true);
  });

  // ------------------------------------------------------ bank and balances

  it('spec 2.2 / decisions bank-accounts: active BANK accounts, reconciled and statement balances, balanceSource; sensitive names rewritten', async () => {
    const r = await listBankAccounts(store.db, { orgId: 'o1', gate: true, asOf: '2026-03-01', now: new Date('2026-03-02T00:00:00Z') });
    expect(r.bankAccounts).toEqual([
      // 1000.10 reconciled + 20.05 received - 5 spent (unreconciled, authorised)
      { id: 'bank-1', name: 'Operating', currency: 'AUD', reconciledBalance: '1000.1', statementBalance: '1015.15', balanceSource: 'RECONCILED', balanceSyncedAt: '2026-03-01T00:00:00.000Z' },
      { id: 'bank-2', name: 'Sensitive account', currency: 'AUD', reconciledBalance: '50', statementBalance: '75.25', balanceSource: 'STATEMENT', balanceSyncedAt: '2026-03-01T00:00:00.000Z' },
    ]);
    expect(r.redactedItemCount).toBe(1);
    expect(BankAccountsResponse.safeParse(r).success).toBe(true);
    const open = await listBankAccounts(store.db, { orgId: 'o1', gate: false, asOf: '2026-03-01', now: new Date('2026-03-02T00:00:00Z') });
    expect(open.bankAccounts[1]!.name).toBe('Owner savings');
    expect(open.redactedItemCount).toBe(0);
    expect((await listBankAccounts(store.db, { orgId: 'o2', gate: false, asOf: '2026-03-01', now: new Date('2026-03-02T00:00:00Z') })).bankAccounts.map((b) => b.id)).toEqual(['o2-bank']);
    // balanceSyncedAt is never later than the service clock (a frozen clock before the ledger's read time).
    const early = await listBankAccounts(store.db, { orgId: 'o1', gate: false, asOf: '2026-02-01', now: new Date('2026-02-01T10:00:00Z') });
    expect(early.bankAccounts.map((b) => b.balanceSyncedAt)).toEqual(['2026-02-01T10:00:00.000Z', '2026-02-01T10:00:00.000Z']);
  });

  it('decisions account-balances: balance-sheet accounts summed from journal lines up to the date, natural sign; sensitive names rewritten', async () => {
    const r = await accountBalances(store.db, { orgId: 'o1', asOfDate: '2026-01-31', gate: true });
    expect(r).toEqual({
      asOfDate: '2026-01-31',
      currency: 'AUD',
      basis: 'journals', // the organisation has journal lines (without: basis documents, test/account-balances-documents.test.ts)
      accounts: [
        { code: '090', name: 'Operating', type: 'BANK', class: 'ASSET', balance: '0' },
        { code: '091', name: 'Sensitive account', type: 'BANK', class: 'ASSET', balance: '1000' },
        { code: '610', name: 'Receivables', type: 'CURRENT', class: 'ASSET', balance: '110' },
        { code: '800', name: 'Payables', type: 'CURRLIAB', class: 'LIABILITY', balance: '30' },
        { code: '820', name: 'Sensitive account', type: 'CURRLIAB', class: 'LIABILITY', balance: '1000' },
        { code: '960', name: 'Retained earnings', type: 'EQUITY', class: 'EQUITY', balance: '0' },
      ],
      redactedItemCount: 2,
    });
    expect(AccountBalancesResponse.safeParse(r).success).toBe(true);
    const later = await accountBalances(store.db, { orgId: 'o1', asOfDate: '2026-02-10', gate: false });
    // The line without an account id is matched by its code (090); the date bound is inclusive.
    expect(later.accounts.find((a) => a.code === '090')!.balance).toBe('40.5');
    expect(later.accounts.find((a) => a.code === '610')!.balance).toBe('69.5');
    expect(later.accounts.find((a) => a.code === '091')!.name).toBe('Owner savings');
    expect(later.redactedItemCount).toBe(0);
    const before = await accountBalances(store.db, { orgId: 'o1', asOfDate: '2025-12-31', gate: false });
    expect(before.accounts.every((a) => a.balance === '0')).toBe(true);
  });

  it('spec 1: every money field is a canonical decimal string', async () => {
    const moneyKeys = new Set(['amount', 'lineAmount', 'taxAmount', 'quantity', 'unitAmount', 'discountRate', 'discountAmount', 'lineSubtotal',
      'total', 'remainingCredit', 'allocatedAmount', 'subTotal', 'totalTax', 'ltv', 'availableCredit', 'revenueTrailing12m', 'revenueAllTime',
      'projectedLtv', 'historicalLtv', 'paymentDelayMedianDays', 'reconciledBalance', 'statementBalance', 'balance', 'amountDue']);
    const bodies: unknown[] = [
      await listItems(store.db, page({ lines: true, totals: true })),
      await listItems(store.db, page({ kind: 'bills', lines: true, totals: true })),
      await listCreditNotes(store.db, { orgId: 'o1', filters: NO_FILTER, after: null, limit: 50, gate: false, totals: true }),
      await listPurchaseOrders(store.db, { orgId: 'o1', filters: NO_FILTER, after: null, limit: 50, gate: false, totals: true }),
      await getCreditNote(store.db, { orgId: 'o1', id: 'cn-1', gate: false }),
      await getPurchaseOrder(store.db, { orgId: 'o1', id: 'po-1', gate: false }),
      await contactsPage(),
      await getContact(store.db, { orgId: 'o1', id: 'cust-a', gate: false, today: '2026-03-01' }),
      await listBankAccounts(store.db, { orgId: 'o1', gate: false, asOf: '2026-03-01', now: new Date('2026-03-02T00:00:00Z') }),
      await accountBalances(store.db, { orgId: 'o1', asOfDate: '2026-03-01', gate: false }),
    ];
    const found = moneyStrings(bodies, moneyKeys);
    expect(found.length).toBeGreaterThan(100);
    for (const m of found) expect(isCanonical(m), m).toBe(true);
  });
});
