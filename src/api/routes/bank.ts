/**
 * GET /api/agent/bank-accounts (READ_BANK) and /api/agent/account-balances
 * (READ_ACCOUNTS): shapes in decisions.md. Sensitive accounts keep their
 * balances; their names become `Sensitive account` for keys without
 * READ_SENSITIVE (redactedItemCount).
 */
import { dateIn } from '../../domain/calendar.js';
import { AccountBalancesResponse, BankAccountsResponse } from '../../schemas/ledger.js';
import { AccountBalancesQuery } from '../../schemas/params.js';
import { accountBalances } from '../../store/queries/account-balances.js';
import { listBankAccounts } from '../../store/queries/bank.js';
import type { ApiApp } from '../context.js';
import { agentRoute, withAlerts } from '../route.js';
import { json, listCaller } from '../lists.js';

export const bankAccountsRoute = agentRoute('READ_BANK', {
  path: '/api/agent/bank-accounts',
  summary: 'Active bank accounts with reconciled and statement balances',
  description:
    "The organisation's active bank accounts. reconciledBalance: the ledger's balance of reconciled transactions (BankSummary). " +
    "statementBalance: the bank statement's balance when a feed statement is known, else reconciled plus unreconciled bank transactions. " +
    'balanceSource: STATEMENT when a statement balance is known, else RECONCILED. Ordered by account code, then id.',
  responses: { 200: json(BankAccountsResponse, 'Bank accounts') },
});

export const accountBalancesRoute = agentRoute('READ_ACCOUNTS', {
  path: '/api/agent/account-balances',
  summary: 'Balance-sheet account balances as at a date',
  description:
    "Balance-sheet accounts (ASSET, LIABILITY, EQUITY) with the sum of their journal lines up to and including `date` (default today in the organisation's time zone), " +
    'in natural sign (ASSET debit-positive, LIABILITY and EQUITY credit-positive), in the base currency. Every active account is listed; archived ones only with a non-zero balance. ' +
    "When the ledger's Journals are not available to Cashline (basis documents), only the accounts the documents determine are listed: the base-currency bank accounts, the receivables and payables control accounts and the GST account; the others are omitted, not zero.",
  request: { query: AccountBalancesQuery },
  responses: { 200: json(AccountBalancesResponse, 'Account balances') },
});

/** What an answer on the documents' basis holds, for the person the agent tells. */
const DOCUMENTS_NOTE =
  "The ledger's journals are not available to Cashline, so these balances come from the documents: the bank accounts in the base currency, the receivables and payables control accounts and the GST account only; the other balance-sheet accounts (fixed assets, loans, equity, tax withheld and other liabilities) are not listed because the documents do not tell their balances.";

export function registerBank(app: ApiApp) {
  return app
    .openapi(bankAccountsRoute, async (c) => {
      const { orgId, gate } = listCaller(c);
      const now = c.get('deps').clock.now();
      const asOf = dateIn(c.get('auth').org?.timezone ?? 'Australia/Sydney', now);
      const r = await listBankAccounts(c.get('db'), { orgId, gate, asOf, now });
      return c.json(withAlerts(c, r), 200);
    })
    .openapi(accountBalancesRoute, async (c) => {
      const { orgId, gate } = listCaller(c);
      const org = c.get('auth').org;
      const today = dateIn(org?.timezone ?? 'Australia/Sydney', c.get('deps').clock.now());
      const asOfDate = c.req.valid('query').date ?? today;
      const r = await accountBalances(c.get('db'), { orgId, asOfDate, gate });
      return c.json(withAlerts(c, r.basis === 'documents' ? { ...r, note: DOCUMENTS_NOTE } : r), 200);
    });
}
