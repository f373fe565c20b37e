/**
 * GET /api/agent/account-balances without the ledger's Journals (docs/sync.md
 * "What Xero may not let Cashline read"): the same demo business synced from
 * the shipped Xero-compatible server twice, once whole and once with Journals
 * left out. Without journals the answer says basis documents and lists only
 * the accounts the documents determine, each with the figure the other
 * endpoints give for it: the bank accounts as /bank-accounts has them today,
 * the receivables and payables control accounts as the aged totals less the
 * unallocated credit; and, today and at a past date, the balances the
 * journals give for the same accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { startTestApi, type TestApi } from './helpers/http.js';
import { BACKENDS } from './helpers/store.js';
import { connectedOrg, NOW, syncOpts, xeroServer } from './helpers/ledger.js';
import { rows } from '../src/store/db.js';
import { dec } from '../src/domain/money.js';
import { addDays } from '../src/domain/calendar.js';
import { SYNC_RESOURCES, syncOrganisation } from '../src/ledger/sync/sync.js';
import { loadLiabilityLines } from '../src/store/queries/forecast-input.js';
import type { XeroServer } from '../src/xero-server/server.js';

type Balance = { code: string | null; name: string; type: string; class: string; balance: string };

describe.each(BACKENDS)('account balances from the documents when the journals are not available (%s)', (kind) => {
  let api: TestApi;
  let server: XeroServer;
  let withJournals: string;
  let without: string;
  let keyJ: string;
  let keyD: string;
  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW.toISOString() });
    server = await xeroServer();
    withJournals = await connectedOrg(api.store.db, server, 'With journals');
    expect((await syncOrganisation(api.store.db, withJournals, syncOpts(server))).outcome).toBe('ok');
    without = await connectedOrg(api.store.db, server, 'Without journals');
    const r = await syncOrganisation(api.store.db, without, syncOpts(server, { resources: SYNC_RESOURCES.filter((x) => x !== 'Journals') }));
    expect(r.outcome).toBe('ok');
    [keyJ, keyD] = [await api.key(withJournals), await api.key(without)];
  }, 300_000);
  afterAll(async () => {
    await api?.close();
    await server?.close();
  });
  const get = async (path: string, key: string) => {
    const res = await api.get(path, key);
    expect(res.status, path).toBe(200);
    return res.json();
  };
  const byName = (list: Balance[], name: string) => list.find((a) => a.name === name);

  it('the control accounts carry Xero SystemAccount (DEBTORS, CREDITORS) from the sync', async () => {
    const marked = await rows<{ code: string; system_account: string }>(
      api.store.db,
      sql`select code, system_account from accounts where org_id = ${without} and system_account in ('DEBTORS', 'CREDITORS') order by code`,
    );
    expect(marked).toEqual([
      { code: '610', system_account: 'DEBTORS' },
      { code: '800', system_account: 'CREDITORS' },
    ]);
  });

  it('with journals: basis journals, every balance-sheet account, no note', async () => {
    const b = await get('/api/agent/account-balances', keyJ);
    expect(b.basis).toBe('journals');
    expect(b.note).toBeUndefined();
    expect(b.accounts.some((a: Balance) => a.class === 'EQUITY')).toBe(true);
    expect(b.accounts.some((a: Balance) => a.type === 'TERMLIAB')).toBe(true);
  });

  it('without journals: basis documents; the bank accounts as /bank-accounts has them, AR and AP as the aged totals less unallocated credit; the rest left out', async () => {
    const b = await get('/api/agent/account-balances', keyD);
    expect(b.basis).toBe('documents');
    expect(b.note).toMatch(/journals are not available/);
    const accounts = b.accounts as Balance[];
    const bank = (await get('/api/agent/bank-accounts', keyD)).bankAccounts as { name: string; currency: string; statementBalance: string }[];
    const cp = await get('/api/agent/cash-position', keyD);
    expect(bank.length).toBeGreaterThan(1);
    const bankRows = accounts.filter((a) => a.type === 'BANK');
    expect(bankRows.map((a) => a.name).sort()).toEqual(bank.filter((x) => x.currency === b.currency).map((x) => x.name).sort());
    for (const x of bank) {
      expect(byName(accounts, x.name)?.balance, x.name).toBe(x.statementBalance);
      expect(cp.accounts.find((a: { name: string }) => a.name === x.name).effectiveBalance).toBe(x.statementBalance);
    }
    const summary = await get('/api/agent/daily-summary', keyD);
    const ar = await get('/api/agent/receivables/aged?autoPaginate=true', keyD);
    const ap = await get('/api/agent/payables/aged?autoPaginate=true', keyD);
    expect(ar.asOfDate).toBe(b.asOfDate);
    expect(dec(ar.totals.total).gt(0)).toBe(true);
    expect(dec(summary.ar.unallocatedCredit.amount).gt(0)).toBe(true); // the demo's overpayment: the credit is part of what agrees
    const receivable = byName(accounts, 'Accounts Receivable')!;
    expect(receivable).toMatchObject({ code: '610', type: 'CURRENT', class: 'ASSET' });
    expect(dec(receivable.balance).eq(dec(ar.totals.total).minus(summary.ar.unallocatedCredit.amount))).toBe(true);
    const payable = byName(accounts, 'Accounts Payable')!;
    expect(payable).toMatchObject({ code: '800', type: 'CURRLIAB', class: 'LIABILITY' });
    const [apCredit] = await rows<{ amount: string | null }>(
      api.store.db,
      sql`select sum(amount_due) as amount from cash_items where org_id = ${without} and ledger_type in ('ACCPAYCREDIT', 'SPEND-OVERPAYMENT') and ledger_status = 'AUTHORISED' and amount_due > 0`,
    );
    expect(dec(payable.balance).eq(dec(ap.totals.total).minus(apCredit?.amount ?? '0'))).toBe(true);
    // The GST account, from the documents' tax (what the forecast reads its returns from), as the journals have it.
    const gst = byName(accounts, 'GST')!;
    expect(gst).toMatchObject({ class: 'LIABILITY' });
    expect(gst.balance).toBe(byName((await get('/api/agent/account-balances', keyJ)).accounts, 'GST')?.balance);
    // Nothing else the documents do not determine: no equity, loan, tax withheld or other asset.
    expect(accounts.length).toBe(bankRows.length + 3);
    expect(accounts.some((a) => a.class === 'EQUITY' || a.type === 'TERMLIAB' || a.name === 'PAYG Withholdings Payable')).toBe(false);
  });

  it.each([
    ['today', null],
    ['a past date', 45],
    ['a year ago', 365],
  ] as const)('at %s the documents give what the journals give for the same accounts', async (_label, back) => {
    const q = back === null ? '' : `?date=${addDays(NOW.toISOString().slice(0, 10), -back)}`;
    const j = await get(`/api/agent/account-balances${q}`, keyJ);
    const d = await get(`/api/agent/account-balances${q}`, keyD);
    expect(d.asOfDate).toBe(j.asOfDate);
    expect(d.accounts.length).toBeGreaterThan(2);
    for (const a of d.accounts as Balance[]) expect({ name: a.name, balance: a.balance }).toEqual({ name: a.name, balance: byName(j.accounts, a.name)?.balance });
  });

  it('the GST account the forecast settles returns against (liabilities.ts): from the documents, what the journals say it owed at every day, every return included', async () => {
    const today = NOW.toISOString().slice(0, 10);
    const [fromJournals, fromDocuments] = [await loadLiabilityLines(api.store.db, withJournals, today), await loadLiabilityLines(api.store.db, without, today)];
    const [gst] = await rows<{ id: string }>(api.store.db, sql`select id from accounts where org_id = ${without} and system_account = 'GST'`);
    expect(new Set(fromDocuments.map((l) => l.accountId))).toEqual(new Set([gst!.id]));
    // What it owed after each day: the running sum of the lines.
    const owed = (lines: { accountId: string; date: string; amount: string }[]) => {
      let b = dec(0);
      return lines.filter((l) => l.accountId === gst!.id).map((l) => `${l.date} ${(b = b.plus(l.amount)).toFixed(2)}`);
    };
    const j = owed(fromJournals);
    expect(j.length).toBeGreaterThan(300);
    expect(owed(fromDocuments)).toEqual(j);
    // The returns are among them (the bank's payments coded to the account).
    const [returns] = await rows<{ n: number }>(
      api.store.db,
      sql`select count(*)::int as n from bank_transactions t join accounts a on a.org_id = t.org_id and a.code = t.lines->0->>'accountCode'
          where t.org_id = ${without} and a.system_account = 'GST' and t.type like 'SPEND%'`,
    );
    expect(returns!.n).toBeGreaterThan(3);
  });
});
