/**
 * Bank accounts (spec 2.2; decisions.md "Bank balances"): the organisation's
 * ACTIVE accounts of type BANK with
 * - reconciledBalance: the ledger's balance of reconciled transactions
 *   (Reports/BankSummary, stored in bank_balances); '0' before any summary;
 * - statementBalance: the bank statement's balance when a feed statement is
 *   known, else reconciled plus the unreconciled AUTHORISED bank transactions
 *   (RECEIVE* adds, SPEND* subtracts);
 * - balanceSource: STATEMENT when a statement balance is known, else RECONCILED.
 * Sensitive accounts keep their balances; their name becomes
 * `Sensitive account` for keys without READ_SENSITIVE (redactedItemCount).
 */
import { sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import { canonical, dec } from '../../domain/money.js';
import type { BankAccount } from '../../schemas/ledger.js';
import { SENSITIVE_ACCOUNT_NAME } from './contacts.js';

export async function listBankAccounts(
  db: Db,
  input: { orgId: string; gate: boolean },
): Promise<{ bankAccounts: BankAccount[]; redactedItemCount: number }> {
  const list = await rows<{
    id: string;
    name: string;
    currency: string;
    is_sensitive: boolean;
    reconciled: string | null;
    statement: string | null;
    unreconciled: string | null;
    synced_at: unknown;
  }>(
    db,
    sql`select a.id, a.name, coalesce(a.currency, o.base_currency) as currency, a.is_sensitive,
        b.reconciled_balance as reconciled, b.statement_balance as statement, b.balance_synced_at as synced_at,
        (select sum(case when t.type like 'SPEND%' then -t.total else t.total end) from bank_transactions t
          where t.org_id = a.org_id and t.bank_account_id = a.id and t.status = 'AUTHORISED' and not t.is_reconciled) as unreconciled
      from accounts a
      join organisations o on o.id = a.org_id
      left join bank_balances b on b.org_id = a.org_id and b.account_id = a.id
      where a.org_id = ${input.orgId} and a.type = 'BANK' and a.status = 'ACTIVE'
      order by a.code nulls last, a.id`,
  );
  let redacted = 0;
  const bankAccounts = list.map((r): BankAccount => {
    const masked = input.gate && r.is_sensitive;
    if (masked) redacted++;
    const reconciled = r.reconciled ?? '0';
    const hasStatement = r.statement !== null;
    const out: BankAccount = {
      id: r.id,
      name: masked ? SENSITIVE_ACCOUNT_NAME : r.name,
      currency: r.currency,
      reconciledBalance: canonical(reconciled),
      statementBalance: canonical(hasStatement ? r.statement! : dec(reconciled).plus(dec(r.unreconciled ?? '0'))),
      balanceSource: hasStatement ? 'STATEMENT' : 'RECONCILED',
    };
    const synced = pgTimestamp(r.synced_at);
    if (synced) out.balanceSyncedAt = synced.toISOString();
    return out;
  });
  return { bankAccounts, redactedItemCount: redacted };
}
