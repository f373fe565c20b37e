/**
 * The live sync against the shipped Xero-compatible server (issue 6; docs/sync.md):
 * a full sync stores exactly what importing the same bodies stores (both
 * engines); a second run is incremental (If-Modified-Since) and converges;
 * paging reaches the end; Xero's limits are respected; tokens are refreshed
 * before expiry and on a 401, rotated refresh tokens are kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import * as s from '../src/store/schema.js';
import { syncOrganisation } from '../src/ledger/sync/sync.js';
import { connectedOrg, importedOrg, ledgerCounts, ledgerRows, syncOpts, testKeyring, xeroServer } from './helpers/ledger.js';
import { loadTokens } from '../src/ledger/tokens.js';
import type { XeroServer } from '../src/xero-server/server.js';

describe.each(BACKENDS)('full sync on %s', (kind) => {
  let store: TestStore;
  let server: XeroServer;
  beforeAll(async () => {
    store = await freshStore(kind);
    server = await xeroServer();
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
  });

  it('stores what an import of the same bodies stores, then converges on a re-run (incremental, nothing new)', async () => {
    const db = store.db;
    const orgId = await connectedOrg(db, server);
    const r = await syncOrganisation(db, orgId, syncOpts(server));
    expect(r.outcome).toBe('ok');
    expect(r.refreshes).toBe(1); // the connection had no access token yet
    const ref = await importedOrg(db);
    const synced = await ledgerRows(db, orgId);
    expect(synced).toEqual(await ledgerRows(db, ref));
    expect((await ledgerCounts(db, orgId)).cash_items).toBeGreaterThan(100);

    const before = server.requests.length;
    const again = await syncOrganisation(db, orgId, syncOpts(server));
    expect(again.outcome).toBe('ok');
    expect(await ledgerRows(db, orgId)).toEqual(synced);
    // Incremental: every paged call of the second run carried If-Modified-Since, and read little.
    const second = server.requests.slice(before).filter((q) => /^\/(Contacts|Invoices|Payments)$/.test(q.path));
    expect(second.length).toBeGreaterThan(0);
    for (const q of second) expect(q.ifModifiedSince).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(again.records.Invoices ?? 0).toBeLessThan((r.records.Invoices ?? 0) / 10);

    const [conn] = await db.select().from(s.ledgerConnections).where(eq(s.ledgerConnections.orgId, orgId));
    expect(conn!.lastSuccessfulSync).toBeInstanceOf(Date);
    expect(conn!.tokenState).toBe('ok');
    expect(conn!.consecutiveFailures).toBe(0);
  });
});

describe('sync behaviour (PGlite)', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await freshStore('pglite');
  });
  afterAll(async () => {
    await store?.close();
  });

  it('pages to the end with a small page size, and picks up a changed record by If-Modified-Since', async () => {
    const server = await xeroServer({ limits: { perMinute: 1000, concurrent: 5 } });
    try {
      const db = store.db;
      const orgId = await connectedOrg(db, server, 'Paged');
      const r = await syncOrganisation(db, orgId, syncOpts(server, { pageSize: 25, client: { perMinute: 1000 } }));
      expect(r.outcome).toBe('ok');
      const pagedInvoiceCalls = server.requests.filter((q) => q.path === '/Invoices').length;
      expect(pagedInvoiceCalls).toBeGreaterThan(5);
      const ref = await importedOrg(db);
      expect(await ledgerRows(db, orgId)).toEqual(await ledgerRows(db, ref));

      // The ledger changes an invoice: the next run brings it in.
      const inv = server.data.records.Invoices.find((i) => i.Status === 'AUTHORISED')!;
      server.upsert('Invoices', { ...inv, Status: 'PAID', AmountDue: 0, AmountPaid: inv.Total, FullyPaidOnDate: inv.DueDate });
      const again = await syncOrganisation(db, orgId, syncOpts(server, { pageSize: 25 }));
      expect(again.outcome).toBe('ok');
      const [row] = await db.select().from(s.cashItems).where(eq(s.cashItems.id, String(inv.InvoiceID)));
      expect(row!.ledgerStatus).toBe('PAID');
      expect(row!.amountDue).toBe('0');
    } finally {
      await server.close();
    }
  });

  it('reads overpayments and prepayments as credits, and the whole list of repeating invoices each run (a schedule removed in the ledger is removed here)', async () => {
    const server = await xeroServer({ limits: { perMinute: 1000, concurrent: 5 } });
    try {
      const db = store.db;
      const orgId = await connectedOrg(db, server, 'Schedules');
      const r = await syncOrganisation(db, orgId, syncOpts(server, { client: { perMinute: 1000 } }));
      expect(r.outcome).toBe('ok');
      expect(r.records.Overpayments).toBeGreaterThan(0);
      expect(r.records.Prepayments).toBeGreaterThan(0);
      expect(r.records.RepeatingInvoices).toBeGreaterThan(0);
      const credits = await db.select().from(s.cashItems).where(and(eq(s.cashItems.orgId, orgId), eq(s.cashItems.source, 'LEDGER_OVERPAYMENT')));
      expect(credits.length).toBe(server.data.records.Overpayments.length);
      const stored = async () => (await db.select().from(s.repeatingInvoices).where(eq(s.repeatingInvoices.orgId, orgId))).map((x) => x.id).sort();
      const ids = server.data.records.RepeatingInvoices.map((x) => String(x.RepeatingInvoiceID)).sort();
      expect(await stored()).toEqual(ids);

      // The overpayment is allocated in the ledger: the next run brings in what is left of it.
      const op = server.data.records.Overpayments[0]!;
      server.upsert('Overpayments', { ...op, RemainingCredit: 0, Status: 'PAID', Allocations: [{ Amount: op.Total, Date: op.Date, Invoice: { InvoiceID: 'inv-x', InvoiceNumber: 'INV-X' } }] });
      // A new schedule, and the old one removed.
      const extra = { ...server.data.records.RepeatingInvoices[0]!, RepeatingInvoiceID: 'rep-new', Reference: 'Cleaning' };
      server.remove('RepeatingInvoices', ids[0]!);
      server.upsert('RepeatingInvoices', extra);
      const again = await syncOrganisation(db, orgId, syncOpts(server, { client: { perMinute: 1000 } }));
      expect(again.outcome).toBe('ok');
      expect(await stored()).toEqual(['rep-new', ...ids.slice(1)].sort());
      const [row] = await db.select().from(s.cashItems).where(and(eq(s.cashItems.orgId, orgId), eq(s.cashItems.id, String(op.OverpaymentID))));
      expect(row).toMatchObject({ ledgerStatus: 'PAID', amountDue: '0' });
      const allocations = await db
        .select()
        .from(s.creditNoteAllocations)
        .where(and(eq(s.creditNoteAllocations.orgId, orgId), eq(s.creditNoteAllocations.creditNoteId, String(op.OverpaymentID))));
      expect(allocations.map((a) => a.invoiceId)).toEqual(['inv-x']);
    } finally {
      await server.close();
    }
  });

  it("respects Xero's limits: never more than 5 calls in flight, never over the per-minute allowance (no 429)", async () => {
    // A shortened "minute" (2 s, 8 calls) so the test does not wait a real minute.
    const server = await xeroServer({ limits: { perMinute: 8, concurrent: 5, windowMs: 2_000 } });
    try {
      const db = store.db;
      const orgId = await connectedOrg(db, server, 'Limited');
      const r = await syncOrganisation(db, orgId, syncOpts(server, { pageSize: 200, resources: ['Contacts', 'Invoices', 'Payments', 'BankTransactions'], client: { perMinute: 8, windowMs: 2_000 } }));
      expect(r.outcome).toBe('ok');
      expect(server.requests.length).toBeGreaterThan(8);
      expect(server.requests.filter((q) => q.status === 429)).toEqual([]);
      expect(Math.max(...server.requests.map((q) => q.inFlight))).toBeLessThanOrEqual(5);
    } finally {
      await server.close();
    }
  });

  it('refreshes an access token near expiry and after a 401, and keeps the rotated refresh token', async () => {
    const server = await xeroServer();
    try {
      const db = store.db;
      const orgId = await connectedOrg(db, server, 'Tokens');
      const first = await syncOrganisation(db, orgId, syncOpts(server, { resources: ['Contacts'] }));
      expect(first.refreshes).toBe(1);
      const c1 = await loadTokens(db, testKeyring, orgId);
      // A stored token still valid for an hour is reused.
      const reuse = await syncOrganisation(db, orgId, syncOpts(server, { resources: ['Contacts'] }));
      expect(reuse.refreshes).toBe(0);
      // One about to expire (less than the margin left) is refreshed first.
      await db.update(s.ledgerConnections).set({ accessTokenExpiresAt: new Date(Date.now() + 30_000) }).where(eq(s.ledgerConnections.orgId, orgId));
      const near = await syncOrganisation(db, orgId, syncOpts(server, { resources: ['Contacts'] }));
      expect(near.refreshes).toBe(1);
      const c2 = await loadTokens(db, testKeyring, orgId);
      // The plain tokens compared (their sealed forms differ at every write anyway).
      expect(c2!.refreshToken).toMatch(/^xrt_/);
      expect(c2!.refreshToken).not.toBe(c1!.refreshToken);
      // The server expires every token it issued: the 401 leads to a refresh and the run succeeds.
      server.expireAccessTokens();
      const after401 = await syncOrganisation(db, orgId, syncOpts(server, { resources: ['Contacts'] }));
      expect(after401.outcome).toBe('ok');
      expect(after401.refreshes).toBe(1);
      expect(server.requests.some((q) => q.status === 401)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
