/**
 * Account balances as at a date (decisions.md "account-balances"): the
 * balance-sheet accounts (class ASSET, LIABILITY, EQUITY) with the sum of
 * their journal lines dated up to and including `asOfDate`. Xero journal
 * lines are debit-positive; balances are reported in the account's natural
 * sign (ASSET debit-positive, LIABILITY and EQUITY credit-positive), as a
 * balance sheet shows them. Every ACTIVE account is listed (zero when it has
 * no lines); archived accounts only with a non-zero balance. Journal lines
 * without an account id are matched by account code. Names of sensitive
 * accounts become `Sensitive account` for keys without READ_SENSITIVE.
 */
import { sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import { canonical, dec } from '../../domain/money.js';
import type { AccountBalance } from '../../schemas/ledger.js';
import { SENSITIVE_ACCOUNT as SENSITIVE_ACCOUNT_NAME } from '../../domain/sensitive.js';

export async function accountBalances(
  db: Db,
  input: { orgId: string; asOfDate: string; gate: boolean },
): Promise<{ asOfDate: string; currency: string; accounts: AccountBalance[]; redactedItemCount: number }> {
  const [org] = await rows<{ base_currency: string }>(db, sql`select base_currency from organisations where id = ${input.orgId}`);
  const list = await rows<{
    code: string | null;
    name: string;
    type: string;
    class: string;
    status: string;
    is_sensitive: boolean;
    net: string | null;
  }>(
    db,
    sql`with bal as (
        select j.account_id, j.account_code, sum(j.net_amount) as net
        from journal_lines j
        where j.org_id = ${input.orgId} and j.journal_date <= ${input.asOfDate}::date
        group by j.account_id, j.account_code
      )
      select a.code, a.name, a.type, a.class, a.status, a.is_sensitive,
        (select sum(bal.net) from bal where bal.account_id = a.id
           or (bal.account_id is null and a.code is not null and bal.account_code = a.code)) as net
      from accounts a
      where a.org_id = ${input.orgId} and a.class in ('ASSET', 'LIABILITY', 'EQUITY')
      order by a.code nulls last, a.id`,
  );
  let redacted = 0;
  const accounts: AccountBalance[] = [];
  for (const r of list) {
    const net = dec(r.net ?? '0');
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
  return { asOfDate: input.asOfDate, currency: org?.base_currency ?? 'AUD', accounts, redactedItemCount: redacted };
}
