/**
 * The forecast's store side (docs/forecast.md#store): loading the engine's
 * inputs as of a date with a few set-based queries, the raw ledger the
 * backtest replays, scenarios, snapshots, purchase-order suppression and the
 * movements behind the daily summary. Money leaves SQL as exact NUMERIC
 * strings, converted to the base currency at the document's rate
 * (base = amount / currency_rate, Xero's convention) rounded to cents.
 */
import { and, eq, sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import * as s from '../schema.js';
import { dateIn } from '../../domain/calendar.js';
import { addDays } from '../../domain/calendar.js';
import { canonical, dec } from '../../domain/money.js';
import type {
  BankAccountBalance,
  BankTxn,
  ContactCredit,
  ForecastInput,
  ForecastPayload,
  LedgerItem,
  LedgerStatus,
  ManualItem,
  PurchaseOrder,
  RepeatingSchedule,
  Scenario,
  ScenarioAdjustments,
  ScenarioKind,
} from '../../domain/forecast/types.js';
import { DEFAULT_SCENARIO_ADJUSTMENTS } from '../../domain/forecast/project.js';
import { cashPosition } from '../../domain/forecast/opening.js';
import { AGEING_BANDS, type AgeingBand, type ArAgeing } from '../../domain/forecast/daily.js';
import { base, HISTORY_DAYS, loadHistory, loadOpenItems } from './forecast-items.js';

export interface OrgMeta {
  id: string;
  name: string;
  timezone: string;
  baseCurrency: string;
}

export async function orgMeta(db: Db, orgId: string): Promise<OrgMeta | null> {
  const [o] = await db
    .select({ id: s.organisations.id, name: s.organisations.name, timezone: s.organisations.timezone, baseCurrency: s.organisations.baseCurrency })
    .from(s.organisations)
    .where(eq(s.organisations.id, orgId));
  return o ?? null;
}

/** Base-currency amount of a document column (rounded to cents when converted). */
/** Names and codes of the organisation's accounts, and code -> id. */
export async function loadAccounts(db: Db, orgId: string): Promise<{ byId: Record<string, { name: string; code: string | null }>; idByCode: Map<string, string> }> {
  const list = await rows<{ id: string; code: string | null; name: string }>(db, sql`select id, code, name from accounts where org_id = ${orgId}`);
  const byId: Record<string, { name: string; code: string | null }> = {};
  const idByCode = new Map<string, string>();
  for (const a of list) {
    byId[a.id] = { name: a.name, code: a.code };
    if (a.code) idByCode.set(a.code, a.id);
  }
  return { byId, idByCode };
}

interface ItemRow extends Record<string, unknown> {
  id: string;
  t: string;
  c: string | null;
  st: string;
  iss: string | null;
  due: string | null;
  paid: string | null;
  total: string;
  amount_due: string;
  num?: string | null;
  ref: string | null;
  acc?: string | null;
}

function toItem(r: ItemRow, accountId: string | null): LedgerItem {
  return {
    id: r.id,
    kind: r.t === 'ACCREC' ? 'AR' : 'AP',
    contactId: r.c,
    status: r.st as LedgerStatus,
    issueDate: r.iss,
    dueDate: r.due,
    paidDate: r.paid,
    total: r.total,
    amountDue: r.amount_due,
    number: r.num ?? null,
    reference: r.ref,
    accountId,
  };
}

/** Spend- and receive-money transactions up to `asOf` (transfers between own accounts excluded). */
export async function loadBankTxns(db: Db, orgId: string, asOf: string, idByCode: Map<string, string>, from?: string): Promise<BankTxn[]> {
  const list = await rows<{ id: string; date: string; amount: string; c: string | null; code: string | null; ref: string | null }>(
    db,
    sql`select id, date, case when type like 'SPEND%' then -total else total end as amount, contact_id as c,
          lines->0->>'accountCode' as code, reference as ref
        from bank_transactions
        where org_id = ${orgId} and status = 'AUTHORISED' and type not like '%TRANSFER'
          and date <= ${asOf} and date >= ${from ?? addDays(asOf, -HISTORY_DAYS)}`,
  );
  return list.map((t) => ({
    id: t.id,
    date: t.date,
    amount: t.amount,
    contactId: t.c,
    accountId: t.code ? (idByCode.get(t.code) ?? null) : null,
    reference: t.ref,
  }));
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
        from purchase_orders p where p.org_id = ${orgId} and p.status <> 'DELETED'`,
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
 * A payment's invoice or bill, looked up per payment by primary key (as `i`),
 * for the selective payment reads (a date window, the unreconciled few): the
 * planner otherwise hash-joins them with a scan of every cash item of the
 * organisation (80 ms instead of 30 at 400,000 items; docs/forecast.md#speed).
 */
const ITEM_OF_PAYMENT = sql.raw('cross join lateral (select * from cash_items ci where ci.org_id = p.org_id and ci.id = p.item_id limit 1) i');

/** Signed base-currency amount of a payment (money in positive), as SQL. */
const PAYMENT_SIGNED = sql.raw(`(case when i.ledger_type in ('ACCREC', 'ACCPAYCREDIT', 'SPEND-OVERPAYMENT', 'SPEND-PREPAYMENT') then 1 else -1 end)
  * (case when i.currency = o.base_currency or coalesce(p.currency_rate, i.currency_rate) is null or coalesce(p.currency_rate, i.currency_rate) = 0
      then p.amount else round(p.amount / coalesce(nullif(p.currency_rate, 0), i.currency_rate), 2) end)`);

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

/** Manual forecast lines are kept as one document: derived_snapshots kind 'forecast_manual_items', payload {items: ManualItem[]}. */
export const MANUAL_ITEMS_KIND = 'forecast_manual_items';

export async function loadManualItems(db: Db, orgId: string): Promise<ManualItem[]> {
  const [row] = await db
    .select({ payload: s.derivedSnapshots.payload })
    .from(s.derivedSnapshots)
    .where(and(eq(s.derivedSnapshots.orgId, orgId), eq(s.derivedSnapshots.kind, MANUAL_ITEMS_KIND)));
  const items = (row?.payload as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? items.filter(isManualItem) : [];
}

export async function saveManualItems(db: Db, orgId: string, items: ManualItem[], now: Date): Promise<void> {
  await db
    .insert(s.derivedSnapshots)
    .values({ orgId, kind: MANUAL_ITEMS_KIND, key: '', computedAt: now, payload: { items } })
    .onConflictDoUpdate({
      target: [s.derivedSnapshots.orgId, s.derivedSnapshots.kind, s.derivedSnapshots.key],
      set: { payload: { items }, computedAt: now },
    });
}

function isManualItem(v: unknown): v is ManualItem {
  const m = v as ManualItem;
  return (
    typeof m === 'object' && m !== null && typeof m.id === 'string' && typeof m.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(m.date) &&
    typeof m.amount === 'string' && /^-?\d+(\.\d+)?$/.test(m.amount)
  );
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

/** Everything the engine needs as of `asOf` (the organisation's today). */
export async function loadForecastInput(db: Db, org: OrgMeta, asOf: string): Promise<ForecastInput> {
  const { byId, idByCode } = await loadAccounts(db, org.id);
  const [items, history, bankTxns, purchaseOrders, bankAccounts, override, manualItems, schedules, credits] = await Promise.all([
    loadOpenItems(db, org.id, asOf, idByCode),
    loadHistory(db, org.id, asOf, idByCode),
    loadBankTxns(db, org.id, asOf, idByCode),
    loadPurchaseOrders(db, org.id),
    loadBankBalances(db, org.id, asOf),
    loadOverride(db, org.id, org.timezone, asOf),
    loadManualItems(db, org.id),
    loadSchedules(db, org.id, idByCode),
    loadContactCredits(db, org.id),
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
  };
}

// ---------------------------------------------------------------------------
// The raw ledger (backtest)
// ---------------------------------------------------------------------------

export interface RawPayment {
  itemId: string;
  date: string;
  /** Signed, base currency: money in positive. */
  amount: string;
  bankAccountId: string | null;
}

export interface RawAllocation {
  invoiceId: string;
  date: string | null;
  /** Base currency, of the invoice. */
  amount: string;
}

export interface RawBankTxn extends BankTxn {
  bankAccountId: string;
  transfer: boolean;
}

export interface RawLedger {
  orgId: string;
  currency: string;
  timezone: string;
  /** Invoices and bills with their current state (the state at a cut-off is rebuilt from payments and allocations). */
  items: LedgerItem[];
  payments: RawPayment[];
  allocations: RawAllocation[];
  bankTxns: RawBankTxn[];
  purchaseOrders: PurchaseOrder[];
  /** Per bank account: today's book balance (reconciled plus every unreconciled movement). */
  bankAccounts: { id: string; name: string; currency: string; book: string }[];
  accounts: Record<string, { name: string; code: string | null }>;
}

/** The whole ledger of an organisation, for replaying it at past cut-offs. */
export async function loadRawLedger(db: Db, org: OrgMeta): Promise<RawLedger> {
  const { byId, idByCode } = await loadAccounts(db, org.id);
  const items = await rows<ItemRow>(
    db,
    sql`select i.id, i.ledger_type as t, i.contact_id as c, i.ledger_status as st, i.issue_date as iss, i.due_date as due,
          i.paid_date as paid, ${base('total')} as total, ${base('amount_due')} as amount_due, i.number as num, i.reference as ref,
          (select l.account_code from cash_item_lines l where l.org_id = i.org_id and l.item_id = i.id
            order by abs(l.line_amount) desc, l.line_number limit 1) as acc
        from cash_items i join organisations o on o.id = i.org_id
        where i.org_id = ${org.id} and i.source in ('LEDGER_INVOICE', 'LEDGER_BILL')`,
  );
  const payments = await rows<{ item: string; date: string; amount: string; acc: string | null }>(
    db,
    sql`select p.item_id as item, p.date, ${PAYMENT_SIGNED} as amount, p.bank_account_id as acc
        from payments p join cash_items i on i.org_id = p.org_id and i.id = p.item_id join organisations o on o.id = p.org_id
        where p.org_id = ${org.id} and p.status <> 'DELETED'`,
  );
  const allocations = await rows<{ inv: string; date: string | null; amount: string }>(
    db,
    sql`select a.invoice_id as inv, a.date,
          case when i.currency = o.base_currency or i.currency_rate is null or i.currency_rate = 0 then a.amount
            else round(a.amount / i.currency_rate, 2) end as amount
        from credit_note_allocations a join cash_items i on i.org_id = a.org_id and i.id = a.invoice_id join organisations o on o.id = a.org_id
        where a.org_id = ${org.id}`,
  );
  const txns = await rows<{ id: string; date: string; amount: string; c: string | null; code: string | null; ref: string | null; acc: string; tr: boolean }>(
    db,
    sql`select id, date, case when type like 'SPEND%' then -total else total end as amount, contact_id as c,
          lines->0->>'accountCode' as code, reference as ref, bank_account_id as acc, type like '%TRANSFER' as tr
        from bank_transactions where org_id = ${org.id} and status = 'AUTHORISED'`,
  );
  const balances = await loadBankBalances(db, org.id, '9999-12-31');
  return {
    orgId: org.id,
    currency: org.baseCurrency,
    timezone: org.timezone,
    items: items.map((r) => toItem(r, r.acc ? (idByCode.get(r.acc) ?? null) : null)),
    payments: payments.map((p) => ({ itemId: p.item, date: p.date, amount: p.amount, bankAccountId: p.acc })),
    allocations: allocations.map((a) => ({ invoiceId: a.inv, date: a.date, amount: a.amount })),
    bankTxns: txns.map((t) => ({
      id: t.id,
      date: t.date,
      amount: t.amount,
      contactId: t.c,
      accountId: t.code ? (idByCode.get(t.code) ?? null) : null,
      reference: t.ref,
      bankAccountId: t.acc,
      transfer: t.tr,
    })),
    purchaseOrders: await loadPurchaseOrders(db, org.id),
    bankAccounts: balances.map((b) => ({
      id: b.id,
      name: b.name,
      currency: b.currency,
      book: b.statementBalance ?? addDec(b.reconciledBalance, b.unreconciledNet),
    })),
    accounts: byId,
  };
}

function addDec(a: string, b: string): string {
  return canonical(dec(a).plus(dec(b)));
}

// ---------------------------------------------------------------------------
// Scenarios and snapshots
// ---------------------------------------------------------------------------

const BUILT_IN: { kind: 'BASE' | 'BEST' | 'WORST'; name: string }[] = [
  { kind: 'BASE', name: 'Base case' },
  { kind: 'BEST', name: 'Best case' },
  { kind: 'WORST', name: 'Worst case' },
];

/** Creates the BASE, BEST and WORST scenarios when missing (ids `<kind lower-case>`), and returns every scenario of the organisation. */
export async function ensureScenarios(db: Db, orgId: string, now: Date): Promise<Scenario[]> {
  const existing = await db.select().from(s.forecastScenarios).where(eq(s.forecastScenarios.orgId, orgId));
  const kinds = new Set(existing.map((e) => e.kind));
  const missing = BUILT_IN.filter((b) => !kinds.has(b.kind));
  if (missing.length) {
    await db
      .insert(s.forecastScenarios)
      .values(missing.map((b) => ({ orgId, id: b.kind.toLowerCase(), name: b.name, kind: b.kind, adjustments: DEFAULT_SCENARIO_ADJUSTMENTS[b.kind], createdAt: now })))
      .onConflictDoNothing();
  }
  const all = await db.select().from(s.forecastScenarios).where(eq(s.forecastScenarios.orgId, orgId));
  const order: Record<string, number> = { BASE: 0, BEST: 1, WORST: 2, CUSTOM: 3 };
  return all
    .sort((a, b) => (order[a.kind] ?? 9) - (order[b.kind] ?? 9) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((r) => ({ id: r.id, name: r.name, kind: r.kind as ScenarioKind, adjustments: parseAdjustments(r.adjustments) }));
}

/** Reads a scenario's stored adjustments, keeping only well-formed fields (docs/forecast.md#scenarios). */
export function parseAdjustments(raw: unknown): ScenarioAdjustments {
  const a = (raw ?? {}) as Record<string, unknown>;
  const out: ScenarioAdjustments = {};
  const factor = (v: unknown) => (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? v : typeof v === 'number' && v >= 0 && Number.isFinite(v) ? String(v) : undefined);
  const inF = factor(a.inflowFactor);
  const outF = factor(a.outflowFactor);
  if (inF !== undefined) out.inflowFactor = inF;
  if (outF !== undefined) out.outflowFactor = outF;
  if (typeof a.paymentDelayShiftDays === 'number' && Number.isInteger(a.paymentDelayShiftDays) && Math.abs(a.paymentDelayShiftDays) <= 365) {
    out.paymentDelayShiftDays = a.paymentDelayShiftDays;
  }
  if (Array.isArray(a.excludedItemIds)) out.excludedItemIds = a.excludedItemIds.filter((x): x is string => typeof x === 'string');
  if (Array.isArray(a.manualItems)) out.manualItems = a.manualItems.filter(isManualItem);
  return out;
}

/** Snapshots kept per scenario (older ones are pruned when a new one is stored). */
export const SNAPSHOTS_KEPT = 10;

export async function storeSnapshots(db: Db, orgId: string, payloads: ForecastPayload[], computedAt: Date): Promise<void> {
  if (payloads.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.insert(s.forecastSnapshots).values(
      payloads.map((p) => ({
        orgId,
        id: `${p.scenarioId}:${computedAt.toISOString()}`,
        scenarioId: p.scenarioId,
        engineVersion: p.engineVersion,
        asOfDate: p.asOfDate,
        computedAt,
        payload: p,
      })),
    // A recompute at the same instant (a frozen CASHLINE_NOW, an operator change right after a recompute) replaces that snapshot.
    ).onConflictDoUpdate({
      target: [s.forecastSnapshots.orgId, s.forecastSnapshots.id],
      set: { engineVersion: sql`excluded.engine_version`, asOfDate: sql`excluded.as_of_date`, payload: sql`excluded.payload` },
    });
    await tx.execute(sql`delete from forecast_snapshots f where f.org_id = ${orgId} and f.id in (
        select id from (select id, row_number() over (partition by scenario_id order by computed_at desc, id desc) as n
          from forecast_snapshots where org_id = ${orgId}) r where r.n > ${SNAPSHOTS_KEPT})`);
  });
}

export interface StoredSnapshot {
  id: string;
  scenarioId: string;
  engineVersion: number;
  asOfDate: string;
  computedAt: Date;
  payload: ForecastPayload;
}

/**
 * The latest snapshot of a scenario (default: the organisation's BASE), read
 * to the current payload shape: an engineVersion 1 snapshot (written before
 * the inflow split) gets forecastInflow '0' and no guaranteedInflow (spec 9).
 */
export async function latestSnapshot(db: Db, orgId: string, scenarioId?: string): Promise<StoredSnapshot | null> {
  const ref = await latestSnapshotRef(db, orgId, scenarioId);
  return ref ? snapshotPayload(db, orgId, ref) : null;
}

/** A snapshot without its payload: enough to know which one is the latest (and to key a cache by its id). */
export type SnapshotRef = Omit<StoredSnapshot, 'payload'>;

/** The latest snapshot of a scenario (default: the BASE one), without reading its payload. */
export async function latestSnapshotRef(db: Db, orgId: string, scenarioId?: string): Promise<SnapshotRef | null> {
  const scenario =
    scenarioId === undefined
      ? sql`(select id from forecast_scenarios where org_id = ${orgId} and kind = 'BASE' order by created_at, id limit 1)`
      : sql`${scenarioId}`;
  const [row] = await rows<{ id: string; scenario_id: string; engine_version: number | string; as_of_date: string; computed_at: unknown }>(
    db,
    sql`select id, scenario_id, engine_version, as_of_date::text as as_of_date, computed_at from forecast_snapshots
        where org_id = ${orgId} and scenario_id = ${scenario}
        order by computed_at desc, id desc limit 1`,
  );
  if (!row) return null;
  return {
    id: row.id,
    scenarioId: row.scenario_id,
    engineVersion: Number(row.engine_version),
    asOfDate: row.as_of_date,
    computedAt: pgTimestamp(row.computed_at)!,
  };
}

/** The payload of a snapshot (read to the current shape). */
export async function snapshotPayload(db: Db, orgId: string, ref: SnapshotRef): Promise<StoredSnapshot | null> {
  const [row] = await db
    .select({ payload: s.forecastSnapshots.payload })
    .from(s.forecastSnapshots)
    .where(and(eq(s.forecastSnapshots.orgId, orgId), eq(s.forecastSnapshots.id, ref.id)));
  if (!row) return null; // pruned since the ref was read
  return { ...ref, payload: readPayload(ref.engineVersion, row.payload, ref.computedAt) };
}

/** A stored payload in the current shape (engineVersion 1: no split; forecastInflow reads as 0). */
export function readPayload(engineVersion: number, raw: unknown, computedAt: Date): ForecastPayload {
  const p = { ...(raw as ForecastPayload) };
  p.engineVersion = engineVersion;
  p.computedAt ??= computedAt.toISOString();
  p.notesForAgent ??= [];
  if (engineVersion < 2) {
    p.weeks = (p.weeks ?? []).map((w) => {
      const { guaranteedInflow: _g, ...rest } = w;
      return { ...rest, forecastInflow: '0' };
    });
  }
  return p;
}

/** Records each purchase order's match (null: unmatched) as its suppressed_reason. */
export async function saveSuppression(db: Db, orgId: string, reasons: Map<string, string | null>): Promise<number> {
  const entries = [...reasons.entries()];
  if (entries.length === 0) return 0;
  let changed = 0;
  for (let i = 0; i < entries.length; i += 1000) {
    const chunk = entries.slice(i, i + 1000);
    const values = sql.join(
      chunk.map(([id, r]) => sql`(${id}::text, ${r}::text)`),
      sql`, `,
    );
    const res = await rows<{ id: string }>(
      db,
      sql`update purchase_orders p set suppressed_reason = v.r from (values ${values}) as v(id, r)
          where p.org_id = ${orgId} and p.id = v.id and p.suppressed_reason is distinct from v.r returning p.id`,
    );
    changed += res.length;
  }
  return changed;
}

// ---------------------------------------------------------------------------
// Daily summary inputs
// ---------------------------------------------------------------------------

export interface CashEvent {
  id: string;
  date: string;
  /** Signed, base currency. */
  amount: string;
  contactId: string | null;
  contactName: string | null;
  contactSensitive: boolean;
}

/** Money that moved through bank accounts between two dates (inclusive): payments and spend/receive money, transfers excluded. */
export async function loadCashEvents(db: Db, orgId: string, from: string, to: string): Promise<CashEvent[]> {
  const list = await rows<{ id: string; date: string; amount: string; c: string | null; name: string | null; sens: boolean | null }>(
    db,
    sql`select x.id, x.date, x.amount, x.c, ct.name, ct.is_sensitive as sens from (
          select p.id, p.date, ${PAYMENT_SIGNED} as amount, i.contact_id as c
            from payments p ${ITEM_OF_PAYMENT} join organisations o on o.id = p.org_id
            where p.org_id = ${orgId} and p.status = 'AUTHORISED' and p.date between ${from} and ${to}
          union all
          select t.id, t.date, case when t.type like 'SPEND%' then -t.total else t.total end, t.contact_id
            from bank_transactions t
            where t.org_id = ${orgId} and t.status = 'AUTHORISED' and t.type not like '%TRANSFER' and t.date between ${from} and ${to}) x
        left join contacts ct on ct.org_id = ${orgId} and ct.id = x.c`,
  );
  return list.map((e) => ({
    id: e.id,
    date: e.date,
    amount: e.amount,
    contactId: e.c,
    contactName: e.name,
    contactSensitive: Boolean(e.sens),
  }));
}

/** Open AUTHORISED receivables (base currency) for the ageing. */
export async function loadOpenReceivables(db: Db, orgId: string): Promise<{ id: string; dueDate: string | null; issueDate: string | null; amountDue: string }[]> {
  return rows(
    db,
    sql`select i.id, i.due_date as "dueDate", i.issue_date as "issueDate", ${base('amount_due')} as "amountDue"
        from cash_items i join organisations o on o.id = i.org_id
        where i.org_id = ${orgId} and i.source = 'LEDGER_INVOICE' and i.ledger_status = 'AUTHORISED' and i.amount_due > 0`,
  );
}

export async function countBankAccounts(db: Db, orgId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(db, sql`select count(*)::int8 as n from accounts where org_id = ${orgId} and type = 'BANK' and status = 'ACTIVE'`);
  return Number(r?.n ?? 0);
}


// ---------------------------------------------------------------------------
// Read side of the endpoints
// ---------------------------------------------------------------------------

/** Ids of the organisation's accounts flagged sensitive (bank accounts and ledger accounts alike). */
export async function sensitiveAccountIds(db: Db, orgId: string): Promise<Set<string>> {
  const list = await rows<{ id: string }>(db, sql`select id from accounts where org_id = ${orgId} and is_sensitive`);
  return new Set(list.map((r) => r.id));
}

/** Whether the organisation has a scenario with this id. */
export async function scenarioExists(db: Db, orgId: string, scenarioId: string): Promise<boolean> {
  const [r] = await db
    .select({ id: s.forecastScenarios.id })
    .from(s.forecastScenarios)
    .where(and(eq(s.forecastScenarios.orgId, orgId), eq(s.forecastScenarios.id, scenarioId)));
  return r !== undefined;
}

/** The opening cash as of `asOf`, computed now from the balances and the override (no snapshot). */
export async function liveCashPosition(db: Db, org: OrgMeta, asOf: string) {
  const [bankAccounts, override] = await Promise.all([loadBankBalances(db, org.id, asOf), loadOverride(db, org.id, org.timezone, asOf)]);
  return cashPosition({ asOf, currency: org.baseCurrency, bankAccounts, override });
}

// ---------------------------------------------------------------------------
// Operator changes (cashline-server forecast ...)
// ---------------------------------------------------------------------------

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

export class ScenarioError extends Error {}

/** Creates or replaces a CUSTOM scenario; the ids of the built-in scenarios (base, best, worst) are refused. */
export async function upsertCustomScenario(db: Db, orgId: string, sc: { id: string; name: string; adjustments: ScenarioAdjustments }, now: Date): Promise<void> {
  const [existing] = await db
    .select({ kind: s.forecastScenarios.kind })
    .from(s.forecastScenarios)
    .where(and(eq(s.forecastScenarios.orgId, orgId), eq(s.forecastScenarios.id, sc.id)));
  if ((existing && existing.kind !== 'CUSTOM') || BUILT_IN.some((b) => b.kind.toLowerCase() === sc.id)) {
    throw new ScenarioError(`scenario ${sc.id} is built in; choose another id`);
  }
  await db
    .insert(s.forecastScenarios)
    .values({ orgId, id: sc.id, name: sc.name, kind: 'CUSTOM', adjustments: sc.adjustments, createdAt: now })
    .onConflictDoUpdate({ target: [s.forecastScenarios.orgId, s.forecastScenarios.id], set: { name: sc.name, adjustments: sc.adjustments } });
}

/** Removes a CUSTOM scenario and its snapshots; false when there was none. Built-in scenarios are refused. */
export async function removeCustomScenario(db: Db, orgId: string, id: string): Promise<boolean> {
  const [existing] = await db
    .select({ kind: s.forecastScenarios.kind })
    .from(s.forecastScenarios)
    .where(and(eq(s.forecastScenarios.orgId, orgId), eq(s.forecastScenarios.id, id)));
  if (!existing) return false;
  if (existing.kind !== 'CUSTOM') throw new ScenarioError(`scenario ${id} is built in and cannot be removed`);
  await db.transaction(async (tx) => {
    await tx.delete(s.forecastSnapshots).where(and(eq(s.forecastSnapshots.orgId, orgId), eq(s.forecastSnapshots.scenarioId, id)));
    await tx.delete(s.forecastScenarios).where(and(eq(s.forecastScenarios.orgId, orgId), eq(s.forecastScenarios.id, id)));
  });
  return true;
}

/** The cash position part of a snapshot, read by id. */
export async function cashPositionOfSnapshot(
  db: Db,
  orgId: string,
  snapshotId: string,
): Promise<{ computedAt: string; cashPosition: ForecastPayload['cashPosition']; notesForAgent: ForecastPayload['notesForAgent'] } | null> {
  const [r] = await rows<{ computed_at: unknown; cp: ForecastPayload['cashPosition'] | null; notes: ForecastPayload['notesForAgent'] | null }>(
    db,
    sql`select f.computed_at, f.payload->'cashPosition' as cp, f.payload->'notesForAgent' as notes
        from forecast_snapshots f where f.org_id = ${orgId} and f.id = ${snapshotId}`,
  );
  if (!r || !r.cp) return null;
  return { computedAt: pgTimestamp(r.computed_at)!.toISOString(), cashPosition: r.cp, notesForAgent: r.notes ?? [] };
}

/**
 * The AR ageing of open sales invoices as at `asOf`, aggregated in the store
 * (the same bands and rules as `arAgeing` and `ageingBand` in
 * src/domain/forecast/daily.ts: days past the due date, else the issue date,
 * else none; current = not yet past due, then 1-30, 31-60, 61-90, over 90;
 * amounts still owed, in the base currency; only positive amounts due), so a
 * ledger with tens of thousands of open invoices sends five rows, not all of them.
 */
export async function arAgeingInStore(db: Db, orgId: string, asOf: string): Promise<ArAgeing> {
  const found = await rows<{ band: AgeingBand; n: number | string; amount: string | null }>(
    db,
    sql`select band, count(*)::int8 as n, sum(amount) as amount from (
          select ${base('amount_due')} as amount,
            case when ${asOf}::date - coalesce(i.due_date, i.issue_date, ${asOf}::date) > 90 then 'days90plus'
                 when ${asOf}::date - coalesce(i.due_date, i.issue_date, ${asOf}::date) > 60 then 'days90'
                 when ${asOf}::date - coalesce(i.due_date, i.issue_date, ${asOf}::date) > 30 then 'days60'
                 when ${asOf}::date - coalesce(i.due_date, i.issue_date, ${asOf}::date) > 0 then 'days30'
                 else 'current' end as band
          from cash_items i join organisations o on o.id = i.org_id
          where i.org_id = ${orgId} and i.source = 'LEDGER_INVOICE' and i.ledger_status = 'AUTHORISED' and i.amount_due > 0) x
        where amount > 0
        group by band`,
  );
  const by = new Map(found.map((r) => [r.band, r]));
  const bucket = (band: AgeingBand) => ({ count: Number(by.get(band)?.n ?? 0), amount: canonical(by.get(band)?.amount ?? '0') });
  const total = found.reduce((t, r) => ({ n: t.n + Number(r.n), amount: t.amount.plus(dec(r.amount ?? '0')) }), { n: 0, amount: dec('0') });
  return {
    ...(Object.fromEntries(AGEING_BANDS.map((b) => [b, bucket(b)])) as Record<AgeingBand, { count: number; amount: string }>),
    total: { count: total.n, amount: canonical(total.amount) },
  };
}

/** The credits of each side: credit notes and overpayments sit in the AR/AP account; prepayments in the account their lines name. */
const CREDIT_TYPES = {
  AR: { account: ['ACCRECCREDIT', 'RECEIVE-OVERPAYMENT'], prepayment: 'RECEIVE-PREPAYMENT' },
  AP: { account: ['ACCPAYCREDIT', 'SPEND-OVERPAYMENT'], prepayment: 'SPEND-PREPAYMENT' },
} as const;

/**
 * Credits not yet allocated to an invoice or bill (AUTHORISED, remaining
 * credit above zero), in the base currency with each credit's own rate.
 * `account`: credit notes and overpayments, which the ledger's receivables
 * (AR) or payables (AP) account nets off the documents' amounts still owed;
 * `prepayments`: prepayments, posted to the account their lines name, not the
 * AR/AP account (docs/forecast.md#daily-summary). Both reduce what the contact
 * will pay or be paid, and the forecast nets them off its open documents.
 */
export async function unallocatedCredit(db: Db, orgId: string, side: 'AR' | 'AP'): Promise<{ account: { count: number; amount: string }; prepayments: { count: number; amount: string } }> {
  const types = CREDIT_TYPES[side];
  const list = await rows<{ pre: boolean; n: number | string; amount: string | null }>(
    db,
    sql`select i.ledger_type = ${types.prepayment} as pre, count(*)::int8 as n, sum(${base('amount_due')}) as amount
        from cash_items i join organisations o on o.id = i.org_id
        where i.org_id = ${orgId} and i.source in ('LEDGER_CREDIT_NOTE', 'LEDGER_OVERPAYMENT', 'LEDGER_PREPAYMENT')
          and i.ledger_type in (${types.account[0]}, ${types.account[1]}, ${types.prepayment})
          and i.ledger_status = 'AUTHORISED' and i.amount_due > 0
        group by 1`,
  );
  const of = (pre: boolean) => {
    const r = list.find((x) => Boolean(x.pre) === pre);
    return { count: Number(r?.n ?? 0), amount: canonical(r?.amount ?? '0') };
  };
  return { account: of(false), prepayments: of(true) };
}

/** The 13-week outlook part of a snapshot (weeks without their item lists), read by id. */
export async function outlookOfSnapshot(
  db: Db,
  orgId: string,
  snapshotId: string,
): Promise<Pick<ForecastPayload, 'weeks' | 'startingCash' | 'endingCash' | 'notesForAgent'> | null> {
  const [r] = await rows<{ weeks: ForecastPayload['weeks'] | null; start: string; end: string; notes: ForecastPayload['notesForAgent'] | null }>(
    db,
    sql`select (select jsonb_agg(w - 'itemIds' - 'overdueItemIds' - 'categories' order by n) from jsonb_array_elements(f.payload->'weeks') with ordinality as x(w, n)) as weeks,
          f.payload->>'startingCash' as start, f.payload->>'endingCash' as "end", f.payload->'notesForAgent' as notes
        from forecast_snapshots f where f.org_id = ${orgId} and f.id = ${snapshotId}`,
  );
  if (!r || !r.weeks) return null;
  return { weeks: r.weeks, startingCash: r.start, endingCash: r.end, notesForAgent: r.notes ?? [] };
}

/**
 * Pending anomalies of the 7 days ending on `asOf`, counted in SQL with the
 * rule of `pendingAnomalies` (src/domain/forecast/daily.ts): the movements of
 * the window above `factor` times the 90th percentile (percentile_disc) of the
 * same direction's movements in the `historyDays` before it, when that
 * history has at least `minHistory` movements.
 */
export async function countPendingAnomalies(db: Db, orgId: string, asOf: string, rule: { factor: number; historyDays: number; minHistory: number }): Promise<number> {
  const from = addDays(asOf, -6);
  const histFrom = addDays(from, -rule.historyDays);
  const [r] = await rows<{ n: number | string }>(
    db,
    sql`with ev as (
          select p.date, ${PAYMENT_SIGNED} as amount
            from payments p ${ITEM_OF_PAYMENT} join organisations o on o.id = p.org_id
            where p.org_id = ${orgId} and p.status = 'AUTHORISED' and p.date between ${histFrom} and ${asOf}
          union all
          select t.date, case when t.type like 'SPEND%' then -t.total else t.total end
            from bank_transactions t
            where t.org_id = ${orgId} and t.status = 'AUTHORISED' and t.type not like '%TRANSFER' and t.date between ${histFrom} and ${asOf}),
        lim as (
          select sign(amount) as s, percentile_disc(0.9) within group (order by abs(amount)) as p, count(*) as n
            from ev where date < ${from} and amount <> 0 group by sign(amount))
        select count(*)::int8 as n from ev join lim on lim.s = sign(ev.amount)
          where ev.date >= ${from} and lim.n >= ${rule.minHistory} and abs(ev.amount) > ${String(rule.factor)}::numeric * lim.p`,
  );
  return Number(r?.n ?? 0);
}
