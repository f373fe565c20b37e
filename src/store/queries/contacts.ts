/**
 * Contacts (spec 2.5, 4.4, 4.5).
 *
 * List: `type` customer (isCustomer), supplier (isSupplier) or both (default:
 * no type filter, so every contact, including those that are neither).
 * Paging order (keyset, the sort key then id, both descending): recent_desc
 * by lastSyncedAt; revenue_desc by lifetime value (the nightly baseline's) and
 * spend_desc by all-time paid bills (base currency, live), nulls last. The whole set is in
 * that order, page after page (the specification's "sorts the returned page"
 * is superseded: docs/lists.md); a cursor is bound to its sort.
 * Without READ_SENSITIVE sensitive contacts are withheld (paging.ts explains
 * what a page then covers). Totals: byType partitions the matched set into
 * customer-only, supplier-only, both and neither; grandTotal equals totalCount.
 *
 * Drill: the ledger fields, lastInvoice/lastBill, up to 50 recentPaidInvoices,
 * the three plain sums (availableCredit, revenueAllTime, revenueTrailing12m)
 * computed here in SQL, and the analytics fields read from contact_baselines
 * (null until the nightly baseline has run). A sensitive contact is 404 for a
 * key without READ_SENSITIVE (the list withholds it too).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import type { CursorPosition } from '../../domain/cursor.js';
import { canonical, canonicalOrNull } from '../../domain/money.js';
import { addDays, daysBetween } from '../../domain/calendar.js';
import {
  type ChurnState,
  grossMarginPercent,
  historicalLtv,
  LIFETIME_MAX_YEARS,
  LIFETIME_MIN_YEARS,
  projectedLtv,
} from '../../domain/analytics/customer.js';
import { clamp } from '../../domain/analytics/stats.js';
import { type ContactSort, type ContactType, TOTALS_CAP } from '../../domain/list-params.js';
import type { ContactDrill, ContactLastItem, ContactSummary, ContactsTotals, RecentPaidInvoice } from '../../schemas/ledger.js';
import { type AggregateSource, countOf, dayToDateTime, type KeysetSpec, keysetPage, sortKeyText, tsToDateTime } from './paging.js';
import { SENSITIVE_ACCOUNT } from '../../domain/sensitive.js';
import { folded, searchPattern } from './search.js';

export const RECENT_PAID_LIMIT = 50;

/**
 * The list's filters: type, and `q` on the name or email. Without
 * READ_SENSITIVE (`gate`) a sensitive contact never matches a search (not
 * even as a withheld, counted row: that would tell the name exists).
 */
function contactWhere(orgId: string, type: ContactType, q: string | undefined, gate: boolean): SQL {
  const conds: SQL[] = [sql`c.org_id = ${orgId}`];
  if (type === 'customer') conds.push(sql`c.is_customer`);
  if (type === 'supplier') conds.push(sql`c.is_supplier`);
  if (q) {
    const p = searchPattern(q);
    conds.push(sql`(${folded(sql`c.name`, p)} or ${folded(sql`c.email`, p)})`);
    if (gate) conds.push(sql`not c.is_sensitive`);
  }
  return sql.join(conds, sql` and `);
}

/** An amount of `ci` in the organisation's base currency (Xero CurrencyRate: foreign units per base unit); null when unknown. */
export function baseAmount(amount: SQL, baseCurrency: string): SQL {
  return sql`case when ci.currency = ${baseCurrency} then ${amount}
    when ci.currency_rate is not null and ci.currency_rate <> 0 then round(${amount} / ci.currency_rate, 2) end`;
}

export interface ContactListInput {
  orgId: string;
  type: ContactType;
  sort: ContactSort;
  /** Search text on the name or email (docs/lists.md#q). */
  q?: string | undefined;
  after: CursorPosition | null;
  limit: number;
  gate: boolean;
  totals: boolean;
  totalsCap?: number;
}

export interface ContactListResult {
  contacts: ContactSummary[];
  next: CursorPosition | null;
  totalCount: number;
  redactedItemCount: number;
  totals?: ContactsTotals;
  totalsTruncated?: true;
}

interface ContactRow extends Record<string, unknown> {
  sort_key: string;
  last_synced_at: string;
  id: string;
  gated: boolean;
  name: string;
  is_customer: boolean;
  is_supplier: boolean;
  is_sensitive: boolean;
  ltv: string | null;
}

/**
 * Below every value a sort column can hold: contacts without one (non-customers
 * for revenue_desc, non-suppliers for spend_desc, customers before their first
 * baseline) sort after every contact with one (nulls last).
 */
const NULLS_LAST = '-1000000000000000000';

/** The sort column of each order: recent_desc by lastSyncedAt; revenue_desc by the baseline's lifetime value; spend_desc by all-time paid bills. */
function sortColumn(sort: ContactSort): { col: SQL; kind: 'timestamptz' | 'numeric' } {
  switch (sort) {
    case 'revenue_desc':
      return { col: sql`coalesce(case when c.is_customer then b.ltv end, ${sql.raw(NULLS_LAST)})`, kind: 'numeric' };
    case 'spend_desc':
      // All-time paid bills in the base currency, live (as the drill's figures are): a look-up on cash_items_contact_idx per contact.
      return {
        col: sql`coalesce(case when c.is_supplier then coalesce((select sum(case when ci.currency = o.base_currency then ci.total
              when ci.currency_rate is not null and ci.currency_rate <> 0 then round(ci.total / ci.currency_rate, 2) end)
            from cash_items ci join organisations o on o.id = ci.org_id
            where ci.org_id = c.org_id and ci.contact_id = c.id and ci.source = 'LEDGER_BILL' and ci.status = 'ACTUAL'), 0) end, ${sql.raw(NULLS_LAST)})`,
        kind: 'numeric',
      };
    default:
      return { col: sql`c.last_synced_at`, kind: 'timestamptz' };
  }
}

export function contactKeysetSpec(input: Pick<ContactListInput, 'orgId' | 'type' | 'gate' | 'q'> & { sort?: ContactSort }): KeysetSpec {
  const order = sortColumn(input.sort ?? 'recent_desc');
  return {
    columns: sql`${sortKeyText(order.col, order.kind)} as sort_key, ${sortKeyText(sql`c.last_synced_at`, 'timestamptz')} as last_synced_at,
        c.id, c.name, c.is_customer, c.is_supplier, c.is_sensitive, case when c.is_customer then b.ltv end as ltv`,
    from: sql`from contacts c left join contact_baselines b on b.org_id = c.org_id and b.contact_id = c.id`,
    where: contactWhere(input.orgId, input.type, input.q, input.gate),
    sortCol: order.col,
    sortKind: order.kind,
    idCol: sql`c.id`,
    gated: input.gate ? sql`c.is_sensitive` : null,
  };
}

function contactAggregate(where: SQL): AggregateSource {
  return { from: sql`from contacts c`, where, status: sql`null`, currency: sql`null`, n: sql`count(*)`, amount: sql`null` };
}

export async function listContacts(db: Db, input: ContactListInput): Promise<ContactListResult> {
  const spec = contactKeysetSpec(input);
  const wantTotals = input.totals;
  const [page, counted] = await Promise.all([
    keysetPage<ContactRow>(db, spec, input.after, input.limit),
    wantTotals
      ? rows<{ customer: number; supplier: number; both: number; neither: number }>(
          db,
          sql`select count(*) filter (where c.is_customer and not c.is_supplier)::int8 as customer,
              count(*) filter (where c.is_supplier and not c.is_customer)::int8 as supplier,
              count(*) filter (where c.is_customer and c.is_supplier)::int8 as both,
              count(*) filter (where not c.is_customer and not c.is_supplier)::int8 as neither
            from contacts c where ${spec.where}`,
        ).then((r) => r[0]!)
      : countOf(db, contactAggregate(spec.where)),
  ]);
  const contacts: ContactSummary[] = page.rows.map((r) => ({
    id: r.id,
    name: r.name,
    isCustomer: r.is_customer,
    isSupplier: r.is_supplier,
    isSensitive: r.is_sensitive,
    lastSyncedAt: tsToDateTime(r.last_synced_at),
    ltv: canonicalOrNull(r.ltv),
  }));
  let totalCount: number;
  const result: Omit<ContactListResult, 'totalCount'> = { contacts, next: page.next, redactedItemCount: page.redacted };
  if (typeof counted === 'number') {
    totalCount = counted;
  } else {
    const byType = {
      customer: Number(counted.customer),
      supplier: Number(counted.supplier),
      both: Number(counted.both),
      neither: Number(counted.neither),
    };
    totalCount = byType.customer + byType.supplier + byType.both + byType.neither;
    if (totalCount > (input.totalsCap ?? TOTALS_CAP)) result.totalsTruncated = true;
    else result.totals = { byType, grandTotal: { count: totalCount } };
  }
  return { ...result, totalCount };
}

// ---------------------------------------------------------------------------
// Drill
// ---------------------------------------------------------------------------

/** The baseline's churn state (details.churnState, or the older details.churnStatus vocabulary). */
function churnOf(d: Record<string, unknown>): ChurnState | null {
  const v = d.churnState ?? d.churnStatus;
  switch (v) {
    case 'Active':
    case 'ACTIVE':
      return 'Active';
    case 'At-risk':
    case 'AT_RISK':
      return 'At-risk';
    case 'Churned':
    case 'CHURNED':
      return 'Churned';
    default:
      return null;
  }
}

function num(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}

interface LastItemRow extends Record<string, unknown> {
  source: string;
  id: string;
  number: string | null;
  reference: string | null;
  total: string;
  amount_due: string;
  currency: string;
  issue_date: string | null;
  due_date: string | null;
  paid_date: string | null;
  status: string;
  ledger_status: string;
}

function toLastItem(r: LastItemRow): ContactLastItem {
  return {
    id: r.id,
    number: r.number,
    reference: r.reference,
    amount: canonical(r.total),
    amountDue: canonical(r.amount_due),
    currency: r.currency,
    issueDate: dayToDateTime(r.issue_date),
    dueDate: dayToDateTime(r.due_date),
    paidDate: dayToDateTime(r.paid_date),
    status: r.status as ContactLastItem['status'],
    ledgerStatus: r.ledger_status as ContactLastItem['ledgerStatus'],
  };
}

export interface ContactDrillInput {
  orgId: string;
  id: string;
  gate: boolean;
  /** Today in the organisation's time zone (YYYY-MM-DD): the end of the trailing-12-month window. */
  today: string;
}

/** The contact with its organisation's currency and margin override and its stored baseline. */
async function contactRow(db: Db, input: ContactDrillInput) {
  const [c] = await rows<{
    id: string;
    name: string;
    is_customer: boolean;
    is_supplier: boolean;
    is_sensitive: boolean;
    last_synced_at: string;
    base_currency: string;
    gross_margin_override: string | null;
    ltv: string | null;
    abc_class: string | null;
    cadence: string | null;
    cadence_confidence: number | null;
    payment_delay_median_days: string | null;
    details: Record<string, unknown> | null;
  }>(
    db,
    sql`select c.id, c.name, c.is_customer, c.is_supplier, c.is_sensitive,
        ${sortKeyText(sql`c.last_synced_at`, 'timestamptz')} as last_synced_at,
        o.base_currency, o.gross_margin_override, b.ltv, b.abc_class, b.cadence, b.cadence_confidence,
        b.payment_delay_median_days, b.details
      from contacts c join organisations o on o.id = c.org_id
      left join contact_baselines b on b.org_id = c.org_id and b.contact_id = c.id
      where c.org_id = ${input.orgId} and c.id = ${input.id}`,
  );
  return c;
}

/** Available credit, all-time revenue and the trailing 12 months' (base currency). */
function contactSums(db: Db, input: ContactDrillInput, base: string) {
  const windowStart = addDays(input.today, -365);
  return rows<{ available_credit: string | null; revenue_all_time: string | null; revenue_12m: string | null }>(
    db,
    sql`select
        sum(case when ci.source = 'LEDGER_CREDIT_NOTE' and ci.ledger_type = 'ACCRECCREDIT' and ci.ledger_status = 'AUTHORISED'
              and ci.currency = ${base}
            then coalesce(ci.remaining_credit, ci.total - coalesce((select sum(a.amount) from credit_note_allocations a
              where a.org_id = ci.org_id and a.credit_note_id = ci.id), 0)) end) as available_credit,
        sum(case when ci.source = 'LEDGER_INVOICE' and ci.status = 'ACTUAL' then ${baseAmount(sql`ci.total`, base)} end) as revenue_all_time,
        sum(case when ci.source = 'LEDGER_INVOICE' and ci.status = 'ACTUAL'
              and coalesce(ci.paid_date, ci.sort_date) > ${windowStart}::date
              and coalesce(ci.paid_date, ci.sort_date) <= ${input.today}::date
            then ${baseAmount(sql`ci.total`, base)} end) as revenue_12m
      from cash_items ci where ci.org_id = ${input.orgId} and ci.contact_id = ${input.id}`,
  );
}

/** The latest invoice and the latest bill (not voided or deleted). */
function lastItems(db: Db, input: ContactDrillInput) {
  return rows<LastItemRow>(
    db,
    sql`select * from (
        (select 'LEDGER_INVOICE' as source, ci.id, ci.number, ci.reference, ci.total, ci.amount_due, ci.currency, ci.issue_date,
            ci.due_date, ci.paid_date, ci.status, ci.ledger_status
          from cash_items ci where ci.org_id = ${input.orgId} and ci.contact_id = ${input.id} and ci.source = 'LEDGER_INVOICE'
            and ci.ledger_status not in ('VOIDED', 'DELETED')
          order by ci.sort_date desc, ci.id desc limit 1)
        union all
        (select 'LEDGER_BILL' as source, ci.id, ci.number, ci.reference, ci.total, ci.amount_due, ci.currency, ci.issue_date,
            ci.due_date, ci.paid_date, ci.status, ci.ledger_status
          from cash_items ci where ci.org_id = ${input.orgId} and ci.contact_id = ${input.id} and ci.source = 'LEDGER_BILL'
            and ci.ledger_status not in ('VOIDED', 'DELETED')
          order by ci.sort_date desc, ci.id desc limit 1)) t`,
  );
}

/** The most recent paid invoices with the account of their largest line. */
function recentPaid(db: Db, input: ContactDrillInput) {
  return rows<{
    id: string;
    number: string | null;
    reference: string | null;
    total: string;
    currency: string;
    issue_date: string | null;
    due_date: string | null;
    paid_date: string;
    account_code: string | null;
    account_name: string | null;
    sensitive: boolean;
  }>(
    db,
    sql`select ci.id, ci.number, ci.reference, ci.total, ci.currency, ci.issue_date, ci.due_date,
        coalesce(ci.paid_date, ci.sort_date) as paid_date, main.account_code, main.account_name,
        exists (select 1 from cash_item_lines sl join accounts sa on sa.org_id = sl.org_id and sa.code = sl.account_code
          where sl.org_id = ci.org_id and sl.item_id = ci.id and sa.is_sensitive) as sensitive
      from cash_items ci
      left join lateral (
        select l.account_code, (select a.name from accounts a where a.org_id = l.org_id and a.code = l.account_code
            order by (a.status = 'ACTIVE') desc, a.id limit 1) as account_name
        from cash_item_lines l where l.org_id = ci.org_id and l.item_id = ci.id
        order by abs(l.line_amount) desc, l.line_number limit 1) main on true
      where ci.org_id = ${input.orgId} and ci.contact_id = ${input.id} and ci.source = 'LEDGER_INVOICE' and ci.ledger_status = 'PAID'
      order by coalesce(ci.paid_date, ci.sort_date) desc, ci.id desc
      limit ${RECENT_PAID_LIMIT}`,
  );
}

/** The contact drill; null when absent, another org's, or a sensitive contact for a gated key. */
export async function getContact(db: Db, input: ContactDrillInput): Promise<{ contact: ContactDrill; redactedItemCount: number } | null> {
  const c = await contactRow(db, input);
  if (!c) return null;
  if (input.gate && c.is_sensitive) return null;
  const [sums, last, paid] = await Promise.all([contactSums(db, input, c.base_currency), lastItems(db, input), recentPaid(db, input)]);

  const s = sums[0];
  const revenueAllTime = canonical(s?.revenue_all_time ?? '0');
  const revenueTrailing12m = canonical(s?.revenue_12m ?? '0');
  const d = c.details ?? {};
  const gm = num(d.grossMarginPercent) ?? grossMarginPercent(c.gross_margin_override, []);
  const lifetime = clamp(num(d.expectedLifetimeYears) ?? LIFETIME_MIN_YEARS, LIFETIME_MIN_YEARS, LIFETIME_MAX_YEARS);
  // The spec's formulas over the live revenue figures of this response and the
  // baseline's margin, lifetime and churn state (docs/analytics.md): the two
  // LTVs always agree with the revenue shown beside them. projectedLtv needs
  // the churn state, so it is null until the baseline job has run.
  const churn = churnOf(d);
  const projected = churn === null ? null : projectedLtv(revenueTrailing12m, gm, lifetime, churn);
  const historical = historicalLtv(revenueAllTime, gm);
  let redacted = 0;
  const recentPaidInvoices: RecentPaidInvoice[] = paid.map((p) => {
    const masked = input.gate && p.sensitive;
    if (masked) redacted++;
    return {
      id: p.id,
      invoiceNumber: p.number,
      reference: p.reference,
      amount: canonical(p.total),
      currency: p.currency,
      issueDate: dayToDateTime(p.issue_date),
      dueDate: dayToDateTime(p.due_date),
      paidDate: dayToDateTime(p.paid_date),
      daysLate: p.due_date ? daysBetween(p.due_date, p.paid_date) : null,
      accountCode: masked ? null : p.account_code,
      accountName: masked ? SENSITIVE_ACCOUNT : (p.account_name ?? ''),
    };
  });
  const lastInvoice = last.find((r) => r.source === 'LEDGER_INVOICE');
  const lastBill = last.find((r) => r.source === 'LEDGER_BILL');
  const cadence = c.cadence as ContactDrill['cadence'];
  return {
    contact: {
      id: c.id,
      name: c.name,
      isCustomer: c.is_customer,
      isSupplier: c.is_supplier,
      isSensitive: c.is_sensitive,
      lastSyncedAt: tsToDateTime(c.last_synced_at),
      availableCredit: canonical(s?.available_credit ?? '0'),
      revenueTrailing12m,
      revenueAllTime,
      projectedLtv: projected,
      historicalLtv: historical,
      grossMarginPercent: gm,
      expectedLifetimeYears: lifetime,
      paymentDelayMedianDays: canonicalOrNull(c.payment_delay_median_days),
      cadence: cadence ?? null,
      cadenceConfidence: c.cadence_confidence ?? null,
      abcClass: c.is_customer ? ((c.abc_class as ContactDrill['abcClass']) ?? null) : null,
      lastInvoice: lastInvoice ? toLastItem(lastInvoice) : null,
      lastBill: lastBill ? toLastItem(lastBill) : null,
      recentPaidInvoices,
    },
    redactedItemCount: redacted,
  };
}
