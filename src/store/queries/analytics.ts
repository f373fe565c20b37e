/**
 * Store access of the analytics (docs/analytics.md): the few set-based
 * queries the nightly baseline job loads its input with, the writes of its
 * results (contact_baselines, derived_snapshots), and the reads of the
 * summary endpoints. Every query filters by org_id. Amounts are converted to
 * the organisation's base currency in SQL (Xero CurrencyRate: foreign units
 * per base unit; an amount without a usable rate is null and adds nothing).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import * as s from '../schema.js';
import type { DateWindow } from '../../domain/fiscal.js';
import { monthRange } from '../../domain/fiscal.js';
import { canonical } from '../../domain/money.js';
import type { CreditNote, MarginMonth, SalesInvoice } from '../../domain/analytics/customer.js';
import type { AnalyticsInput, ContactAnalytics, ContactInfo, OrganisationAnalytics, SupplierBills } from '../../domain/analytics/organisation.js';
import type { DayAmount, NamedEntry } from '../../domain/analytics/summary.js';

/** derived_snapshots kinds written by the baseline job. */
export const SNAPSHOT_KINDS = {
  contactsSummary: 'contacts_summary',
  cohorts: 'cohorts',
  organisation: 'analytics',
} as const;
export const ANALYTICS_ENGINE_VERSION = 1;

export interface OrgSettings {
  id: string;
  timezone: string;
  baseCurrency: string;
  fyEndDay: number;
  fyEndMonth: number;
  grossMarginOverride: string | null;
}

export async function loadOrgSettings(db: Db, orgId: string): Promise<OrgSettings | null> {
  const [o] = await rows<{
    id: string;
    timezone: string;
    base_currency: string;
    fy_end_day: number;
    fy_end_month: number;
    gross_margin_override: string | null;
  }>(db, sql`select id, timezone, base_currency, fy_end_day, fy_end_month, gross_margin_override from organisations where id = ${orgId}`);
  if (!o) return null;
  return {
    id: o.id,
    timezone: o.timezone,
    baseCurrency: o.base_currency,
    fyEndDay: o.fy_end_day,
    fyEndMonth: o.fy_end_month,
    grossMarginOverride: o.gross_margin_override,
  };
}

/** `amount` of cash item `ci` in the base currency; null without a usable rate. */
function inBase(amount: SQL, baseCurrency: string): SQL {
  return sql`(case when ci.currency = ${baseCurrency} then ${amount}
    when ci.currency_rate is not null and ci.currency_rate <> 0 then round(${amount} / ci.currency_rate, 2) end)`;
}

/** A JSON array of strings as a text[] parameter (the same on both drivers). */
function textArray(values: readonly string[]): SQL {
  return sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

/** Accounts counted as cost of sales: type DIRECTCOSTS, or named cost of goods / cost of sales / COGS. */
function costOfSalesCodes(orgId: string): SQL {
  return sql`select a.code from accounts a where a.org_id = ${orgId} and a.code is not null
    and (a.type = 'DIRECTCOSTS' or lower(a.name) like '%cost of goods%' or lower(a.name) like '%cost of sales%' or lower(a.name) like '%cogs%')`;
}

/**
 * Organisation-wide ex-tax sales and cost of sales per month of `window`
 * (every month present, zero-filled), on an accrual basis by issue date:
 * sales = AUTHORISED/PAID sales invoices' subtotals less receivable credit
 * notes'; cost of sales = ex-tax bill lines coded to cost-of-sales accounts
 * less supplier credit-note lines so coded.
 */
export async function marginMonths(db: Db, orgId: string, window: DateWindow, baseCurrency: string): Promise<MarginMonth[]> {
  const exTaxLine = sql`(case when ci.line_amount_types = 'Inclusive' then l.line_amount - l.tax_amount else l.line_amount end)`;
  const found = await rows<{ month: string; revenue: string | null; cost: string | null; lines: number | null }>(
    db,
    sql`with sales as (
        select to_char(ci.sort_date, 'YYYY-MM') as month,
          sum(case when ci.ledger_type = 'ACCRECCREDIT' then -1 else 1 end * ${inBase(sql`ci.sub_total`, baseCurrency)}) as revenue
        from cash_items ci
        where ci.org_id = ${orgId} and ci.source in ('LEDGER_INVOICE', 'LEDGER_CREDIT_NOTE') and ci.ledger_type in ('ACCREC', 'ACCRECCREDIT')
          and ci.ledger_status in ('AUTHORISED', 'PAID') and ci.sort_date between ${window.from}::date and ${window.to}::date
        group by 1),
      costs as (
        select to_char(ci.sort_date, 'YYYY-MM') as month,
          sum(case when ci.ledger_type = 'ACCPAYCREDIT' then -1 else 1 end * ${inBase(exTaxLine, baseCurrency)}) as cost,
          count(*)::int8 as lines
        from cash_items ci join cash_item_lines l on l.org_id = ci.org_id and l.item_id = ci.id
        where ci.org_id = ${orgId} and ci.source in ('LEDGER_BILL', 'LEDGER_CREDIT_NOTE') and ci.ledger_type in ('ACCPAY', 'ACCPAYCREDIT')
          and ci.ledger_status in ('AUTHORISED', 'PAID') and ci.sort_date between ${window.from}::date and ${window.to}::date
          and l.account_code in (${costOfSalesCodes(orgId)})
        group by 1)
      select coalesce(sales.month, costs.month) as month, sales.revenue, costs.cost, costs.lines
      from sales full join costs on costs.month = sales.month`,
  );
  const byMonth = new Map(found.map((r) => [r.month, r]));
  return monthRange(window.from, window.to).map((month) => {
    const r = byMonth.get(month);
    return { month, revenue: canonical(r?.revenue ?? '0'), costOfSales: canonical(r?.cost ?? '0'), costLines: Number(r?.lines ?? 0) };
  });
}

/** Everything the organisation's analysis reads, in five set-based queries. */
export async function loadAnalyticsInput(
  db: Db,
  org: OrgSettings,
  today: string,
  marginWindow: DateWindow,
): Promise<AnalyticsInput> {
  const orgId = org.id;
  const base = org.baseCurrency;
  const [contacts, invoices, credits, bills, months] = await Promise.all([
    rows<{ id: string; is_customer: boolean; is_supplier: boolean }>(
      db,
      sql`select id, is_customer, is_supplier from contacts where org_id = ${orgId}`,
    ),
    rows<{
      contact_id: string;
      ledger_status: string;
      status: string;
      date: string;
      due_date: string | null;
      paid_date: string | null;
      total: string | null;
      sub_total: string | null;
    }>(
      db,
      sql`select ci.contact_id, ci.ledger_status, ci.status, ci.sort_date as date, ci.due_date, ci.paid_date,
          ${inBase(sql`ci.total`, base)} as total, ${inBase(sql`ci.sub_total`, base)} as sub_total
        from cash_items ci
        where ci.org_id = ${orgId} and ci.source = 'LEDGER_INVOICE' and ci.contact_id is not null`,
    ),
    rows<{ contact_id: string; ledger_type: string; ledger_status: string; currency: string; remaining: string | null }>(
      db,
      sql`select ci.contact_id, ci.ledger_type, ci.ledger_status, ci.currency,
          coalesce(ci.remaining_credit, ci.total - coalesce((select sum(a.amount) from credit_note_allocations a
            where a.org_id = ci.org_id and a.credit_note_id = ci.id), 0)) as remaining
        from cash_items ci
        where ci.org_id = ${orgId} and ci.source = 'LEDGER_CREDIT_NOTE' and ci.ledger_type = 'ACCRECCREDIT'
          and ci.ledger_status = 'AUTHORISED' and ci.contact_id is not null`,
    ),
    rows<{ contact_id: string; spend: string | null; gross: string | null; bills: number }>(
      db,
      sql`select ci.contact_id,
          sum(case when ci.status = 'ACTUAL' then ${inBase(sql`ci.total`, base)} end) as spend,
          sum(case when ci.ledger_status in ('AUTHORISED', 'PAID') then ${inBase(sql`ci.total`, base)} end) as gross,
          count(*) filter (where ci.ledger_status in ('AUTHORISED', 'PAID'))::int8 as bills
        from cash_items ci
        where ci.org_id = ${orgId} and ci.source = 'LEDGER_BILL' and ci.contact_id is not null
        group by ci.contact_id`,
    ),
    marginMonths(db, orgId, marginWindow, base),
  ]);
  return {
    today,
    baseCurrency: base,
    grossMarginOverride: org.grossMarginOverride,
    contacts: contacts.map((c): ContactInfo => ({ id: c.id, isCustomer: c.is_customer, isSupplier: c.is_supplier })),
    invoices: invoices.map(
      (i): SalesInvoice => ({
        contactId: i.contact_id,
        ledgerStatus: i.ledger_status,
        status: i.status,
        date: i.date,
        dueDate: i.due_date,
        paidDate: i.paid_date,
        total: i.total,
        subTotal: i.sub_total,
      }),
    ),
    creditNotes: credits.map(
      (n): CreditNote & { contactId: string } => ({
        contactId: n.contact_id,
        ledgerType: n.ledger_type,
        ledgerStatus: n.ledger_status,
        currency: n.currency,
        remainingCredit: n.remaining,
      }),
    ),
    supplierBills: bills.map(
      (b): SupplierBills => ({ contactId: b.contact_id, spendAllTime: b.spend ?? '0', billGross: b.gross ?? '0', bills: Number(b.bills) }),
    ),
    marginMonths: months,
  };
}

/** The `details` of a contact_baselines row (docs/analytics.md lists the keys). */
export function baselineDetails(c: ContactAnalytics): Record<string, unknown> {
  return {
    projectedLtv: c.projectedLtv,
    historicalLtv: c.historicalLtv,
    grossMarginPercent: c.grossMarginPercent,
    expectedLifetimeYears: c.expectedLifetimeYears,
    churnState: c.churnState,
    // The same state in the vocabulary the contact drill's fallback reads.
    churnStatus: c.churnState === null ? null : ({ Active: 'ACTIVE', 'At-risk': 'AT_RISK', Churned: 'CHURNED' } as const)[c.churnState],
    availableCredit: c.availableCredit,
    medianGapDays: c.medianGapDays,
    purchaseDays: c.purchaseDays,
    firstPurchase: c.firstPurchase,
    lastPurchase: c.lastPurchase,
    paidInvoices: c.paidInvoices,
    isCustomer: c.isCustomer,
  };
}

const CHUNK = 500;

/**
 * Stores one run's results in one transaction: a contact_baselines row per
 * contact (upsert) and the derived snapshots (upsert), so readers never see
 * half a run.
 */
export async function writeAnalytics(db: Db, orgId: string, computedAt: Date, result: OrganisationAnalytics): Promise<void> {
  const baselineRows = result.contacts.map((c) => ({
    orgId,
    contactId: c.contactId,
    computedAt,
    ltv: c.ltv,
    abcClass: c.abcClass,
    cadence: c.cadence,
    cadenceConfidence: c.cadenceConfidence,
    paymentDelayMedianDays: c.paymentDelayMedianDays,
    revenueAllTime: c.revenueAllTime,
    revenueTrailing12m: c.revenueTrailing12m,
    spendAllTime: c.spendAllTime,
    details: baselineDetails(c),
  }));
  const snapshots = [
    { kind: SNAPSHOT_KINDS.contactsSummary, payload: result.contactsSummary },
    { kind: SNAPSHOT_KINDS.cohorts, payload: result.cohorts },
    {
      kind: SNAPSHOT_KINDS.organisation,
      payload: {
        asOfDate: result.contactsSummary.asOfDate,
        grossMarginPercent: result.grossMarginPercent,
        expectedLifetimeYears: result.expectedLifetimeYears,
        contacts: result.contacts.length,
        grossProfit: result.grossProfit,
      },
    },
  ];
  await db.transaction(async (tx) => {
    for (let k = 0; k < baselineRows.length; k += CHUNK) {
      await tx
        .insert(s.contactBaselines)
        .values(baselineRows.slice(k, k + CHUNK))
        .onConflictDoUpdate({
          target: [s.contactBaselines.orgId, s.contactBaselines.contactId],
          set: {
            computedAt: sql`excluded.computed_at`,
            ltv: sql`excluded.ltv`,
            abcClass: sql`excluded.abc_class`,
            cadence: sql`excluded.cadence`,
            cadenceConfidence: sql`excluded.cadence_confidence`,
            paymentDelayMedianDays: sql`excluded.payment_delay_median_days`,
            revenueAllTime: sql`excluded.revenue_all_time`,
            revenueTrailing12m: sql`excluded.revenue_trailing_12m`,
            spendAllTime: sql`excluded.spend_all_time`,
            details: sql`excluded.details`,
          },
        });
    }
    for (const snap of snapshots) {
      await tx
        .insert(s.derivedSnapshots)
        .values({ orgId, kind: snap.kind, key: '', engineVersion: ANALYTICS_ENGINE_VERSION, computedAt, payload: snap.payload })
        .onConflictDoUpdate({
          target: [s.derivedSnapshots.orgId, s.derivedSnapshots.kind, s.derivedSnapshots.key],
          set: { engineVersion: sql`excluded.engine_version`, computedAt: sql`excluded.computed_at`, payload: sql`excluded.payload` },
        });
    }
  });
}

/** A stored snapshot's payload, or null. */
export async function readSnapshot<T>(db: Db, orgId: string, kind: string): Promise<T | null> {
  const [r] = await rows<{ payload: T }>(
    db,
    sql`select payload from derived_snapshots where org_id = ${orgId} and kind = ${kind} and key = ''`,
  );
  return r ? r.payload : null;
}

/** Names and sensitive flags of contacts, read now (a flag set after the nightly run still masks). */
export async function contactLabels(db: Db, orgId: string, ids: readonly string[]): Promise<Map<string, { name: string; isSensitive: boolean }>> {
  if (ids.length === 0) return new Map();
  const found = await rows<{ id: string; name: string; is_sensitive: boolean }>(
    db,
    sql`select id, name, is_sensitive from contacts where org_id = ${orgId} and id = any(${textArray(ids)})`,
  );
  return new Map(found.map((r) => [r.id, { name: r.name, isSensitive: r.is_sensitive }]));
}

export interface SummaryAggregates {
  /** PAID items by payment date: count and ex-tax amount per day. */
  paidDays: DayAmount[];
  /** Other statuses of items issued in the window: count and gross amount (outstanding for DRAFT/SUBMITTED/AUTHORISED). */
  statuses: { status: string; count: number; amount: string }[];
  /** The top contacts by PAID ex-tax amount in the window. */
  top: NamedEntry[];
}

/**
 * The revenue (sales invoices) or expenses (bills) summary's aggregates over
 * a window of calendar dates (inclusive), computed in the store.
 */
export async function summaryAggregates(
  db: Db,
  input: { orgId: string; kind: 'revenue' | 'expenses'; window: DateWindow; topN: number; baseCurrency: string },
): Promise<SummaryAggregates> {
  const { orgId, window, baseCurrency } = input;
  const source = input.kind === 'revenue' ? 'LEDGER_INVOICE' : 'LEDGER_BILL';
  const paidOn = sql`coalesce(ci.paid_date, ci.sort_date)`;
  const paidWhere = sql`ci.org_id = ${orgId} and ci.source = ${source} and ci.ledger_status = 'PAID'
    and ${paidOn} between ${window.from}::date and ${window.to}::date`;
  const [days, statuses, top] = await Promise.all([
    rows<{ date: string; n: number; amount: string | null }>(
      db,
      sql`select ${paidOn} as date, count(*)::int8 as n, sum(${inBase(sql`ci.sub_total`, baseCurrency)}) as amount
        from cash_items ci where ${paidWhere} group by 1`,
    ),
    rows<{ status: string; n: number; amount: string | null }>(
      db,
      sql`select ci.ledger_status as status, count(*)::int8 as n,
          sum(${inBase(sql`case when ci.ledger_status in ('VOIDED', 'DELETED') then ci.total else ci.amount_due end`, baseCurrency)}) as amount
        from cash_items ci
        where ci.org_id = ${orgId} and ci.source = ${source}
          and ci.ledger_status in ('DRAFT', 'SUBMITTED', 'AUTHORISED', 'VOIDED', 'DELETED')
          and ci.sort_date between ${window.from}::date and ${window.to}::date
        group by 1`,
    ),
    rows<{ contact_id: string; name: string; is_sensitive: boolean; n: number; amount: string }>(
      db,
      // The top N first, then their names: a join of N rows, not of every contact.
      sql`select t.contact_id, coalesce(c.name, '') as name, coalesce(c.is_sensitive, false) as is_sensitive, t.n, t.amount from (
          select ci.contact_id, count(*)::int8 as n, coalesce(sum(${inBase(sql`ci.sub_total`, baseCurrency)}), 0) as amount
          from cash_items ci where ${paidWhere} and ci.contact_id is not null
          group by ci.contact_id
          order by amount desc, ci.contact_id
          limit ${input.topN}) t
        left join contacts c on c.org_id = ${orgId} and c.id = t.contact_id
        order by t.amount desc, t.contact_id`,
    ),
  ]);
  return {
    paidDays: days.map((d) => ({ date: d.date, count: Number(d.n), amount: canonical(d.amount ?? '0') })),
    statuses: statuses.map((r) => ({ status: r.status, count: Number(r.n), amount: canonical(r.amount ?? '0') })),
    top: top.map((t) => ({ contactId: t.contact_id, name: t.name, isSensitive: t.is_sensitive, count: Number(t.n), amount: canonical(t.amount) })),
  };
}
