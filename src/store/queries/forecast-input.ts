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
import type { BankTxn, ContactCredit, ForecastInput, LiabilityLine, PurchaseOrder, RepeatingSchedule } from '../../domain/forecast/types.js';
import { accountIdsOf, base, HISTORY_DAYS, loadHistory, loadOpenItems } from './forecast-items.js';
import { loadAccounts, type OrgMeta } from './organisation.js';
import { loadBankBalances, loadOverride } from './cash-position.js';
import { loadManualItems } from './manual-items.js';
import { cashBuffer, loadCalibration } from './calibration.js';
import type { CalibrationState } from '../../domain/forecast/calibrate.js';

/** A bank transaction row as the forecast's queries select it (signed amount, contact, first line's account code, reference, every line's codes). */
export type BankTxnRow = {
  id: string;
  date: string;
  amount: string;
  c: string | null;
  code: string | null;
  ref: string | null;
  /** The distinct account codes of its lines when it has more than one line (else null). */
  codes: string[] | null;
};

/** The columns of a BankTxnRow, of bank_transactions (the codes of a one-line transaction are not looked for). */
export const BANK_TXN_COLUMNS = sql`id, date, case when type like 'SPEND%' then -total else total end as amount, contact_id as c,
  lines->0->>'accountCode' as code, reference as ref,
  case when jsonb_typeof(lines) <> 'array' then null when jsonb_array_length(lines) > 1 then
    (select jsonb_agg(distinct x->>'accountCode') from jsonb_array_elements(lines) x where x->>'accountCode' is not null) end as codes`;

/** The engine's bank transaction of a row; the account codes become account ids. */
export function bankTxnOf(t: BankTxnRow, idByCode: Map<string, string>): BankTxn {
  const txn: BankTxn = { id: t.id, date: t.date, amount: t.amount, contactId: t.c, accountId: t.code ? (idByCode.get(t.code) ?? null) : null, reference: t.ref };
  const ids = accountIdsOf(t.codes, idByCode);
  if (ids) txn.accountIds = ids;
  return txn;
}

/** Spend- and receive-money transactions up to `asOf` (transfers between own accounts excluded). */
export async function loadBankTxns(db: Db, orgId: string, asOf: string, idByCode: Map<string, string>, from?: string): Promise<BankTxn[]> {
  const list = await rows<BankTxnRow>(
    db,
    sql`select ${BANK_TXN_COLUMNS}
        from bank_transactions
        where org_id = ${orgId} and status = 'AUTHORISED' and type not like '%TRANSFER'
          and date <= ${asOf} and date >= ${from ?? addDays(asOf, -HISTORY_DAYS)}`,
  );
  return list.map((t) => bankTxnOf(t, idByCode));
}

/** `and <col> <= asOf`, or nothing without `asOf`. */
const upToDate = (col: string, asOf: string | undefined) => (asOf ? sql`and ${sql.raw(col)} <= ${asOf}` : sql``);

/**
 * The liability accounts' journal lines (GST, tax withheld, superannuation
 * and the like; not the receivables and payables control accounts), added up
 * per account and day, credit positive, up to `asOf` (all of them without
 * it); a line without an account id is matched by its code. Without any
 * journal line (the ledger's Journals not read: docs/sync.md), the GST
 * account's (Xero's SystemAccount GST) from the documents instead
 * (`gstFromDocuments`).
 */
export async function loadLiabilityLines(db: Db, orgId: string, asOf?: string): Promise<LiabilityLine[]> {
  const list = await rows<{ acc: string; date: string; amount: string }>(
    db,
    sql`select acc, date, -sum(net) as amount from (
          select a.id as acc, j.journal_date as date, j.net_amount as net
          from journal_lines j join accounts a on a.org_id = j.org_id and a.id = j.account_id
          where j.org_id = ${orgId} and a.class = 'LIABILITY' and coalesce(a.system_account, '') not in ('DEBTORS', 'CREDITORS') ${upToDate('j.journal_date', asOf)}
          union all
          select a.id, j.journal_date, j.net_amount
          from journal_lines j join accounts a on a.org_id = j.org_id and a.code = j.account_code
          where j.org_id = ${orgId} and j.account_id is null and a.class = 'LIABILITY' and coalesce(a.system_account, '') not in ('DEBTORS', 'CREDITORS') ${upToDate('j.journal_date', asOf)}
        ) l
        group by acc, date
        order by acc collate "C", date`,
  );
  if (list.length === 0) {
    const [any] = await rows<{ n: number }>(db, sql`select 1 as n from journal_lines where org_id = ${orgId} limit 1`);
    if (!any) return gstFromDocuments(db, orgId, asOf);
  }
  return list.map((r) => ({ accountId: r.acc, date: r.date, amount: canonical(r.amount) }));
}

/**
 * The GST account's lines as the documents make them, without journals: the
 * tax of each approved invoice and supplier credit note (credit) and of each
 * bill and customer credit note (debit) on its date, the tax of each receive-
 * (credit) and spend-money transaction (debit; prepayments and overpayments
 * are read from the bank transactions, not again from their credit rows),
 * and the bank transactions coded to the account, which pay it (a spend
 * debits it) or bring a refund (one split over several accounts: its lines
 * coded to this one). Documents in the base currency at their
 * rate; bank transactions in the base currency only (a foreign account's
 * carry no rate). Empty without a GST account.
 */
export async function gstFromDocuments(db: Db, orgId: string, asOf?: string): Promise<LiabilityLine[]> {
  const [gst] = await rows<{ id: string; code: string | null }>(
    db,
    sql`select id, code from accounts where org_id = ${orgId} and system_account = 'GST' order by id collate "C" limit 1`,
  );
  if (!gst) return [];
  const list = await rows<{ date: string; amount: string }>(
    db,
    sql`select d as date, sum(x) as amount from (
          select i.issue_date as d, case when i.ledger_type in ('ACCREC', 'ACCPAYCREDIT') then 1 else -1 end * ${base('total_tax')} as x
          from cash_items i join organisations o on o.id = i.org_id
          where i.org_id = ${orgId} and i.ledger_type in ('ACCREC', 'ACCPAY', 'ACCRECCREDIT', 'ACCPAYCREDIT') and i.ledger_status in ('AUTHORISED', 'PAID')
            and i.issue_date is not null and i.total_tax <> 0 ${upToDate('i.issue_date', asOf)}
          union all
          select t.date, case when t.type like 'SPEND%' then -t.total_tax else t.total_tax end
          from bank_transactions t join organisations o on o.id = t.org_id
          where t.org_id = ${orgId} and t.status = 'AUTHORISED' and t.type not like '%TRANSFER' and t.currency = o.base_currency and t.total_tax <> 0 ${upToDate('t.date', asOf)}
          union all
          select t.date, case when t.type like 'SPEND%' then -1 else 1 end * case when jsonb_typeof(t.lines) <> 'array' then t.total when jsonb_array_length(t.lines) > 1
              then (select coalesce(sum((x->>'lineAmount')::numeric), 0) from jsonb_array_elements(t.lines) x where x->>'accountCode' = ${gst.code ?? ''})
              else t.total end
          from bank_transactions t join organisations o on o.id = t.org_id
          where t.org_id = ${orgId} and t.status = 'AUTHORISED' and t.type not like '%TRANSFER' and t.currency = o.base_currency
            and (t.lines->0->>'accountCode' = ${gst.code ?? ''} or (case when jsonb_typeof(t.lines) = 'array' then jsonb_array_length(t.lines) > 1 else false end and t.lines @> ${JSON.stringify([{ accountCode: gst.code ?? '' }])}::jsonb))
            ${upToDate('t.date', asOf)}
        ) x
        group by d
        order by d`,
  );
  return list.map((r) => ({ accountId: gst.id, date: r.date, amount: canonical(r.amount) }));
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
  const [items, history, bankTxns, purchaseOrders, bankAccounts, override, manualItems, schedules, credits, contactNames, liabilityLines] = await Promise.all([
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
    loadLiabilityLines(db, org.id, asOf),
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
    liabilityLines,
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
