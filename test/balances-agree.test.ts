/**
 * One figure, one meaning: every endpoint that shows a bank account's
 * statementBalance or reconciledBalance shows the same value for it, account
 * by account, on both demo organisations, on both backends
 * (decisions.md "Bank balances"; docs/balances.md). The opening cash the
 * forecast starts from is the sum of what the accounts contribute, says which
 * balance each account used and why, and is the cash today of the daily
 * summary and the forecast's startingCash. And receivables and payables:
 * the amounts still owed (amountDue) of the open invoices and bills, less the
 * credit notes not yet allocated, are the balances of the ledger's Accounts
 * Receivable and Accounts Payable accounts (account-balances); the daily
 * summary's AR total is the same sum.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from './helpers/http.js';
import { BACKENDS } from './helpers/store.js';
import { NOW } from './helpers/ledger.js';
import { startDemoApi } from './helpers/demo-books.js';
import { DEMO_ORGS } from '../src/server/demo.js';
import { dec } from '../src/domain/money.js';
import { unallocatedCredit } from '../src/store/queries/daily-summary.js';
import { rows } from '../src/store/db.js';
import { sql } from 'drizzle-orm';

describe.each(BACKENDS)('bank balances agree on every endpoint, both demo organisations (%s)', (kind) => {
  let api: TestApi;
  let partner: string;
  beforeAll(async () => {
    // The demo as setupDemo leaves it, set up once per run and backend (helpers/fixtures.ts).
    const demo = await startDemoApi(kind, NOW);
    api = demo.api;
    partner = demo.demo.keys.partner;
  }, 300_000);
  afterAll(async () => {
    await api?.close();
  });
  /** A 200 answer of `path` for the organisation, through the demo partner key. */
  const getAs = async (orgId: string, path: string) => {
    const res = await api.get(path, partner, { 'x-service-org-id': orgId });
    expect(res.status, path).toBe(200);
    return res.json();
  };

  it.each(DEMO_ORGS.map((o) => [o.name, o.id] as const))('%s', async (_name, orgId) => {
    const get = (path: string) => getAs(orgId, path);
    const bank = await get('/api/agent/bank-accounts');
    const cp = await get('/api/agent/cash-position');
    const summary = await get('/api/agent/daily-summary');
    const forecast = await get('/api/agent/forecast');

    expect(bank.bankAccounts.length).toBeGreaterThan(1);
    expect(cp.accounts.map((a: { id: string }) => a.id)).toEqual(bank.bankAccounts.map((a: { id: string }) => a.id));
    for (const b of bank.bankAccounts) {
      const c = cp.accounts.find((a: { id: string }) => a.id === b.id);
      expect({ id: c.id, statementBalance: c.statementBalance, reconciledBalance: c.reconciledBalance, balanceSource: c.balanceSource }).toEqual({
        id: b.id,
        statementBalance: b.statementBalance,
        reconciledBalance: b.reconciledBalance,
        balanceSource: b.balanceSource,
      });
      // The forecast starts the account from its statement balance, and says which balance and why.
      expect(c.effectiveBalance).toBe(b.statementBalance);
      expect(c.basis).toMatch(b.balanceSource === 'STATEMENT' ? /statement balance/ : /reconciled balance/);
      expect(Date.parse(b.balanceSyncedAt)).toBeLessThanOrEqual(NOW.getTime());
    }
    // No override on the demo: opening cash = the sum of the accounts' statement balances.
    expect(cp.source).toBe('ledger_reconciled');
    const sum = bank.bankAccounts.reduce((t: ReturnType<typeof dec>, b: { statementBalance: string }) => t.plus(b.statementBalance), dec(0));
    expect(dec(cp.effectiveStartingCash).eq(sum)).toBe(true);
    expect(cp.startingCash).toBe(cp.effectiveStartingCash);
    // The adjustment is exactly the statement-minus-reconciled of the RECONCILED accounts, plus the STATEMENT accounts' whole balance over ledgerReconciledTotal.
    expect(dec(cp.adjustment).eq(dec(cp.effectiveStartingCash).minus(cp.ledgerReconciledTotal))).toBe(true);
    expect(summary.cashToday).toEqual({ amount: cp.effectiveStartingCash, currency: cp.currency, source: 'ledger_reconciled' });
    expect(forecast.startingCash).toBe(cp.startingCash);
  });
  it.each(DEMO_ORGS.map((o) => [o.name, o.id] as const))('%s: AR and AP, as still owed, agree with the ledger accounts', async (_name, orgId) => {
    const get = (path: string) => getAs(orgId, path);
    const summary = await get('/api/agent/daily-summary');
    const balances = await get('/api/agent/account-balances');
    const account = (type: string) => balances.accounts.find((a: { type: string; name: string }) => a.type === type && /payable|receivable/i.test(a.name));
    const owed = async (path: string, field: string) => {
      const body = await get(`${path}?status=AUTHORISED&autoPaginate=true`);
      expect(body.truncated).toBeUndefined();
      const list = body[field] as { amount: string; amountPaid: string; amountCredited: string; amountDue: string; currency: string }[];
      const rates = new Map(
        (await rows<{ id: string; rate: string | null }>(api.store.db, sql`select id, currency_rate::text as rate from cash_items where org_id = ${orgId}`)).map((r) => [r.id, r.rate]),
      );
      let owed = dec(0);
      for (const i of list as (typeof list[number] & { id: string })[]) {
        expect(dec(i.amount).minus(i.amountPaid).minus(i.amountCredited).eq(i.amountDue)).toBe(true);
        // In the base currency with the document's own rate (foreign units per base unit), to the cent.
        owed = owed.plus(i.currency === summary.cashToday.currency ? dec(i.amountDue) : dec(i.amountDue).div(rates.get(i.id)!).toDecimalPlaces(2));
      }
      return owed;
    };
    const ar = await owed('/api/agent/invoices', 'invoices');
    const ap = await owed('/api/agent/bills', 'bills');
    // The daily summary's AR is the sum of amountDue of open invoices.
    expect(dec(summary.ar.total.amount).eq(ar)).toBe(true);
    // Less the credit not yet allocated (credit notes and overpayments, in the base currency with each one's own rate): the ledger's accounts.
    const arCredit = summary.ar.unallocatedCredit;
    const arCredits = await unallocatedCredit(api.store.db, orgId, 'AR');
    expect(arCredit).toEqual(arCredits.account);
    expect(summary.ar.unallocatedPrepayments).toEqual(arCredits.prepayments);
    // The demo holds an overpayment not yet allocated, so the overpayments are part of what agrees.
    const [op] = await rows<{ n: number | string }>(
      api.store.db,
      sql`select count(*) as n from cash_items where org_id = ${orgId} and ledger_type = 'RECEIVE-OVERPAYMENT' and ledger_status = 'AUTHORISED' and amount_due > 0`,
    );
    expect(Number(op!.n)).toBeGreaterThan(0);
    expect(dec(account('CURRENT').balance).eq(ar.minus(arCredit.amount))).toBe(true);
    const apCredit = (await unallocatedCredit(api.store.db, orgId, 'AP')).account;
    expect(dec(account('CURRLIAB').balance).eq(ap.minus(apCredit.amount))).toBe(true);
  });
});
