/**
 * `q`, the lists' search (issue 19, "Built for agents"; docs/lists.md#q):
 * /invoices and /bills by number, reference or contact name, /credit-notes
 * and /purchase-orders by number or contact name, /contacts by name or
 * email; case- and accent-insensitive substrings, combined with the other
 * filters, cursors, totals and autoPaginate, and redaction-aware. Through
 * real HTTP on PGlite and PostgreSQL; then the trigram indexes on
 * PostgreSQL (the plans).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SQL, sql } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { startTestApi, type TestApi } from './helpers/http.js';
import { seedLedger, T0 } from './lists-fixture.js';
import { SCOPES, type Scope } from '../src/domain/scopes.js';
import { SEARCH_MAX_LENGTH } from '../src/domain/list-params.js';
import * as s from '../src/store/schema.js';
import { rows, type Db } from '../src/store/db.js';
import { invoiceAggregate, invoiceKeysetSpec, itemSearchContacts } from '../src/store/queries/cash-items.js';
import { contactKeysetSpec } from '../src/store/queries/contacts.js';
import { purchaseOrderKeysetSpec } from '../src/store/queries/purchase-orders.js';
import { countSql, pageSql } from '../src/store/queries/paging.js';
import { namedContacts } from '../src/store/queries/search.js';
import {
  BillsResponse,
  ContactsListResponse,
  CreditNotesResponse,
  InvoicesResponse,
  PurchaseOrdersResponse,
} from '../src/schemas/ledger.js';

const NO_SENSITIVE = SCOPES.filter((x) => x !== 'READ_SENSITIVE');
const ZOE_INVOICES = 23;

/** Café Zoë (a customer with an accented name and an email) and her invoices ZOE-01 .. ZOE-23, three on one day. */
async function seedZoe(db: Db): Promise<void> {
  await db.insert(s.contacts).values([
    { orgId: 'o1', id: 'cust-z', name: 'Café Zoë', email: 'Hello@Zoe-Kitchen.example', isCustomer: true, lastSyncedAt: T0 },
    { orgId: 'o1', id: 'cust-t', name: 'Tiny 100% Co_op', isCustomer: true, lastSyncedAt: T0 },
  ]);
  await db.execute(sql`insert into cash_items (org_id, id, source, ledger_type, number, reference, contact_id, ledger_status, status, currency,
      issue_date, due_date, sort_date, sub_total, total_tax, total, amount_due, amount_paid, amount_credited, last_synced_at)
    select 'o1', 'z-' || lpad(g::text, 2, '0'), 'LEDGER_INVOICE', 'ACCREC', 'ZOE-' || lpad(g::text, 2, '0'), 'Catering ' || g, 'cust-z',
      case when g % 2 = 0 then 'PAID' else 'AUTHORISED' end, case when g % 2 = 0 then 'ACTUAL' else 'FORECAST' end, 'AUD',
      d, d + 30, d, 10 * g, 0, 10 * g, case when g % 2 = 0 then 0 else 10 * g end, case when g % 2 = 0 then 10 * g else 0 end, 0,
      ${T0.toISOString()}::timestamptz
    from (select g, case when g <= 3 then date '2025-11-15' else date '2025-09-01' + g end as d
          from generate_series(1, ${ZOE_INVOICES}) g) x`);
}

describe.each(BACKENDS)('q search over HTTP on %s', (kind) => {
  let api: TestApi;

  /** A fresh key (the burst cap is 60 requests a minute per key and endpoint). */
  const key = (scopes: readonly Scope[] = SCOPES) => api.key('o1', scopes);

  async function getJson<S extends z.ZodTypeAny>(schema: S | null, path: string, k: string) {
    const res = await api.get(path, k);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status === 200 && schema) {
      const parsed = schema.safeParse(body);
      expect(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues?.slice(0, 3))}`).toBe(true);
    }
    return { status: res.status, body: body as z.infer<S> & Record<string, unknown> };
  }
  const invoices = (query: string, k: string) => getJson(InvoicesResponse, `/api/agent/invoices?${query}`, k);
  const ids = (list: { id: string }[]) => list.map((x) => x.id);

  beforeAll(async () => {
    api = await startTestApi(kind, { now: '2026-03-01T15:00:00Z' });
    await api.org({ id: 'o1', name: 'One Pty', plan: 'Reserve', baseCurrency: 'AUD' });
    await api.org({ id: 'o2', name: 'Two Ltd', plan: 'Reserve', baseCurrency: 'NZD' });
    await seedLedger(api.store.db, { orgsExist: true });
    await seedZoe(api.store.db);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('finds documents by a prefix of their number, ignoring case, on every document list; other organisations never match', async () => {
    const k = await key();
    const prefix = await invoices('q=inv-000', k);
    expect(prefix.status).toBe(200);
    expect(ids(prefix.body.invoices)).toEqual(['inv-6', 'inv-4', 'inv-3', 'inv-2', 'inv-1', 'inv-5', 'inv-7']);
    expect(prefix.body).toMatchObject({ totalCount: 7, redactedItemCount: 0, nextCursor: null });
    expect(ids((await invoices('q=INV-0001', k)).body.invoices)).toEqual(['inv-1']);
    expect(ids((await invoices('q=%20zoe-2%20', k)).body.invoices)).toEqual(['z-23', 'z-22', 'z-21', 'z-20']);
    const bills = await getJson(BillsResponse, '/api/agent/bills?q=b-1', k);
    expect(ids(bills.body.bills)).toEqual(['bill-1']);
    const cn = await getJson(CreditNotesResponse, '/api/agent/credit-notes?q=cn-000', k);
    // Receivable credit notes only (cn-2 is payable), and never o2's CN-9.
    expect(ids(cn.body.creditNotes)).toEqual(['cn-5', 'cn-4', 'cn-3', 'cn-1']);
    const po = await getJson(PurchaseOrdersResponse, '/api/agent/purchase-orders?q=PO-0001', k);
    expect(ids(po.body.purchaseOrders)).toEqual(['po-1']);
    // o2's documents and contacts are not o1's.
    expect((await invoices('q=NZ-1', k)).body).toMatchObject({ invoices: [], totalCount: 0 });
    expect((await invoices('q=kiwi', k)).body).toMatchObject({ invoices: [], totalCount: 0 });
  });

  it('finds documents by a substring of their contact name or (invoices and bills) their reference', async () => {
    const k = await key();
    expect(ids((await invoices('q=cme', k)).body.invoices)).toEqual(['inv-4', 'inv-3', 'inv-1', 'inv-5', 'inv-7']);
    expect(ids((await invoices('q=jan%20WORK', k)).body.invoices)).toEqual(['inv-1']);
    expect(ids((await invoices('q=atering%2017', k)).body.invoices)).toEqual(['z-17']);
    const bills = await getJson(BillsResponse, '/api/agent/bills?q=supplies', k);
    expect(ids(bills.body.bills)).toEqual(['bill-1', 'bill-4']);
    expect(ids((await getJson(BillsResponse, '/api/agent/bills?q=dual', k)).body.bills)).toEqual(['bill-3']);
    // Purchase orders by supplier name (po-1's reference "Bolts" is not what matches: po-2 has none).
    const po = await getJson(PurchaseOrdersResponse, '/api/agent/purchase-orders?q=bolt%20sup', k);
    expect(ids(po.body.purchaseOrders)).toEqual(['po-2', 'po-1']);
    const cn = await getJson(CreditNotesResponse, '/api/agent/credit-notes?q=acme', k);
    expect(ids(cn.body.creditNotes)).toEqual(['cn-5', 'cn-4', 'cn-1']);
    const contacts = await getJson(ContactsListResponse, '/api/agent/contacts?q=pty', k);
    expect(ids(contacts.body.contacts)).toEqual(['cust-a']);
    expect(contacts.body).toMatchObject({ totalCount: 1, redactedItemCount: 0 });
  });

  it("is case- and accent-insensitive both ways: 'cafe zoe' finds 'Café Zoë', and so do 'CAFÉ' and 'zoë'; contacts also by email", async () => {
    const k = await key();
    for (const q of ['cafe%20zoe', 'CAF%C3%89', 'zo%C3%AB', 'caf%C3%A9%20%20%20zo']) {
      const r = await invoices(`q=${q}&limit=200`, k);
      expect(r.status, q).toBe(200);
      expect(r.body.totalCount, q).toBe(ZOE_INVOICES);
      expect(r.body.invoices.every((i) => i.contactName === 'Café Zoë'), q).toBe(true);
    }
    const byName = await getJson(ContactsListResponse, '/api/agent/contacts?q=cafe%20ZOE', k);
    expect(byName.body.contacts.map((c) => c.name)).toEqual(['Café Zoë']);
    const byEmail = await getJson(ContactsListResponse, '/api/agent/contacts?q=zoe-kitchen.EXAMPLE', k);
    expect(ids(byEmail.body.contacts)).toEqual(['cust-z']);
  });

  it("takes %, _ and \\ literally (a search is never a pattern of the caller's)", async () => {
    const k = await key();
    expect((await invoices('q=%25', k)).body.totalCount).toBe(0);
    expect((await invoices('q=_', k)).body.totalCount).toBe(0);
    expect((await invoices('q=%5C', k)).body.totalCount).toBe(0);
    const contacts = await getJson(ContactsListResponse, '/api/agent/contacts?q=100%25%20co_', k);
    expect(ids(contacts.body.contacts)).toEqual(['cust-t']);
    expect((await getJson(ContactsListResponse, '/api/agent/contacts?q=1000', k)).body.totalCount).toBe(0);
  });

  it('combines with status, contactId, dates, lines, type and sort; totals and autoPaginate cover the searched set only', async () => {
    const k = await key();
    expect(ids((await invoices('q=acme&status=PAID', k)).body.invoices)).toEqual(['inv-3', 'inv-7']);
    expect(ids((await invoices('q=inv-000&contactId=cust-a&dateFrom=2026-01-01', k)).body.invoices)).toEqual(['inv-4', 'inv-3', 'inv-1', 'inv-5']);
    const withLines = await invoices('q=inv-0001&lines=true', k);
    expect(ids(withLines.body.invoices)).toEqual(['inv-1']);
    expect(withLines.body.invoices[0]!.lines).toHaveLength(3);
    const paid = await invoices('q=zoe&status=PAID&totals=true', k);
    expect(paid.body.totalCount).toBe(11);
    // 10 * (2 + 4 + ... + 22) = 1320.
    expect(paid.body.totals).toMatchObject({ grandTotal: { count: 11, amount: '1320' }, currency: 'AUD' });
    expect(paid.body.totals!.byStatus).toMatchObject({ PAID: { count: 11, amount: '1320' }, AUTHORISED: { count: 0, amount: '0' } });
    const all = await invoices('q=zoe&totals=true&autoPaginate=true', k);
    expect(all.body.invoices).toHaveLength(ZOE_INVOICES);
    expect(all.body).toMatchObject({ totalCount: ZOE_INVOICES, nextCursor: null, totals: { grandTotal: { count: ZOE_INVOICES, amount: '2760' } } });
    expect(all.body.truncated).toBeUndefined();
    const po = await getJson(PurchaseOrdersResponse, '/api/agent/purchase-orders?q=bolt&status=BILLED&totals=true', k);
    expect(ids(po.body.purchaseOrders)).toEqual(['po-2']);
    expect(po.body.totals).toMatchObject({ grandTotal: { count: 1, amount: '55' } });
    const customers = await getJson(ContactsListResponse, '/api/agent/contacts?q=co&type=customer&sort=revenue_desc&totals=true', k);
    // Customers whose name or email holds "co": Acme (no), Café Zoë (no), Dual Co, Tiny 100% Co_op.
    expect(ids(customers.body.contacts)).toEqual(['both-x', 'cust-t']);
    expect(customers.body).toMatchObject({ totalCount: 2, totals: { byType: { customer: 1, supplier: 0, both: 1, neither: 0 }, grandTotal: { count: 2 } } });
  });

  it('pages with q: keyset pages walk exactly the autoPaginate set; the cursor is bound to q (another q, or none, is 400 invalid_cursor)', async () => {
    const k = await key();
    const whole = await invoices('q=zoe&autoPaginate=true', k);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: Awaited<ReturnType<typeof invoices>> = await invoices(`q=zoe&limit=5${cursor ? `&cursor=${cursor}` : ''}`, k);
      expect(r.status).toBe(200);
      expect(r.body.totalCount).toBe(ZOE_INVOICES);
      seen.push(...ids(r.body.invoices));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(5);
    expect(seen).toEqual(ids(whole.body.invoices));
    expect(new Set(seen).size).toBe(ZOE_INVOICES);
    // The three of 2025-11-15 come first, by id descending.
    expect(seen.slice(0, 3)).toEqual(['z-03', 'z-02', 'z-01']);

    const first = await invoices('q=zoe&limit=2', k);
    const c = first.body.nextCursor!;
    for (const other of ['q=zo', 'q=cafe', '', 'q=zoe&status=PAID']) {
      expect(await getJson(null, `/api/agent/invoices?${other}&limit=2&cursor=${c}`, k), other).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    }
    // The same q (spaces around it do not count; limit and totals may change) keeps it valid.
    for (const same of ['q=zoe', 'q=%20zoe%20&limit=7&totals=true']) {
      const r = await invoices(`${same}&cursor=${c}`, k);
      expect(r.status, same).toBe(200);
      expect(ids(r.body.invoices)[0]).toBe(seen[2]);
    }
    // A cursor made without q is refused with one.
    const plain = await invoices('limit=2', k);
    expect(await getJson(null, `/api/agent/invoices?q=inv&cursor=${plain.body.nextCursor}`, k)).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    // Contacts: the same binding.
    const cp = await getJson(ContactsListResponse, '/api/agent/contacts?q=o&limit=1', k);
    expect(cp.body.nextCursor).not.toBeNull();
    expect(await getJson(null, `/api/agent/contacts?q=c&limit=1&cursor=${cp.body.nextCursor}`, k)).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    expect((await api.get(`/api/agent/contacts?q=o&limit=1&cursor=${cp.body.nextCursor}`, k)).status).toBe(200);
  });

  it("without READ_SENSITIVE a sensitive contact's name finds nothing (not even a count), while the number still finds its document, withheld; with READ_SENSITIVE the name finds it", async () => {
    const g = await key(NO_SENSITIVE);
    // inv-2 and cn-3 belong to the sensitive customer "Secret Client"; bill-2 and po-3 to the sensitive "Hidden Supplier".
    const hidden = [
      ['/api/agent/invoices?q=secret&totals=true', 'invoices'],
      ['/api/agent/invoices?q=SECRET%20cli&status=PAID', 'invoices'],
      ['/api/agent/invoices?q=secret&lines=true', 'invoices'],
      ['/api/agent/credit-notes?q=secret', 'creditNotes'],
      ['/api/agent/bills?q=hidden', 'bills'],
      ['/api/agent/purchase-orders?q=hidden%20supp&totals=true', 'purchaseOrders'],
      ['/api/agent/contacts?q=secret&totals=true', 'contacts'],
      ['/api/agent/contacts?q=hidden&type=supplier', 'contacts'],
    ] as const;
    for (const [path, field] of hidden) {
      const r = await getJson(null, path, g);
      expect(r.status, path).toBe(200);
      expect(r.body, path).toMatchObject({ [field]: [], totalCount: 0, redactedItemCount: 0 });
      if (path.includes('totals=true')) expect((r.body.totals as { grandTotal: { count: number } }).grandTotal.count, path).toBe(0);
    }
    // By number: matched and counted, but withheld like every row of a sensitive contact.
    const byNumber = await invoices('q=inv-0002', g);
    expect(byNumber.body).toMatchObject({ invoices: [], totalCount: 1, redactedItemCount: 1 });
    const poByNumber = await getJson(PurchaseOrdersResponse, '/api/agent/purchase-orders?q=po-0003', g);
    expect(poByNumber.body).toMatchObject({ purchaseOrders: [], totalCount: 1, redactedItemCount: 1 });
    // A search that matches others by name still leaves the sensitive contacts out of the count.
    const broad = await getJson(ContactsListResponse, '/api/agent/contacts?q=e', g);
    expect(broad.body.contacts.map((c) => c.isSensitive)).not.toContain(true);
    expect(broad.body.redactedItemCount).toBe(0);
    expect(broad.body.totalCount).toBe(broad.body.contacts.length);

    const f = await key();
    expect(ids((await invoices('q=secret', f)).body.invoices)).toEqual(['inv-2']);
    expect(ids((await invoices('q=inv-0002', f)).body.invoices)).toEqual(['inv-2']);
    expect(ids((await getJson(CreditNotesResponse, '/api/agent/credit-notes?q=secret', f)).body.creditNotes)).toEqual(['cn-3']);
    expect(ids((await getJson(BillsResponse, '/api/agent/bills?q=hidden', f)).body.bills)).toEqual(['bill-2']);
    expect(ids((await getJson(PurchaseOrdersResponse, '/api/agent/purchase-orders?q=hidden', f)).body.purchaseOrders)).toEqual(['po-3']);
    const contacts = await getJson(ContactsListResponse, '/api/agent/contacts?q=secret', f);
    expect(contacts.body.contacts.map((c) => [c.id, c.name, c.isSensitive])).toEqual([['cust-s', 'Secret Client', true]]);
  });

  it('q is trimmed and must be 1 to 100 characters: empty, blank or longer is a 400 bad_request naming q, on every list', async () => {
    const k = await key();
    const long = 'x'.repeat(SEARCH_MAX_LENGTH + 1);
    const cases = [
      ...['', '%20%20%20', long, `%20${long}%20`].map((q) => ['invoices', q] as const),
      ...['bills', 'credit-notes', 'purchase-orders', 'contacts'].flatMap((path) => [[path, ''] as const, [path, long] as const]),
    ];
    for (const [path, q] of cases) {
      const r = await getJson(null, `/api/agent/${path}?q=${q}`, k);
      expect(r.status, `${path} q=${q}`).toBe(400);
      expect(r.body, `${path} q=${q}`).toMatchObject({ error: 'bad_request', parameter: 'q', message: expect.stringMatching(/^q: .*1 to 100/) });
    }
    // 100 characters (with spaces around them) are fine.
    expect((await api.get(`/api/agent/invoices?q=%20${'x'.repeat(SEARCH_MAX_LENGTH)}%20`, k)).status).toBe(200);
    expect((await api.get(`/api/agent/contacts?q=${'é'.repeat(SEARCH_MAX_LENGTH)}`, k)).status).toBe(200);
  });
});

/** A count over purchase orders (its where is a list's). */
const poCount = { from: sql`from purchase_orders po`, status: sql`po.status`, currency: sql`po.currency`, n: sql`count(*)`, amount: sql`sum(po.total)` };

describe('q search uses the trigram indexes (PostgreSQL)', () => {
  let store: TestStore;
  const ORG = 'idx';

  beforeAll(async () => {
    store = await freshStore('postgres', { poolSize: 2 });
    const db = store.db;
    await db.insert(s.organisations).values({ id: ORG, name: 'Index Pty', slug: 'index' });
    await db.execute(sql`insert into contacts (org_id, id, name, email, is_customer, is_supplier, last_synced_at)
      select ${ORG}, 'c' || g, 'Customer ' || md5(g::text), 'a' || g || '@example.com', true, g % 2 = 0, ${T0.toISOString()}::timestamptz
      from generate_series(1, 4000) g`);
    await db.execute(sql`insert into cash_items (org_id, id, source, ledger_type, number, reference, contact_id, ledger_status, status, currency,
        issue_date, sort_date, sub_total, total_tax, total, amount_due, amount_paid, amount_credited, last_synced_at)
      select ${ORG}, 'i' || g, 'LEDGER_INVOICE', 'ACCREC', 'INV-' || lpad(g::text, 6, '0'), 'Ref ' || md5(g::text), 'c' || (g % 4000 + 1),
        'AUTHORISED', 'FORECAST', 'AUD', date '2024-01-01' + (g % 700), date '2024-01-01' + (g % 700), 1, 0, 1, 1, 0, 0, ${T0.toISOString()}::timestamptz
      from generate_series(1, 30000) g`);
    await db.execute(sql`insert into purchase_orders (org_id, id, number, contact_id, status, currency, issue_date, sort_date, sub_total, total_tax, total, last_synced_at)
      select ${ORG}, 'p' || g, 'PO-' || lpad(g::text, 6, '0'), 'c' || (g % 4000 + 1), 'AUTHORISED', 'AUD', date '2024-01-01' + (g % 700),
        date '2024-01-01' + (g % 700), 1, 0, 1, ${T0.toISOString()}::timestamptz
      from generate_series(1, 8000) g`);
    await db.execute(sql`analyze contacts`);
    await db.execute(sql`analyze cash_items`);
    await db.execute(sql`analyze purchase_orders`);
  });
  afterAll(async () => {
    await store?.close();
  });

  /** The plan of `query`, sequential scans disabled (one transaction, so one connection). */
  async function plan(query: SQL): Promise<string> {
    return store.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const lines = await rows<{ 'QUERY PLAN': string }>(tx as unknown as Db, sql`explain ${query}`);
      return lines.map((l) => l['QUERY PLAN']).join('\n');
    });
  }

  /** The plan's text without disabling anything. */
  async function naturalPlan(query: SQL): Promise<string> {
    return (await rows<{ 'QUERY PLAN': string }>(store.db, sql`explain ${query}`)).map((l) => l['QUERY PLAN']).join('\n');
  }

  it('invoices by number or reference: the count and the page read cash_items_search_idx', async () => {
    const base = { orgId: ORG, kind: 'invoices' as const, filters: { statuses: [], q: 'inv-01234' }, gate: true };
    const input = { ...base, named: await itemSearchContacts(store.db, base) };
    expect(input.named).toEqual([]);
    const count = await plan(countSql(invoiceAggregate(input)));
    expect(count).toMatch(/Bitmap Index Scan on cash_items_search_idx/);
    expect(await plan(pageSql(invoiceKeysetSpec(input), null, 51))).toMatch(/Bitmap Index Scan on cash_items_search_idx/);
    const [n] = await rows<{ n: number }>(store.db, countSql(invoiceAggregate(input)));
    // INV-012340 .. INV-012349 (INV-01234 itself does not exist: six digits).
    expect(Number(n!.n)).toBe(10);
    // Without disabling anything, the planner picks the index for a selective search on its own.
    expect(await naturalPlan(countSql(invoiceAggregate(input)))).toMatch(/cash_items_search_idx/);
  });

  it('by contact name: the names through contacts_search_idx, then the documents through the bitmap OR of their own trigram index and their contact index', async () => {
    const names = await naturalPlan(sql`select c.id from contacts c where c.org_id = ${ORG} and cashline_search_fold(c.name) like '%customer 1a%'`);
    expect(names).toMatch(/contacts_search_idx/);
    const base = { orgId: ORG, kind: 'invoices' as const, filters: { statuses: [], q: 'CUSTOMER 1a' }, gate: false };
    const named = await namedContacts(store.db, ORG, 'CUSTOMER 1a', false);
    expect(named.length).toBeGreaterThan(0);
    const count = await plan(countSql(invoiceAggregate({ ...base, named })));
    expect(count).toMatch(/BitmapOr/);
    expect(count).toMatch(/cash_items_search_idx/);
    expect(count).toMatch(/cash_items_contact_idx/);
  });

  it('contacts by name or email and purchase orders by number or supplier use their trigram indexes', async () => {
    const contacts = await plan(pageSql(contactKeysetSpec({ orgId: ORG, type: 'both', gate: false, q: 'a1234@' }), null, 51));
    expect(contacts).toMatch(/contacts_search_idx/);
    const named = await namedContacts(store.db, ORG, 'po-0077', false);
    const po = await plan(countSql({ ...poCount, where: purchaseOrderKeysetSpec({ orgId: ORG, filters: { statuses: [], q: 'po-0077' }, gate: false, named }).where }));
    expect(po).toMatch(/purchase_orders_search_idx/);
  });
});
