/**
 * SQL fragments for reading payments (the store's forecast queries share
 * them): a payment's invoice or bill, and its signed base-currency amount at
 * the payment's rate, else the document's (base = amount / currency_rate,
 * Xero's convention) rounded to cents.
 */
import { sql } from 'drizzle-orm';

/**
 * A payment's invoice or bill, looked up per payment by primary key (as `i`),
 * for the selective payment reads (a date window, the unreconciled few): the
 * planner otherwise hash-joins them with a scan of every cash item of the
 * organisation (80 ms instead of 30 at 400,000 items; docs/forecast.md#speed).
 */
export const ITEM_OF_PAYMENT = sql.raw('cross join lateral (select * from cash_items ci where ci.org_id = p.org_id and ci.id = p.item_id limit 1) i');

/** Signed base-currency amount of a payment (money in positive), as SQL. */
export const PAYMENT_SIGNED = sql.raw(`(case when i.ledger_type in ('ACCREC', 'ACCPAYCREDIT', 'SPEND-OVERPAYMENT', 'SPEND-PREPAYMENT') then 1 else -1 end)
  * (case when i.currency = o.base_currency or coalesce(p.currency_rate, i.currency_rate) is null or coalesce(p.currency_rate, i.currency_rate) = 0
      then p.amount else round(p.amount / coalesce(nullif(p.currency_rate, 0), i.currency_rate), 2) end)`);
