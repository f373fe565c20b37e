/**
 * The opening cash (docs/balances.md): the bank accounts' reconciled and
 * statement balances with the net of their unreconciled movements, the
 * operator's override of the opening cash (read, set, cleared) with the
 * movements since it was set, and the cash position computed from them now.
 */
import { eq, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import * as s from '../schema.js';
import { dateIn } from '../../domain/calendar.js';
import type { BankAccountBalance, ForecastInput } from '../../domain/forecast/types.js';
import { cashPosition } from '../../domain/forecast/opening.js';
import type { OrgMeta } from './organisation.js';
import { ITEM_OF_PAYMENT, PAYMENT_SIGNED } from './payment-amounts.js';

/**
 * Bank accounts with their reconciled and statement balances and the net of
 * the unreconciled AUTHORISED payments and bank transactions dated up to asOf.
 */
export async function loadBankBalances(db: Db, orgId: string, asOf: string): Promise<BankAccountBalance[]> {
  const list = await rows<{ id: string; name: string; currency: string; rec: string | null; stmt: string | null; unrec: string | null }>(
    db,
    sql`with unrec as (
          select t.bank_account_id as acc, case when t.type like 'SPEND%' then -t.total else t.total end as amt
            from bank_transactions t
            where t.org_id = ${orgId} and t.status = 'AUTHORISED' and not t.is_reconciled and t.date <= ${asOf}
          union all
          select p.bank_account_id, ${PAYMENT_SIGNED}
            from payments p ${ITEM_OF_PAYMENT} join organisations o on o.id = p.org_id
            where p.org_id = ${orgId} and p.status = 'AUTHORISED' and not p.is_reconciled and p.date <= ${asOf})
        select a.id, a.name, coalesce(a.currency, org.base_currency) as currency, b.reconciled_balance as rec,
          b.statement_balance as stmt, (select sum(amt) from unrec where unrec.acc = a.id) as unrec
        from accounts a join organisations org on org.id = a.org_id
        left join bank_balances b on b.org_id = a.org_id and b.account_id = a.id
        where a.org_id = ${orgId} and a.type = 'BANK' and a.status = 'ACTIVE'
        order by a.code nulls last, a.id`,
  );
  return list.map((a) => ({
    id: a.id,
    name: a.name,
    currency: a.currency,
    reconciledBalance: a.rec ?? '0',
    statementBalance: a.stmt,
    unreconciledNet: a.unrec ?? '0',
  }));
}

/** The operator's override and the net movement on bank accounts dated after the day it was set, up to asOf. */
export async function loadOverride(db: Db, orgId: string, timezone: string, asOf: string): Promise<ForecastInput['override']> {
  const [o] = await db.select().from(s.cashOverrides).where(eq(s.cashOverrides.orgId, orgId));
  if (!o) return null;
  const since = dateIn(timezone, o.setAt);
  const [m] = await rows<{ net: string | null }>(
    db,
    sql`select sum(amt) as net from (
          select case when t.type like 'SPEND%' then -t.total else t.total end as amt from bank_transactions t
            join accounts a on a.org_id = t.org_id and a.id = t.bank_account_id and a.type = 'BANK'
            where t.org_id = ${orgId} and t.status = 'AUTHORISED' and t.date > ${since} and t.date <= ${asOf}
          union all
          select ${PAYMENT_SIGNED} from payments p ${ITEM_OF_PAYMENT}
            join organisations o on o.id = p.org_id
            join accounts a on a.org_id = p.org_id and a.id = p.bank_account_id and a.type = 'BANK'
            where p.org_id = ${orgId} and p.status = 'AUTHORISED' and p.date > ${since} and p.date <= ${asOf}) x`,
  );
  return { amount: o.amount, setAt: o.setAt.toISOString(), movementsSince: m?.net ?? '0' };
}

/** The opening cash as of `asOf`, computed now from the balances and the override (no snapshot). */
export async function liveCashPosition(db: Db, org: OrgMeta, asOf: string) {
  const [bankAccounts, override] = await Promise.all([loadBankBalances(db, org.id, asOf), loadOverride(db, org.id, org.timezone, asOf)]);
  return cashPosition({ asOf, currency: org.baseCurrency, bankAccounts, override });
}

/** Sets (or replaces) the organisation's opening-cash override (source manual from the next computation). */
export async function setCashOverride(db: Db, orgId: string, amount: string, note: string | null, now: Date): Promise<void> {
  await db
    .insert(s.cashOverrides)
    .values({ orgId, amount, note, setAt: now })
    .onConflictDoUpdate({ target: s.cashOverrides.orgId, set: { amount, note, setAt: now } });
}

/** Clears the override; false when there was none. */
export async function clearCashOverride(db: Db, orgId: string): Promise<boolean> {
  const gone = await db.delete(s.cashOverrides).where(eq(s.cashOverrides.orgId, orgId)).returning({ orgId: s.cashOverrides.orgId });
  return gone.length > 0;
}
