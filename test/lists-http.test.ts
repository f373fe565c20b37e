/**
 * The ledger lists and drills through real HTTP, on PGlite and PostgreSQL:
 * /invoices, /bills, /credit-notes(/{id}), /purchase-orders(/{id}),
 * /contacts(/{id}), /bank-accounts, /account-balances. Each test names the
 * rule of agent-read-api.md (spec) or decisions.md it proves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { BACKENDS } from './helpers/store.js';
import { okBody, startTestApi, type TestApi } from './helpers/http.js';
import { seedBulk, seedLedger } from './lists-fixture.js';
import { SCOPES, type Scope } from '../src/domain/scopes.js';
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

const NO_SENSITIVE = SCOPES.filter((s) => s !== 'READ_SENSITIVE');
/** How many invoices an answer lists. */
const overdueSeen = (r: { body: Record<string, unknown> }) => (r.body.invoices as unknown[]).length;

describe.each(BACKENDS)('ledger lists over HTTP on %s', (kind) => {
  let api: TestApi;
  let full: string;
  let gated: string;
  let o2: string;

  /** A fresh key (the burst cap is 60 requests a minute per key and endpoint). */
  const key = (scopes: readonly Scope[] = SCOPES, org = 'o1') => api.key(org, scopes);

  async function getJson<S extends z.ZodTypeAny>(schema: S | null, path: string, k: string, headers?: Record<string, string>) {
    const res = await api.get(path, k, headers);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status === 200 && schema) {
      const parsed = schema.safeParse(body);
      expect(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues?.slice(0, 3))}`).toBe(true);
    }
    return { status: res.status, body: body as z.infer<S> & Record<string, unknown> };
  }

  beforeAll(async () => {
    // 15:00 UTC on 1 March is already 2 March in Sydney (the organisations' time zone).
    api = await startTestApi(kind, { now: '2026-03-01T15:00:00Z' });
    await api.org({ id: 'o1', name: 'One Pty', plan: 'Reserve', baseCurrency: 'AUD' });
    await api.org({ id: 'o2', name: 'Two Ltd', plan: 'Reserve', baseCurrency: 'NZD' });
    await api.org({ id: 'big', name: 'Big Pty', plan: 'Reserve' });
    await seedLedger(api.store.db, { orgsExist: true });
    await seedBulk(api.store.db, 'big', 5100, 3000, { orgExists: true });
    full = await key();
    gated = await key(NO_SENSITIVE);
    o2 = await key(SCOPES, 'o2');
  });
  afterAll(async () => {
    await api?.close();
  });

  // ------------------------------------------------------------------ scopes

  it('spec 4.1 / 5.3: invoices, bills and credit notes need READ_INVOICES; purchase orders READ_PURCHASE_ORDERS; contacts READ_CONTACTS; bank READ_BANK; balances READ_ACCOUNTS', async () => {
    const cases: [string, Scope][] = [
      ['/api/agent/invoices', 'READ_INVOICES'],
      ['/api/agent/bills', 'READ_INVOICES'],
      ['/api/agent/credit-notes', 'READ_INVOICES'],
      ['/api/agent/credit-notes/cn-1', 'READ_INVOICES'],
      ['/api/agent/purchase-orders', 'READ_PURCHASE_ORDERS'],
      ['/api/agent/purchase-orders/po-1', 'READ_PURCHASE_ORDERS'],
      ['/api/agent/contacts', 'READ_CONTACTS'],
      ['/api/agent/contacts/cust-a', 'READ_CONTACTS'],
      ['/api/agent/bank-accounts', 'READ_BANK'],
      ['/api/agent/account-balances', 'READ_ACCOUNTS'],
    ];
    for (const [path, scope] of cases) {
      const without = await key(SCOPES.filter((s) => s !== scope));
      const denied = await api.get(path, without);
      expect(denied.status, path).toBe(403);
      expect(await denied.json()).toMatchObject({ error: 'insufficient_scope' });
      const only = await key([scope]);
      expect((await api.get(path, only)).status, path).toBe(200);
    }
  });

  // ---------------------------------------------------------------- invoices

  it('spec 2.4 / 4.3: invoices and bills answer their response schemas; nextCursor is always present, null on the last page; credit notes are not among them', async () => {
    const inv = await getJson(InvoicesResponse, '/api/agent/invoices', full);
    expect(inv.status).toBe(200);
    expect(inv.body.invoices.map((i) => i.id)).toEqual(['inv-6', 'inv-4', 'inv-3', 'inv-2', 'inv-1', 'inv-5', 'inv-7']);
    expect(inv.body).toMatchObject({ nextCursor: null, totalCount: 7, redactedItemCount: 0 });
    expect('nextCursor' in inv.body).toBe(true);
    expect(inv.body.truncated).toBeUndefined();
    expect(inv.body.totals).toBeUndefined();
    const bills = await getJson(BillsResponse, '/api/agent/bills?lines=true', full);
    expect(bills.body.bills.map((b) => b.id)).toEqual(['bill-3', 'bill-2', 'bill-1', 'bill-4']);
    expect(bills.body.bills.find((b) => b.id === 'bill-1')!.lines![0]).toMatchObject({ discountRate: null, discountAmount: null, lineSubtotal: null });
    for (const i of [...inv.body.invoices, ...bills.body.bills]) expect(i.invoiceNumber ?? '').not.toMatch(/^CN-/);
  });

  it('spec 4.3 filters over HTTP: status OR list with unknown values ignored, contactId, dateFrom/dateTo inclusive (due date fallback)', async () => {
    const k = await key();
    const st = await getJson(InvoicesResponse, '/api/agent/invoices?status=DRAFT,VOIDED,OVERDUE', k);
    expect(st.body.invoices.map((i) => i.id)).toEqual(['inv-6', 'inv-4']);
    const unknownOnly = await getJson(InvoicesResponse, '/api/agent/invoices?status=OVERDUE', k);
    expect(unknownOnly.body.totalCount).toBe(7);
    const contact = await getJson(InvoicesResponse, '/api/agent/invoices?contactId=both-x', k);
    expect(contact.body.invoices.map((i) => i.id)).toEqual(['inv-6']);
    const dates = await getJson(InvoicesResponse, '/api/agent/invoices?dateFrom=2026-01-31&dateTo=2026-01-31', k);
    expect(dates.body.invoices.map((i) => i.id)).toEqual(['inv-4', 'inv-3']);
  });

  it("issue 19: dueFrom/dueTo bound the due date and overdue=true keeps what is AUTHORISED, still owed and due before the organisation's today; totals and paging follow; bad values are 400s naming them", async () => {
    const k = await key();
    for (const list of ['invoices', 'bills'] as const) {
      // expectedDate is the due date (every seeded document has one).
      const all = (await getJson(null, `/api/agent/${list}?autoPaginate=true`, k)).body[list] as { id: string; expectedDate: string; amountDue: string; ledgerStatus: string }[];
      const due = (i: { expectedDate: string }) => i.expectedDate.slice(0, 10);
      // Today in Sydney is 2 March 2026 (15:00 UTC on the 1st).
      const overdue = all.filter((i) => i.ledgerStatus === 'AUTHORISED' && Number(i.amountDue) > 0 && due(i) < '2026-03-02').map((i) => i.id);
      const r = await getJson(null, `/api/agent/${list}?overdue=true&totals=true`, k);
      expect((r.body[list] as { id: string }[]).map((i) => i.id).sort(), list).toEqual(overdue.sort());
      expect(r.body.totalCount).toBe(overdue.length);
      const window = all.filter((i) => due(i) >= '2026-01-01' && due(i) <= '2026-02-15').map((i) => i.id);
      const w = await getJson(null, `/api/agent/${list}?dueFrom=2026-01-01&dueTo=2026-02-15&autoPaginate=true`, k);
      expect((w.body[list] as { id: string }[]).map((i) => i.id).sort(), list).toEqual(window.sort());
    }
    expect(overdueSeen(await getJson(null, '/api/agent/invoices?overdue=true', k))).toBeGreaterThan(0);
    for (const [q, parameter] of [
      ['dueFrom=2026-02-30', 'dueFrom'],
      ['dueTo=soon', 'dueTo'],
      ['overdue=maybe', 'overdue'],
      ['dueFrom=2026-03-01&dueTo=2026-02-01', 'dueFrom'],
    ] as const) {
      const bad = await getJson(null, `/api/agent/invoices?${q}`, k);
      expect(bad.status, q).toBe(400);
      expect(bad.body).toMatchObject({ error: 'bad_request', parameter });
    }
  });

  it('decisions: a malformed known parameter is a 400 bad_request naming it; unknown parameters are ignored', async () => {
    const k = await key();
    for (const [q, parameter] of [
      ['limit=0', 'limit'],
      ['limit=-3', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=ten', 'limit'],
      ['dateFrom=2024-02-30', 'dateFrom'],
      ['dateTo=31/01/2026', 'dateTo'],
      ['dateFrom=2026-02-01&dateTo=2026-01-01', 'dateFrom'],
      ['totals=yes', 'totals'],
      ['lines=2', 'lines'],
      ['autoPaginate=sure', 'autoPaginate'],
    ] as const) {
      const r = await getJson(null, `/api/agent/invoices?${q}`, k);
      expect(r.status, q).toBe(400);
      expect(r.body, q).toMatchObject({ error: 'bad_request', parameter });
    }
    expect((await api.get('/api/agent/invoices?foo=bar&limit=3', k)).status).toBe(200);
    const c = await getJson(null, '/api/agent/contacts?type=vendor', k);
    expect(c).toMatchObject({ status: 400, body: { error: 'bad_request', parameter: 'type' } });
    const d = await getJson(null, '/api/agent/account-balances?date=2026-02-29', k);
    expect(d).toMatchObject({ status: 400, body: { error: 'bad_request', parameter: 'date' } });
  });

  it('spec 8 / decisions: limit above 200 is capped at 200 (invoices and contacts); default page is 50', async () => {
    const agent = api.client(await api.key('big')).api.agent;
    const capped = await okBody(await agent.invoices.$get({ query: { limit: '100000' } }));
    expect(capped.invoices).toHaveLength(200);
    expect(capped.nextCursor).toEqual(expect.any(String));
    const dflt = await okBody(await agent.invoices.$get({ query: {} }));
    expect(dflt.invoices).toHaveLength(50);
    const contacts = await okBody(await agent.contacts.$get({ query: { limit: '201' } }));
    // 50 contacts in the bulk organisation, 2 sensitive (this key sees them: all scopes).
    expect(contacts.contacts).toHaveLength(50);
  });

  // ------------------------------------------------------------------ paging

  it('decisions: paging through nextCursor yields exactly the autoPaginate set, no duplicates or gaps (3,000 rows on one date), gated and not', async () => {
    for (const scopes of [SCOPES, NO_SENSITIVE]) {
      const k = await api.key('big', scopes);
      const auto = await getJson(InvoicesResponse, '/api/agent/invoices?autoPaginate=true&dateFrom=2026-01-15', k);
      expect(auto.body.nextCursor).toBeNull();
      expect(auto.body.truncated).toBeUndefined();
      const seen: string[] = [];
      let redacted = 0;
      let cursor: string | null = null;
      let pages = 0;
      do {
        const path: string = `/api/agent/invoices?dateFrom=2026-01-15&limit=200${cursor ? `&cursor=${cursor}` : ''}`;
        const p = await getJson(InvoicesResponse, path, k);
        expect(p.status).toBe(200);
        seen.push(...p.body.invoices.map((i) => i.id));
        redacted += p.body.redactedItemCount;
        expect(p.body.totalCount).toBe(3000);
        cursor = p.body.nextCursor;
        pages++;
      } while (cursor && pages < 40);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(auto.body.invoices.map((i) => i.id));
      expect(redacted).toBe(auto.body.redactedItemCount);
      expect(seen.length + redacted).toBe(3000);
      if (scopes === NO_SENSITIVE) expect(redacted).toBeGreaterThan(0);
      else expect(redacted).toBe(0);
    }
  });

  it('spec 4.3 autoPaginate: at most 5,000 rows with truncated true on overflow; cursor ignored (even a bad one); nextCursor null', async () => {
    const k = await api.key('big');
    const r = await getJson(InvoicesResponse, '/api/agent/invoices?autoPaginate=true&cursor=not-a-cursor&limit=3', k);
    expect(r.status).toBe(200);
    expect(r.body.invoices).toHaveLength(5000);
    expect(r.body.truncated).toBe(true);
    expect(r.body.nextCursor).toBeNull();
    expect(r.body.totalCount).toBe(5100);
    const all = await getJson(InvoicesResponse, '/api/agent/invoices?autoPaginate=true&dateFrom=2025-06-01', k);
    expect(all.body.truncated).toBeUndefined();
  });

  it('decisions: a tampered cursor is 400 invalid_cursor', async () => {
    const k = await key();
    const p = await getJson(InvoicesResponse, '/api/agent/invoices?limit=2', k);
    const c = p.body.nextCursor!;
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    const flipped = c.slice(0, -3) + (c.at(-3) === 'A' ? 'B' : 'A') + c.slice(-2);
    for (const bad of [flipped, `${c}x`, 'garbage', c.slice(0, 10)]) {
      const r = await getJson(null, `/api/agent/invoices?limit=2&cursor=${bad}`, k);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_cursor' });
    }
    expect((await api.get(`/api/agent/invoices?limit=2&cursor=${c}`, k)).status).toBe(200);
  });

  it("decisions: another organisation's cursor is 400 invalid_cursor (also for a partner key switching organisation)", async () => {
    const p = await getJson(InvoicesResponse, '/api/agent/invoices?limit=2', full);
    const r = await getJson(null, `/api/agent/invoices?limit=2&cursor=${p.body.nextCursor}`, o2);
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    const partner = await api.partner(['o1', 'o2']);
    const fromO1 = await getJson(InvoicesResponse, '/api/agent/invoices?limit=2', partner.key, { 'X-Service-Org-Id': 'o1' });
    expect(fromO1.body.invoices).toHaveLength(2);
    const onO2 = await getJson(null, `/api/agent/invoices?limit=2&cursor=${fromO1.body.nextCursor}`, partner.key, { 'X-Service-Org-Id': 'o2' });
    expect(onO2).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    const onO1 = await api.get(`/api/agent/invoices?limit=2&cursor=${fromO1.body.nextCursor}`, partner.key, { 'X-Service-Org-Id': 'o1' });
    expect(onO1.status).toBe(200);
  });

  it("decisions: another endpoint's cursor is 400 invalid_cursor", async () => {
    const k = await key();
    const bills = await getJson(BillsResponse, '/api/agent/bills?limit=1', k);
    const cn = await getJson(CreditNotesResponse, '/api/agent/credit-notes?limit=1', k);
    const contacts = await getJson(ContactsListResponse, '/api/agent/contacts?limit=1', k);
    for (const c of [bills.body.nextCursor, cn.body.nextCursor, contacts.body.nextCursor]) {
      expect(c).toEqual(expect.any(String));
      expect(await getJson(null, `/api/agent/invoices?cursor=${c}`, k)).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    }
    expect(await getJson(null, `/api/agent/purchase-orders?cursor=${cn.body.nextCursor}`, k)).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
  });

  it('decisions: a cursor used with other filters is 400 invalid_cursor; equivalent filters (order, case, unknown statuses) keep it valid', async () => {
    const k = await key();
    const p = await getJson(InvoicesResponse, '/api/agent/invoices?status=PAID,AUTHORISED&limit=1', k);
    const c = p.body.nextCursor!;
    for (const other of ['status=PAID', 'status=PAID,AUTHORISED&contactId=cust-a', 'status=PAID,AUTHORISED&dateFrom=2026-01-01', 'status=PAID,AUTHORISED&dateTo=2026-12-31', '']) {
      const r = await getJson(null, `/api/agent/invoices?${other}&limit=1&cursor=${c}`, k);
      expect(r, other).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    }
    // limit, lines and totals are not filters: they may change between pages.
    for (const same of ['status=AUTHORISED,PAID', 'status=paid,authorised,BOGUS', 'status=PAID&status=AUTHORISED', 'status=PAID,AUTHORISED&limit=5&lines=true&totals=true']) {
      expect((await api.get(`/api/agent/invoices?${same}&cursor=${c}`, k)).status, same).toBe(200);
    }
    const contacts = await getJson(ContactsListResponse, '/api/agent/contacts?type=customer&limit=1', k);
    const bad = await getJson(null, `/api/agent/contacts?type=supplier&limit=1&cursor=${contacts.body.nextCursor}`, k);
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
  });

  // ------------------------------------------------------------------ totals

  it('spec 2.4 totals over HTTP: single currency (zero-filled), mixed currency, empty set; never from the page', async () => {
    const k = await key();
    const single = await getJson(InvoicesResponse, '/api/agent/invoices?totals=true&dateFrom=2026-01-01&limit=1', k);
    expect(single.body.invoices).toHaveLength(1);
    expect(single.body.totals).toEqual({
      byStatus: {
        DRAFT: { count: 1, amount: '10' },
        SUBMITTED: { count: 0, amount: '0' },
        AUTHORISED: { count: 2, amount: '155.5' },
        PAID: { count: 2, amount: '2300.25' },
        VOIDED: { count: 1, amount: '77' },
        DELETED: { count: 0, amount: '0' },
      },
      grandTotal: { count: 6, amount: '2542.75' },
      currency: 'AUD',
    });
    const mixed = await getJson(InvoicesResponse, '/api/agent/invoices?totals=true', k);
    expect(mixed.body.totals).toMatchObject({ mixedCurrency: true, primaryCurrency: 'AUD', byStatus: null });
    const empty = await getJson(InvoicesResponse, '/api/agent/invoices?totals=true&contactId=nobody', k);
    expect(empty.body.totals).toMatchObject({ grandTotal: { count: 0, amount: '0' } });
    expect(Object.values(empty.body.totals!.byStatus!).every((b) => b.count === 0 && b.amount === '0')).toBe(true);
    expect(empty.body.totalsTruncated).toBeUndefined();
    const po = await getJson(PurchaseOrdersResponse, '/api/agent/purchase-orders?totals=true', k);
    expect(Object.keys(po.body.totals!.byStatus!)).toEqual(['DRAFT', 'SUBMITTED', 'AUTHORISED', 'BILLED', 'DELETED']);
  });

  // -------------------------------------------------------------- sensitive

  it('spec 4.3 rule 2-3 / 5.4 over HTTP: without READ_SENSITIVE sensitive contacts\' rows are dropped, totalCount counts them, redactedItemCount reports them; totals are not masked', async () => {
    const g = await getJson(InvoicesResponse, '/api/agent/invoices?totals=true&dateFrom=2026-01-01', gated);
    expect(g.body.invoices.map((i) => i.id)).toEqual(['inv-6', 'inv-4', 'inv-3', 'inv-1', 'inv-5']);
    expect(g.body).toMatchObject({ totalCount: 6, redactedItemCount: 1 });
    expect(g.body.totals!.grandTotal).toEqual({ count: 6, amount: '2542.75' });
    const withLines = await getJson(InvoicesResponse, '/api/agent/invoices?lines=true', gated);
    expect(withLines.body.invoices.map((i) => i.id)).toEqual(['inv-6', 'inv-4', 'inv-1', 'inv-7']);
    expect(withLines.body.redactedItemCount).toBe(3);
    const f = await getJson(InvoicesResponse, '/api/agent/invoices?lines=true', full);
    expect(f.body.redactedItemCount).toBe(0);
    expect(f.body.invoices).toHaveLength(7);
    const cn = await getJson(CreditNotesResponse, '/api/agent/credit-notes', gated);
    expect(cn.body).toMatchObject({ totalCount: 4, redactedItemCount: 1 });
    const po = await getJson(PurchaseOrdersResponse, '/api/agent/purchase-orders', gated);
    expect(po.body).toMatchObject({ totalCount: 3, redactedItemCount: 1 });
  });

  // ------------------------------------------------------------------ drills

  it('decisions: a drill of an unknown id or of another organisation\'s id is 404 not_found (never 403)', async () => {
    for (const path of [
      '/api/agent/credit-notes/nope',
      '/api/agent/credit-notes/o2-cn',
      '/api/agent/purchase-orders/nope',
      '/api/agent/purchase-orders/o2-po',
      '/api/agent/contacts/nope',
      '/api/agent/contacts/o2-cust',
    ]) {
      const r = await getJson(null, path, full);
      expect(r, path).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
    expect((await api.get('/api/agent/credit-notes/o2-cn', o2)).status).toBe(200);
    expect((await api.get('/api/agent/contacts/o2-cust', o2)).status).toBe(200);
  });

  it('spec 2.6 / 2.7 drills: credit note with allocations and lines, purchase order with lines; sensitive account codes withheld without READ_SENSITIVE', async () => {
    const cn = await getJson(CreditNoteDrillResponse, '/api/agent/credit-notes/cn-1', gated);
    expect(cn.body.creditNote).toMatchObject({ id: 'cn-1', total: '30', remainingCredit: '10', allocatedAmount: '20' });
    expect(cn.body.creditNote.allocations).toHaveLength(1);
    expect(cn.body.creditNote.lines.map((l) => l.accountCode)).toEqual(['200', null]);
    expect(cn.body.redactedItemCount).toBe(1);
    const cnFull = await getJson(CreditNoteDrillResponse, '/api/agent/credit-notes/cn-1', full);
    expect(cnFull.body.redactedItemCount).toBe(0);
    const po = await getJson(PurchaseOrderDrillResponse, '/api/agent/purchase-orders/po-1', full);
    expect(po.body.purchaseOrder).toMatchObject({ id: 'po-1', status: 'AUTHORISED', total: '110', subTotal: '100', totalTax: '10' });
    expect(po.body.purchaseOrder.lines).toHaveLength(2);
    // A sensitive supplier's order is withheld from gated keys, in the drill as in the list.
    expect((await api.get('/api/agent/purchase-orders/po-3', gated)).status).toBe(404);
    expect((await api.get('/api/agent/purchase-orders/po-3', full)).status).toBe(200);
  });

  // ---------------------------------------------------------------- contacts

  it('spec 4.4 contacts over HTTP: type, sort, totals by type summing to totalCount, sensitive contacts dropped', async () => {
    const k = await key(NO_SENSITIVE);
    const list = await getJson(ContactsListResponse, '/api/agent/contacts?totals=true', k);
    expect(list.body.contacts.map((c) => c.id)).toEqual(['both-x', 'sup-b', 'cust-a', 'none-n']);
    expect(list.body).toMatchObject({ totalCount: 6, redactedItemCount: 2, nextCursor: null });
    expect(list.body.totals).toEqual({ byType: { customer: 2, supplier: 2, both: 1, neither: 1 }, grandTotal: { count: 6 } });
    const customers = await getJson(ContactsListResponse, '/api/agent/contacts?type=customer&sort=revenue_desc', full);
    expect(customers.body.contacts.map((c) => c.id)).toEqual(['both-x', 'cust-a', 'cust-s']);
    const spend = await getJson(ContactsListResponse, '/api/agent/contacts?type=supplier&sort=spend_desc', full);
    expect(spend.body.contacts.map((c) => c.id)).toEqual(['both-x', 'sup-s', 'sup-b']);
    const paged = await getJson(ContactsListResponse, '/api/agent/contacts?limit=2', k);
    expect(paged.body.contacts).toHaveLength(2);
    const next = await getJson(ContactsListResponse, `/api/agent/contacts?limit=2&cursor=${paged.body.nextCursor}`, k);
    expect(next.body.contacts.map((c) => c.id)).toEqual(['cust-a', 'none-n']);
    expect(next.body.nextCursor).toBeNull();
    expect(paged.body.redactedItemCount + next.body.redactedItemCount).toBe(2);
  });

  it('spec 2.5 / 4.5 contact drill over HTTP: sums, analytics, recentPaidInvoices masked without READ_SENSITIVE; a sensitive contact is 404 to such keys', async () => {
    const d = await getJson(ContactDrillResponse, '/api/agent/contacts/cust-a', gated);
    expect(d.body.contact).toMatchObject({ availableCredit: '10', revenueAllTime: '380.25', abcClass: 'A', expectedLifetimeYears: 5 });
    expect(d.body.contact.recentPaidInvoices[0]).toMatchObject({ accountName: 'Sensitive account', accountCode: null });
    expect(d.body.redactedItemCount).toBe(1);
    expect((await getJson(ContactDrillResponse, '/api/agent/contacts/cust-a', full)).body.redactedItemCount).toBe(0);
    expect((await api.get('/api/agent/contacts/cust-s', gated)).status).toBe(404);
    expect((await api.get('/api/agent/contacts/cust-s', full)).status).toBe(200);
  });

  // ------------------------------------------------------- bank and balances

  it('decisions bank-accounts / account-balances over HTTP: shapes, sensitive names rewritten, default date is today in the organisation\'s time zone', async () => {
    const bank = await getJson(BankAccountsResponse, '/api/agent/bank-accounts', gated);
    expect(bank.body.bankAccounts.map((b) => b.name)).toEqual(['Operating', 'Sensitive account']);
    expect(bank.body.redactedItemCount).toBe(1);
    const bal = await getJson(AccountBalancesResponse, '/api/agent/account-balances', gated);
    expect(bal.body.asOfDate).toBe('2026-03-02');
    expect(bal.body.currency).toBe('AUD');
    expect(bal.body.redactedItemCount).toBe(2);
    const dated = await getJson(AccountBalancesResponse, '/api/agent/account-balances?date=2026-01-31', full);
    expect(dated.body.asOfDate).toBe('2026-01-31');
    expect(dated.body.accounts.find((a) => a.code === '610')!.balance).toBe('110');
    expect(dated.body.redactedItemCount).toBe(0);
  });

  it('spec 2.1 / 4.2: list bodies carry the envelope (ledgerAlert when no ledger is connected) and the X-Service headers', async () => {
    const res = await api.get('/api/agent/invoices?limit=1', full);
    expect(res.headers.get('x-service-subscription')).toBe('active');
    const body = (await res.json()) as { ledgerAlert?: { kind: string } };
    expect(body.ledgerAlert?.kind).toBe('no_connection');
  });

  it('spec 1: every money field in every response is a canonical decimal string', async () => {
    const k = await key();
    const moneyKeys = new Set(['amount', 'lineAmount', 'taxAmount', 'quantity', 'unitAmount', 'discountRate', 'discountAmount', 'lineSubtotal',
      'total', 'remainingCredit', 'allocatedAmount', 'subTotal', 'totalTax', 'ltv', 'availableCredit', 'revenueTrailing12m', 'revenueAllTime',
      'projectedLtv', 'historicalLtv', 'paymentDelayMedianDays', 'reconciledBalance', 'statementBalance', 'balance', 'amountDue']);
    const found: unknown[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') for (const [key2, x] of Object.entries(v)) (moneyKeys.has(key2) && x !== null ? found.push(x) : walk(x));
    };
    for (const path of [
      '/api/agent/invoices?lines=true&totals=true', '/api/agent/bills?lines=true&totals=true', '/api/agent/credit-notes?totals=true',
      '/api/agent/credit-notes/cn-1', '/api/agent/purchase-orders?totals=true', '/api/agent/purchase-orders/po-1', '/api/agent/contacts',
      '/api/agent/contacts/cust-a', '/api/agent/bank-accounts', '/api/agent/account-balances',
    ]) {
      walk((await getJson(null, path, k)).body);
    }
    expect(found.length).toBeGreaterThan(100);
    for (const m of found) {
      expect(typeof m).toBe('string');
      expect(isCanonical(m as string), String(m)).toBe(true);
    }
  });
});
