/**
 * Bank accounts (spec 2.2; decisions.md "Bank balances"): the organisation's
 * ACTIVE accounts of type BANK with
 * - reconciledBalance: the ledger's balance of reconciled transactions
 *   (Reports/BankSummary, stored in bank_balances); '0' before any summary;
 * - statementBalance and balanceSource: `accountBalances` in
 *   src/domain/forecast/opening.ts, the one definition the cash position and
 *   the forecast use too (docs/balances.md), over the same reads
 *   (`loadBankBalances`: unreconciled payments and bank transactions dated up
 *   to today in the organisation's time zone);
 * - balanceSyncedAt: never later than the service clock.
 * Sensitive accounts keep their balances; their name becomes
 * `Sensitive account` for keys without READ_SENSITIVE (redactedItemCount).
 */
import { sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import { accountBalances } from '../../domain/forecast/opening.js';
import type { BankAccount } from '../../schemas/ledger.js';
import { SENSITIVE_ACCOUNT as SENSITIVE_ACCOUNT_NAME } from '../../domain/sensitive.js';
import { loadBankBalances } from './cash-position.js';

export async function listBankAccounts(
  db: Db,
  input: { orgId: string; gate: boolean; asOf: string; now: Date },
): Promise<{ bankAccounts: BankAccount[]; redactedItemCount: number }> {
  const [balances, meta] = await Promise.all([
    loadBankBalances(db, input.orgId, input.asOf),
    rows<{ id: string; is_sensitive: boolean; synced_at: unknown }>(
      db,
      sql`select a.id, a.is_sensitive, b.balance_synced_at as synced_at
          from accounts a left join bank_balances b on b.org_id = a.org_id and b.account_id = a.id
          where a.org_id = ${input.orgId} and a.type = 'BANK' and a.status = 'ACTIVE'`,
    ),
  ]);
  const byId = new Map(meta.map((m) => [m.id, m]));
  let redacted = 0;
  const bankAccounts = balances.map((a): BankAccount => {
    const m = byId.get(a.id);
    const masked = input.gate && Boolean(m?.is_sensitive);
    if (masked) redacted++;
    const { reconciledBalance, statementBalance, balanceSource } = accountBalances(a);
    const out: BankAccount = { id: a.id, name: masked ? SENSITIVE_ACCOUNT_NAME : a.name, currency: a.currency, reconciledBalance, statementBalance, balanceSource };
    const synced = pgTimestamp(m?.synced_at);
    // Never in the future: a ledger clock ahead of ours (or a frozen service clock) shows as now.
    if (synced) out.balanceSyncedAt = new Date(Math.min(synced.getTime(), input.now.getTime())).toISOString();
    return out;
  });
  return { bankAccounts, redactedItemCount: redacted };
}
