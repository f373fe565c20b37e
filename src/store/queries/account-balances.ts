/**
 * Account balances as at a date (decisions.md "account-balances"), on one of
 * two bases (`basis`):
 * - journals: the balance-sheet accounts (class ASSET, LIABILITY, EQUITY)
 *   with the sum of their journal lines dated up to and including
 *   `asOfDate`. Xero journal lines are debit-positive. Every ACTIVE account
 *   is listed (zero when it has no lines); archived accounts only with a
 *   non-zero balance. Journal lines without an account id are matched by
 *   account code.
 * - documents: the organisation has no journal lines (the ledger's Journals
 *   are not available to Cashline: a scope not granted, an endpoint Xero
 *   keeps for other apps, an import without them; docs/sync.md "What Xero
 *   may not let Cashline read"). Only the accounts the documents determine
 *   are listed, each with the figure the other endpoints give for it: the
 *   base-currency bank accounts from the bank summary and the bank movements
 *   (actuals.ts `balancesAtStartOf` over raw-ledger.ts `loadMovementsSince`,
 *   what the forecast's accuracy measures from), and the receivables and
 *   payables control accounts (Xero's SystemAccount DEBTORS and CREDITORS)
 *   from the open invoices, bills and credits (daily-summary.ts
 *   `controlAccountAt`, the aged definition), and the GST account (Xero's
 *   SystemAccount GST) from the documents' tax and the bank transactions
 *   coded to it (forecast-input.ts `gstFromDocuments`, what the forecast
 *   reads the GST returns from without journals). The rest are omitted, not zero.
 * Balances are reported in the account's natural sign (ASSET debit-positive,
 * LIABILITY and EQUITY credit-positive), as a balance sheet shows them.
 * Names of sensitive accounts become `Sensitive account` for keys without
 * READ_SENSITIVE.
 */
import { sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import { addDays } from '../../domain/calendar.js';
import { balancesAtStartOf, movementsOf } from '../../domain/forecast/actuals.js';
import { toDay } from '../../domain/forecast/days.js';
import { canonical, dec, type Dec } from '../../domain/money.js';
import type { AccountBalance } from '../../schemas/ledger.js';
import { SENSITIVE_ACCOUNT as SENSITIVE_ACCOUNT_NAME } from '../../domain/sensitive.js';
import { controlAccountAt } from './daily-summary.js';
import { loadMovementsSince } from './raw-ledger.js';
import { gstFromDocuments } from './forecast-input.js';

/** Which figures the balances are: the journal lines, or (without any) the documents. */
export type BalancesBasis = 'journals' | 'documents';

type AccountRow = {
  id: string;
  code: string | null;
  name: string;
  type: string;
  class: string;
  status: string;
  is_sensitive: boolean;
  system_account: string | null;
  currency: string | null;
};

/** The organisation's balance-sheet accounts, by code then id. */
const BALANCE_SHEET = (orgId: string) =>
  sql`from accounts a where a.org_id = ${orgId} and a.class in ('ASSET', 'LIABILITY', 'EQUITY') order by a.code nulls last, a.id`;

export async function accountBalances(
  db: Db,
  input: { orgId: string; asOfDate: string; gate: boolean },
): Promise<{ asOfDate: string; currency: string; accounts: AccountBalance[]; redactedItemCount: number; basis: BalancesBasis }> {
  const [org] = await rows<{ base_currency: string; journals: boolean }>(
    db,
    sql`select base_currency, exists (select 1 from journal_lines j where j.org_id = ${input.orgId}) as journals from organisations where id = ${input.orgId}`,
  );
  const currency = org?.base_currency ?? 'AUD';
  const basis: BalancesBasis = org?.journals ? 'journals' : 'documents';
  const nets = basis === 'journals' ? await fromJournals(db, input) : await fromDocuments(db, input, currency);
  let redacted = 0;
  const accounts: AccountBalance[] = [];
  for (const { account: r, net } of nets) {
    if (r.status !== 'ACTIVE' && net.isZero()) continue;
    const masked = input.gate && r.is_sensitive;
    if (masked) redacted++;
    accounts.push({
      code: r.code,
      name: masked ? SENSITIVE_ACCOUNT_NAME : r.name,
      type: r.type,
      class: r.class,
      balance: canonical(r.class === 'ASSET' ? net : net.negated()),
    });
  }
  return { asOfDate: input.asOfDate, currency, accounts, redactedItemCount: redacted, basis };
}

/** Every balance-sheet account with the debit-positive sum of its journal lines up to the date (zero without any). */
async function fromJournals(db: Db, input: { orgId: string; asOfDate: string }): Promise<{ account: AccountRow; net: Dec }[]> {
  const list = await rows<AccountRow & { net: string | null }>(
    db,
    sql`with bal as (
        select j.account_id, j.account_code, sum(j.net_amount) as net
        from journal_lines j
        where j.org_id = ${input.orgId} and j.journal_date <= ${input.asOfDate}::date
        group by j.account_id, j.account_code
      )
      select a.id, a.code, a.name, a.type, a.class, a.status, a.is_sensitive, a.system_account, a.currency,
        (select sum(bal.net) from bal where bal.account_id = a.id
           or (bal.account_id is null and a.code is not null and bal.account_code = a.code)) as net
      ${BALANCE_SHEET(input.orgId)}`,
  );
  return list.map((r) => ({ account: r, net: dec(r.net ?? '0') }));
}

/**
 * The accounts the documents determine, debit-positive at the end of the
 * date: each base-currency bank account's balance at the start of the next
 * day (today's book balance less what moved after the date; a bank account
 * in another currency is left out, its base-currency balance is the
 * journals'), the DEBTORS and CREDITORS control accounts, and the GST
 * account (the tax of the documents, less the bank's payments to it).
 */
async function fromDocuments(db: Db, input: { orgId: string; asOfDate: string }, baseCurrency: string): Promise<{ account: AccountRow; net: Dec }[]> {
  const list = await rows<AccountRow>(
    db,
    sql`select a.id, a.code, a.name, a.type, a.class, a.status, a.is_sensitive, a.system_account, a.currency ${BALANCE_SHEET(input.orgId)}`,
  );
  const next = addDays(input.asOfDate, 1);
  const m = await loadMovementsSince(db, input.orgId, next);
  const bank = balancesAtStartOf(movementsOf(m.payments, m.bankTxns), m.bankAccounts, toDay(next));
  const sameCurrency = new Set(m.bankAccounts.filter((b) => b.currency === baseCurrency).map((b) => b.id));
  const control = async (side: 'AR' | 'AP') => (list.some((a) => a.system_account === (side === 'AR' ? 'DEBTORS' : 'CREDITORS')) ? dec((await controlAccountAt(db, input.orgId, side, input.asOfDate)).balance) : null);
  const [ar, ap] = [await control('AR'), await control('AP')];
  // The GST account: its lines as the documents make them (forecast-input.ts gstFromDocuments: what the forecast reads the returns from without journals, as here).
  const gstLines = list.some((a) => a.system_account === 'GST') ? await gstFromDocuments(db, input.orgId, input.asOfDate) : [];
  const gst = new Map<string, Dec>();
  for (const l of gstLines) gst.set(l.accountId, (gst.get(l.accountId) ?? dec(0)).plus(l.amount));
  const out: { account: AccountRow; net: Dec }[] = [];
  for (const a of list) {
    const b = bank.get(a.id);
    if (a.type === 'BANK' && b && sameCurrency.has(a.id)) out.push({ account: a, net: b });
    else if (a.system_account === 'DEBTORS' && ar) out.push({ account: a, net: ar });
    else if (a.system_account === 'CREDITORS' && ap) out.push({ account: a, net: ap.negated() });
    else if (a.system_account === 'GST' && gst.has(a.id)) out.push({ account: a, net: gst.get(a.id)!.negated() });
  }
  return out;
}
