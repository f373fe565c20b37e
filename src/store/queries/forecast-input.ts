/**
 * The forecast engine's input as of a date (docs/forecast.md#store), loaded
 * with a few set-based queries: open invoices and bills and their history
 * (forecast-items.ts), spend- and receive-money transactions, purchase
 * orders, bank balances and the override (cash-position.ts), manual lines,
 * repeating schedules and unallocated credits. Money leaves SQL as exact
 * NUMERIC strings, converted to the base currency at the document's rate
 * (base = amount / currency_rate, Xero's convention) rounded to cents.
 */
import { sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import { addDays, dateIn } from '../../domain/calendar.js';
import { canonical } from '../../domain/money.js';
import type { BankTxn, ContactCredit, ForecastInput, PurchaseOrder, RepeatingSchedule } from '../../domain/forecast/types.js';
import { base, HISTORY_DAYS, loadHistory, loadOpenItems } from './forecast-items.js';
import { loadAccounts, type OrgMeta } from './organisation.js';
import { loadBankBalances, loadOverride } from './cash-position.js';
import { loadManualItems } from './manual-items.js';
import { cashBuffer, loadCalibration } from './calibration.js';
import type { CalibrationState } from '../../domain/forecast/calibrate.js';

/** A bank transaction row as the forecast's queries select it (signed amount, contact, first line's account code, reference). */
export type BankTxnRow = {
  id: string;
  date: string;
  amount: string;
  c: string | null;
  code: string | null;
  ref: string | null;
};

/** The engine's bank transaction of a row; the account code becomes the account id. */
export function bankTxnOf(t: BankTxnRow, idByCode: Map<string, string>): BankTxn {
  return { id: t.id, date: t.date, amount: t.amount, contactId: t.c, accountId: t.code ? (idByCode.get(t.code) ?? null) : null, reference: t.ref };
}

/** Spend- and receive-money transactions up to `asOf` (transfers between own accounts excluded). */
export async function loadBankTxns(db: Db, orgId: string, asOf: string, idByCode: Map<string, string>, from?: string): Promise<BankTxn[]> {
  const list = await rows<BankTxnRow>(
    db,
    sql`select id, date, case when type like 'SPEND%' then -total else total end as amount, contact_id as c,
          lines->0->>'accountCode' as code, reference as ref
        from bank_transactions
        where org_id = ${orgId} and status = 'AUTHORISED' and type not like '%TRANSFER'
          and date <= ${asOf} and date >= ${from ?? addDays(asOf, -HISTORY_DAYS)}`,
  );
  return list.map((t) => bankTxnOf(t, idByCode));
}

export async function loadPurchaseOrders(db: Db, orgId: string): Promise<PurchaseOrder[]> {
  const list = await rows<{
    id: string;
    number: string;
    reference: string;
    c: string | null;
    status: string;
    iss: string | null;
    del: string | null;
    arr: string | null;
    total: string;
  }>(
    db,
    sql`select p.id, p.number, p.reference, p.contact_id as c, p.status, p.issue_date as iss, p.delivery_date as del,
          p.expected_arrival_date as arr, p.total
        from purchase_orders p where p.org_id = ${orgId} and p.status <> 'DELETED'
        order by p.id collate "C"`,
  );
  return list.map((p) => ({
    id: p.id,
    number: p.number,
    reference: p.reference,
    contactId: p.c,
    status: p.status,
    issueDate: p.iss,
    deliveryDate: p.del,
    expectedArrivalDate: p.arr,
    total: p.total,
  }));
}

/**
 * The organisation's repeating invoices and bills, each document's total in
 * the base currency: as is in the base currency, else at the rate of the
 * latest document in that currency (a schedule carries no rate of its own);
 * a foreign schedule with no such document is left out.
 */
export async function loadSchedules(db: Db, orgId: string, idByCode: Map<string, string>): Promise<RepeatingSchedule[]> {
  const list = await rows<{
    id: string;
    t: string;
    c: string | null;
    status: string;
    ref: string | null;
    period: number | string;
    unit: string;
    due_day: number | string;
    due_type: string;
    start: string | null;
    fin: string | null;
    next: string | null;
    total: string | null;
    acc: string | null;
  }>(
    db,
    sql`select r.id, r.ledger_type as t, r.contact_id as c, r.status, r.reference as ref, r.period, r.unit, r.due_day,
          r.due_date_type as due_type, r.start_date as start, r.end_date as fin, r.next_scheduled_date as next, r.account_code as acc,
          case when r.currency = o.base_currency then r.total
            else round(r.total / (select ci.currency_rate from cash_items ci
                                   where ci.org_id = r.org_id and ci.currency = r.currency and ci.currency_rate > 0
                                   order by ci.issue_date desc nulls last, ci.id limit 1), 2) end as total
        from repeating_invoices r join organisations o on o.id = r.org_id
        where r.org_id = ${orgId} and r.status = 'AUTHORISED'
        order by r.id`,
  );
  return list
    .filter((r) => r.total !== null)
    .map((r) => ({
      id: r.id,
      kind: r.t === 'ACCREC' ? 'AR' : 'AP',
      contactId: r.c,
      status: r.status,
      period: Number(r.period),
      unit: r.unit === 'WEEKLY' ? 'WEEKLY' : 'MONTHLY',
      dueDate: Number(r.due_day),
      dueDateType: r.due_type,
      startDate: r.start,
      endDate: r.fin,
      nextScheduledDate: r.next,
      total: canonical(r.total!),
      accountId: r.acc ? (idByCode.get(r.acc) ?? null) : null,
      reference: r.ref,
    }));
}

/** Unallocated credits (credit notes, overpayments, prepayments) per contact and side, base currency. */
export async function loadContactCredits(db: Db, orgId: string): Promise<ContactCredit[]> {
  const list = await rows<{ c: string; ar: boolean; amount: string }>(
    db,
    sql`select i.contact_id as c, i.ledger_type in ('ACCRECCREDIT', 'RECEIVE-OVERPAYMENT', 'RECEIVE-PREPAYMENT') as ar, sum(${base('amount_due')}) as amount
        from cash_items i join organisations o on o.id = i.org_id
        where i.org_id = ${orgId} and i.source in ('LEDGER_CREDIT_NOTE', 'LEDGER_OVERPAYMENT', 'LEDGER_PREPAYMENT')
          and i.ledger_status = 'AUTHORISED' and i.amount_due > 0 and i.contact_id is not null
        group by 1, 2 order by 1, 2`,
  );
  return list.map((r) => ({ contactId: r.c, kind: r.ar ? 'AR' : 'AP', amount: canonical(r.amount) }));
}

/** Names of the customers with an open invoice (the notes that name the band's driver). */
export async function loadOpenCustomerNames(db: Db, orgId: string): Promise<Record<string, string>> {
  const list = await rows<{ id: string; name: string }>(
    db,
    // Driven from the open invoices (cash_items_open_idx), then their contacts by key: the other way round, PostgreSQL
    // probed the invoices of every contact (386 ms on the 400k-document benchmark organisation, against 51).
    sql`select c.id, c.name from (
          select distinct i.contact_id from cash_items i
          where i.org_id = ${orgId} and i.source = 'LEDGER_INVOICE' and i.ledger_type = 'ACCREC'
            and i.ledger_status in ('AUTHORISED', 'DRAFT', 'SUBMITTED') and i.contact_id is not null) o
        join contacts c on c.org_id = ${orgId} and c.id = o.contact_id`,
  );
  return Object.fromEntries(list.filter((r) => r.name.trim() !== '').map((r) => [r.id, r.name]));
}

/** Everything the engine needs as of `asOf` (the organisation's today). */
export async function loadForecastInput(db: Db, org: OrgMeta, asOf: string): Promise<ForecastInput> {
  const { byId, idByCode } = await loadAccounts(db, org.id);
  const [items, history, bankTxns, purchaseOrders, bankAccounts, override, manualItems, schedules, credits, contactNames] = await Promise.all([
    loadOpenItems(db, org.id, asOf, idByCode),
    loadHistory(db, org.id, asOf, idByCode),
    loadBankTxns(db, org.id, asOf, idByCode),
    loadPurchaseOrders(db, org.id),
    loadBankBalances(db, org.id, asOf),
    loadOverride(db, org.id, org.timezone, asOf),
    loadManualItems(db, org.id),
    loadSchedules(db, org.id, idByCode),
    loadContactCredits(db, org.id),
    loadOpenCustomerNames(db, org.id),
  ]);
  return {
    orgId: org.id,
    asOf,
    currency: org.baseCurrency,
    bankAccounts,
    override,
    items,
    history,
    bankTxns,
    purchaseOrders,
    manualItems,
    accounts: byId,
    schedules,
    credits,
    contactNames,
  };
}

/** What a forecast computation needs besides the scenarios: the organisation's today, the engine's input, its calibration and shortfall threshold. */
export interface EngineInputs {
  asOf: string;
  input: ForecastInput;
  calibration: CalibrationState | null;
  /** Closing cash below this is a shortfall: the cash buffer, else 0 (canonical decimal). */
  threshold: string;
}

/** Loads what the engine needs to forecast `org` as of `now` (the recompute and a what-if alike). */
export async function loadEngineInputs(db: Db, org: OrgMeta, now: Date): Promise<EngineInputs> {
  const asOf = dateIn(org.timezone, now);
  const [input, calibration, buffer] = await Promise.all([loadForecastInput(db, org, asOf), loadCalibration(db, org.id), cashBuffer(db, org.id)]);
  return { asOf, input, calibration, threshold: canonical(buffer ?? '0') };
}
