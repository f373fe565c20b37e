/**
 * Invoices and bills (spec 4.3): receivable items (source LEDGER_INVOICE,
 * type ACCREC) and payable items (source LEDGER_BILL, type ACCPAY). Credit
 * notes are their own source (LEDGER_CREDIT_NOTE) and never appear here.
 *
 * Filters: status (OR over ledgerStatus), contactId, dateFrom/dateTo inclusive
 * on sort_date (the issue date, else the due date). Order: sort_date desc,
 * id desc (keyset pages, see paging.ts). Every query filters by org_id.
 *
 * Gating (key without READ_SENSITIVE): items of sensitive contacts are
 * withheld and, with lines=true, so are items with a line on a sensitive
 * account code. Amounts and totals are never masked.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import type { CursorPosition } from '../../domain/cursor.js';
import { LEDGER_STATUS_VALUES, type ItemFilters, TOTALS_CAP } from '../../domain/list-params.js';
import type { Invoice, InvoiceBillTotals, InvoiceLine } from '../../schemas/ledger.js';
import { SENSITIVE_ACCOUNT } from '../../domain/sensitive.js';
import { canonical } from '../../domain/money.js';
import { slugify } from '../../domain/slug.js';
import {
  type AggregateSource,
  countOf,
  dayToDateTime,
  after,
  type KeysetPage,
  type KeysetSpec,
  keysetPage,
  money,
  moneyOrNull,
  sortKeyText,
  textArray,
  totalsOf,
} from './paging.js';
import { documentSearch, namedContacts } from './search.js';

export type ItemKind = 'invoices' | 'bills';

const SOURCE: Record<ItemKind, { source: string; ledgerType: string }> = {
  invoices: { source: 'LEDGER_INVOICE', ledgerType: 'ACCREC' },
  bills: { source: 'LEDGER_BILL', ledgerType: 'ACCPAY' },
};

/**
 * Conditions on `ci` (cash_items) shared by the page, the counts and the
 * totals. With `q`, `named` are the contacts the search names as the caller
 * may see them (namedContacts in search.ts: without READ_SENSITIVE, never a
 * sensitive one); a search without them is a programming error.
 */
export function itemWhere(orgId: string, source: string, ledgerType: string, f: ItemFilters, named?: readonly string[]): SQL {
  const conds: SQL[] = [sql`ci.org_id = ${orgId}`, sql`ci.source = ${source}`, sql`ci.ledger_type = ${ledgerType}`];
  if (f.statuses.length > 0) conds.push(sql`ci.ledger_status = any(${textArray(f.statuses)})`);
  if (f.contactId) conds.push(sql`ci.contact_id = ${f.contactId}`);
  if (f.dateFrom) conds.push(sql`ci.sort_date >= ${f.dateFrom}::date`);
  // sort_date is a DATE: `<=` the day covers it to the end of that day (UTC).
  if (f.dateTo) conds.push(sql`ci.sort_date <= ${f.dateTo}::date`);
  if (f.dueFrom) conds.push(sql`ci.due_date >= ${f.dueFrom}::date`);
  if (f.dueTo) conds.push(sql`ci.due_date <= ${f.dueTo}::date`);
  if (f.overdueOn) conds.push(sql`ci.due_date < ${f.overdueOn}::date and ci.ledger_status = 'AUTHORISED' and ci.amount_due > 0`);
  if (f.q) {
    if (!named) throw new Error('itemWhere: a search needs the contacts it names (namedContacts)');
    // Invoices and bills by number or reference, credit notes by number; all by contact name. Only `ci` columns (keysSql).
    const own = source === 'LEDGER_CREDIT_NOTE' ? [sql`ci.number`] : [sql`ci.number`, sql`ci.reference`];
    conds.push(documentSearch(f.q, own, sql`ci.contact_id`, named));
  }
  return sql.join(conds, sql` and `);
}

/** The contacts a list request's `q` names, as its caller may see them (empty without q). */
export async function itemSearchContacts(db: Db, input: { orgId: string; filters: ItemFilters; gate: boolean }): Promise<string[]> {
  return input.filters.q ? namedContacts(db, input.orgId, input.filters.q, input.gate) : [];
}

/** Filters the per-day and all-time summaries cannot answer (they know status, currency and date only). */
const needsItems = (f: ItemFilters) => Boolean(f.contactId || f.dueFrom || f.dueTo || f.overdueOn || f.q);

/**
 * Counts and totals of items: from the summaries kept in step with cash_items
 * by triggers (migration 0001_list_counts: per org, source, type, status and
 * currency; and per sort date too) when the filters are among status and
 * dates; from the items themselves (through cash_items_contact_idx,
 * cash_items_due_idx and cash_items_search_idx) when a contactId, a due-date
 * filter or `q` is given (`named` as in itemWhere).
 */
export function itemAggregate(orgId: string, source: string, ledgerType: string, f: ItemFilters, named?: readonly string[]): AggregateSource {
  if (needsItems(f)) {
    return {
      from: sql`from cash_items ci`,
      where: itemWhere(orgId, source, ledgerType, f, named),
      status: sql`ci.ledger_status`,
      currency: sql`ci.currency`,
      n: sql`count(*)`,
      amount: sql`sum(ci.total)`,
    };
  }
  const conds: SQL[] = [sql`k.org_id = ${orgId}`, sql`k.source = ${source}`, sql`k.ledger_type = ${ledgerType}`];
  if (f.statuses.length > 0) conds.push(sql`k.ledger_status = any(${textArray(f.statuses)})`);
  if (f.dateFrom) conds.push(sql`k.sort_date >= ${f.dateFrom}::date`);
  if (f.dateTo) conds.push(sql`k.sort_date <= ${f.dateTo}::date`);
  return {
    // Without dates, the all-time summary (a handful of rows); with dates, the per-day one.
    from: f.dateFrom || f.dateTo ? sql`from cash_item_day_counts k` : sql`from cash_item_counts k`,
    where: sql.join(conds, sql` and `),
    status: sql`k.ledger_status`,
    currency: sql`k.currency`,
    n: sql`sum(k.n)`,
    amount: sql`sum(k.amount)`,
  };
}

/** The item's contact is sensitive (needs the `c` join of the page). */
export const SENSITIVE_CONTACT = sql`coalesce(c.is_sensitive, false)`;

export interface ItemListInput {
  orgId: string;
  kind: ItemKind;
  filters: ItemFilters;
  /** Keyset position to continue after (from a verified cursor). */
  after: CursorPosition | null;
  /** Visible rows wanted (page size, or the autoPaginate cap). */
  limit: number;
  lines: boolean;
  /** The key lacks READ_SENSITIVE. */
  gate: boolean;
  totals: boolean;
  /** Totals are omitted above this many matched rows (spec: 100,000). */
  totalsCap?: number;
  /** With `q`: the contacts it names (itemSearchContacts); listItems looks them up when absent. */
  named?: readonly string[];
}

export interface ItemListResult<T> {
  items: T[];
  next: CursorPosition | null;
  totalCount: number;
  redactedItemCount: number;
  totals?: InvoiceBillTotals;
  totalsTruncated?: true;
}

interface ItemRow extends Record<string, unknown> {
  sort_key: string;
  id: string;
  gated: boolean;
  number: string | null;
  reference: string | null;
  total: string;
  amount_due: string;
  amount_paid: string;
  amount_credited: string;
  currency: string;
  issue_date: string | null;
  due_date: string | null;
  paid_date: string | null;
  status: string;
  ledger_status: string;
  contact_id: string | null;
  contact_name: string | null;
  /** [account code, name, sensitive ('true' | 'false')] of the largest line's account; null without one (CATEGORY). */
  category: [string, string | null, string | null] | null;
}

export function invoiceKeysetSpec(input: Pick<ItemListInput, 'orgId' | 'kind' | 'filters' | 'gate' | 'named'>): KeysetSpec {
  const { source, ledgerType } = SOURCE[input.kind];
  // Lines on sensitive accounts (lines=true) are gated in listItems, from the lines it fetches anyway.
  const gated = input.gate ? SENSITIVE_CONTACT : null;
  return {
    columns: sql`${sortKeyText(sql`ci.sort_date`, 'date')} as sort_key, ci.id, ci.number, ci.reference, ci.total,
        ci.amount_due, ci.amount_paid, ci.amount_credited, ci.currency, ci.issue_date, ci.due_date, ci.paid_date, ci.status, ci.ledger_status, ci.contact_id, c.name as contact_name,
        ${CATEGORY} as category`,
    from: sql`from cash_items ci left join contacts c on c.org_id = ci.org_id and c.id = ci.contact_id`,
    where: itemWhere(input.orgId, source, ledgerType, input.filters, input.named),
    sortCol: sql`ci.sort_date`,
    sortKind: 'date',
    idCol: sql`ci.id`,
    gated,
    // A status list cannot be an index seek that keeps the order: filter it on cash_items_list_idx alone (index-only).
    ...(keysFirstFits(input.filters) ? { keysFirst: ITEM_KEYS_FIRST } : {}),
  };
}

/** The keys-first page fits a status list alone: a contactId or `q` has its own index, which the keys scan would not use. */
export const keysFirstFits = (f: ItemFilters) => f.statuses.length > 0 && !f.contactId && !f.q;

export const ITEM_KEYS_FIRST = {
  keysFrom: sql`from cash_items ci`,
  keyCols: sql`ci.org_id, ci.sort_date, ci.id`,
  joinKeys: sql`from k join cash_items ci on ci.org_id = k.org_id and ci.id = k.id
    left join contacts c on c.org_id = ci.org_id and c.id = ci.contact_id`,
};

/** Counts and totals source of a list request. */
export function invoiceAggregate(input: Pick<ItemListInput, 'orgId' | 'kind' | 'filters' | 'named'>): AggregateSource {
  const { source, ledgerType } = SOURCE[input.kind];
  return itemAggregate(input.orgId, source, ledgerType, input.filters, input.named);
}

function toInvoice(r: ItemRow): Invoice {
  return {
    id: r.id,
    externalId: r.id,
    invoiceNumber: r.number,
    reference: r.reference,
    amount: money(r.total),
    amountPaid: money(r.amount_paid),
    amountCredited: money(r.amount_credited),
    amountDue: money(r.amount_due),
    currency: r.currency,
    expectedDate: dayToDateTime(r.due_date ?? r.issue_date ?? r.sort_key),
    actualDate: dayToDateTime(r.paid_date),
    issueDate: dayToDateTime(r.issue_date),
    status: r.status as Invoice['status'],
    ledgerStatus: r.ledger_status as Invoice['ledgerStatus'],
    contactId: r.contact_id,
    contactName: r.contact_name,
    category: null,
    categorySlug: null,
  };
}

/**
 * The category of an item (`ci`): the account of its largest line (by
 * absolute line amount, then line number), as `{code, name, sensitive}` text
 * (the name of the code's active account first; sensitive when any account
 * of the code is), null without a line on an account. A sub-select of the
 * page's select list, so it runs for the page's rows only (after the limit)
 * and the page stays one round trip.
 */
const CATEGORY = sql`(select array[x.account_code, acc.name, acc.sensitive::text]
    from (select l.account_code from cash_item_lines l
          where l.org_id = ci.org_id and l.item_id = ci.id and l.account_code is not null
          order by abs(l.line_amount) desc, l.line_number limit 1) x
    cross join lateral (select (array_agg(a.name order by (a.status = 'ACTIVE') desc, a.id))[1] as name, bool_or(a.is_sensitive) as sensitive
          from accounts a where a.org_id = ci.org_id and a.code = x.account_code) acc)`;

/** Sets `category` and `categorySlug` of the item from its row's category, renamed when sensitive and gated. */
function applyCategory(it: Invoice, category: ItemRow['category'], gate: boolean, slugs: Map<string, string>): void {
  const name = category?.[1];
  if (!name) return; // no line on an account, or no account of that code
  const hidden = gate && category[2] === 'true';
  it.category = hidden ? SENSITIVE_ACCOUNT : name;
  if (hidden) it.categorySlug = 'sensitive-account';
  else {
    let slug = slugs.get(name); // a page has few accounts: each slugged once
    if (slug === undefined) slugs.set(name, (slug = slugify(name)));
    it.categorySlug = slug;
  }
}

interface LineRow extends Record<string, unknown> {
  item_id: string;
  line_number: number;
  id: string;
  description: string | null;
  quantity: string | null;
  unit_amount: string | null;
  line_amount: string;
  tax_amount: string;
  tax_type: string | null;
  account_code: string | null;
  discount_rate: string | null;
  discount_amount: string | null;
  subtotal: string | null;
}

/** Lines of the given items: one query of PK look-ups. Exported for the benchmark's floor. */
export function linesSql(orgId: string, itemIds: readonly string[]): SQL {
  return sql`select l.item_id, l.line_number, l.id, l.description, l.quantity, l.unit_amount, l.line_amount, l.tax_amount,
      l.tax_type, l.account_code, l.discount_rate, l.discount_amount, l.quantity * l.unit_amount as subtotal
    from cash_item_lines l where l.org_id = ${orgId} and l.item_id = any(${textArray(itemIds)})`;
}

export interface AccountInfo {
  name: string;
  /** Some account with this code is sensitive. */
  sensitive: boolean;
}

/** The chart of accounts by code (the name of the active account first). */
export async function accountsByCode(db: Db, orgId: string): Promise<Map<string, AccountInfo>> {
  const list = await rows<{ code: string; name: string; sensitive: boolean }>(
    db,
    sql`select code, (array_agg(name order by (status = 'ACTIVE') desc, id))[1] as name, bool_or(is_sensitive) as sensitive
      from accounts where org_id = ${orgId} and code is not null group by code`,
  );
  return new Map(list.map((a) => [a.code, { name: a.name, sensitive: a.sensitive }]));
}

export interface FetchedLines {
  lines: Map<string, InvoiceLine[]>;
  /** Items with a line on a sensitive account. */
  sensitive: Set<string>;
}

/** Fetches and shapes the lines of the given items into `into` (InvoiceLine, spec 2.4; `currency` is set by the caller). */
export async function itemLines(
  db: Db,
  orgId: string,
  itemIds: readonly string[],
  accounts: Map<string, AccountInfo>,
  isBill: boolean,
  into: FetchedLines = { lines: new Map(), sensitive: new Set() },
): Promise<FetchedLines> {
  if (itemIds.length === 0) return into;
  const fetched = await rows<LineRow>(db, linesSql(orgId, itemIds));
  fetched.sort((a, b) => (a.item_id < b.item_id ? -1 : a.item_id > b.item_id ? 1 : a.line_number - b.line_number));
  for (const l of fetched) {
    const account = l.account_code === null ? undefined : accounts.get(l.account_code);
    if (account?.sensitive) into.sensitive.add(l.item_id);
    const line: InvoiceLine = {
      id: l.id,
      lineNumber: Number(l.line_number),
      accountCode: l.account_code,
      accountName: account?.name ?? '',
      lineAmount: money(l.line_amount),
      taxAmount: money(l.tax_amount),
      quantity: moneyOrNull(l.quantity),
      unitAmount: moneyOrNull(l.unit_amount),
      // Spec 2.4: sales invoices only; always null on bills.
      discountRate: isBill ? null : moneyOrNull(l.discount_rate),
      discountAmount: isBill ? null : moneyOrNull(l.discount_amount),
      // quantity x unitAmount, exact (NUMERIC product); null when either is unknown.
      lineSubtotal: isBill ? null : moneyOrNull(l.subtotal),
      taxType: l.tax_type,
      currency: '',
      lineDescription: l.description,
    };
    const list = into.lines.get(l.item_id);
    if (list) list.push(line);
    else into.lines.set(l.item_id, [line]);
  }
  return into;
}

interface KeyRow extends Record<string, unknown> {
  sort_key: string;
  id: string;
  contact_id: string | null;
  gated: boolean;
}

/** The list's keys in order (index-only on cash_items_list_idx). Exported for the benchmark's floor. */
export function keysSql(spec: KeysetSpec, from: CursorPosition | null, n: number): SQL {
  const conds: SQL[] = [spec.where];
  if (from) conds.push(after(spec, from));
  return sql`select ${sortKeyText(sql`ci.sort_date`, 'date')} as sort_key, ci.id, ci.contact_id from cash_items ci
    where ${sql.join(conds, sql` and `)} order by ci.sort_date desc, ci.id desc limit ${n}`;
}

/** The page rows of the given ids (any order). Exported for the benchmark's floor. */
export function detailsSql(spec: KeysetSpec, orgId: string, ids: readonly string[]): SQL {
  return sql`select ${spec.columns}, false as gated ${spec.from} where ci.org_id = ${orgId} and ci.id = any(${textArray(ids)})`;
}

/** Ids of the organisation's sensitive contacts. */
export async function sensitiveContactIds(db: Db, orgId: string): Promise<Set<string>> {
  const list = await rows<{ id: string }>(db, sql`select id from contacts where org_id = ${orgId} and is_sensitive`);
  return new Set(list.map((r) => r.id));
}

/**
 * lines=true: walk the keys (index-only), and for each chunk fetch the rows
 * and their lines concurrently (two connections on PostgreSQL); the lines
 * decide the gating on sensitive accounts (spec 4.3 rule 3) and are the
 * page's lines.
 */
async function walkWithLines(db: Db, input: ItemListInput, spec: KeysetSpec, fetched: FetchedLines): Promise<KeysetPage<ItemRow>> {
  const isBill = input.kind === 'bills';
  const [accounts, sensitiveContacts] = await Promise.all([
    accountsByCode(db, input.orgId),
    input.gate ? sensitiveContactIds(db, input.orgId) : Promise.resolve(null),
  ]);
  const details = new Map<string, ItemRow>();
  const page = await keysetPage<KeyRow>(db, spec, input.after, input.limit, {
    gating: input.gate,
    fetch: async (at, n) => {
      const keys = await rows<KeyRow>(db, keysSql(spec, at, n));
      for (const k of keys) k.gated = k.contact_id !== null && sensitiveContacts !== null && sensitiveContacts.has(k.contact_id);
      return keys;
    },
    refine: async (chunk) => {
      const ids = chunk.map((k) => k.id);
      const [rowsOfChunk] = await Promise.all([
        ids.length ? rows<ItemRow>(db, detailsSql(spec, input.orgId, ids)) : Promise.resolve([] as ItemRow[]),
        itemLines(db, input.orgId, ids, accounts, isBill, fetched),
      ]);
      for (const r of rowsOfChunk) details.set(r.id, r);
      return (k) => input.gate && fetched.sensitive.has(k.id);
    },
  });
  // A row deleted between the two reads is left out (it no longer matches anyway).
  const out = page.rows.map((k) => details.get(k.id)).filter((r): r is ItemRow => r !== undefined);
  return { rows: out, next: page.next, redacted: page.redacted };
}

/**
 * The filtered set in the organisation's base currency, each document
 * converted with its own rate (Xero's CurrencyRate: foreign units per base
 * unit), rounded to cents per document: the one base-currency total of a
 * mixed-currency list, labelled as converted. A foreign document without a
 * rate cannot be converted: it is left out and counted in unconvertedCount.
 */
async function convertedTotal(db: Db, input: Pick<ItemListInput, 'orgId' | 'kind' | 'filters' | 'named'>): Promise<NonNullable<InvoiceBillTotals['convertedTotal']>> {
  const { source, ledgerType } = SOURCE[input.kind];
  const [r] = await rows<{ currency: string; n: number | string; skipped: number | string; amount: string | null }>(
    db,
    sql`select o.base_currency as currency,
          count(*) filter (where ci.currency = o.base_currency or coalesce(ci.currency_rate, 0) <> 0)::int8 as n,
          count(*) filter (where ci.currency <> o.base_currency and coalesce(ci.currency_rate, 0) = 0)::int8 as skipped,
          sum(case when ci.currency = o.base_currency then ci.total
                   when ci.currency_rate is not null and ci.currency_rate <> 0 then round(ci.total / ci.currency_rate, 2) end) as amount
        from cash_items ci join organisations o on o.id = ci.org_id
        where ${itemWhere(input.orgId, source, ledgerType, input.filters, input.named)}
        group by o.base_currency`,
  );
  return {
    currency: r?.currency ?? '',
    count: Number(r?.n ?? 0),
    amount: canonical(r?.amount ?? '0'),
    converted: true,
    unconvertedCount: Number(r?.skipped ?? 0),
  };
}

/** One page (or the autoPaginate set) of invoices or bills, with counts and optional totals. */
export async function listItems(db: Db, query: ItemListInput): Promise<ItemListResult<Invoice>> {
  const input = { ...query, named: query.named ?? (await itemSearchContacts(db, query)) };
  const spec = invoiceKeysetSpec(input);
  const agg = invoiceAggregate(input);
  const fetched: FetchedLines = { lines: new Map(), sensitive: new Set() };
  const [page, totalCount] = await Promise.all([
    input.lines ? walkWithLines(db, input, spec, fetched) : keysetPage<ItemRow>(db, spec, input.after, input.limit),
    countOf(db, agg),
  ]);
  const slugs = new Map<string, string>();
  const items = page.rows.map((r) => {
    const it = toInvoice(r);
    applyCategory(it, r.category, input.gate, slugs);
    return it;
  });
  if (input.lines) {
    for (const it of items) {
      const lines = fetched.lines.get(it.id) ?? [];
      for (const l of lines) l.currency = it.currency;
      it.lines = lines;
    }
  }
  const result: ItemListResult<Invoice> = { items, next: page.next, totalCount, redactedItemCount: page.redacted };
  if (input.totals) {
    const t = await totalsOf(db, agg, LEDGER_STATUS_VALUES, totalCount, input.totalsCap ?? TOTALS_CAP);
    if ('totals' in t) {
      result.totals = t.totals;
      if (t.totals.mixedCurrency) result.totals.convertedTotal = await convertedTotal(db, input);
    } else result.totalsTruncated = true;
  }
  return result;
}

/** The numbers of these documents of the organisation (null: the ledger has none; ids it does not have are left out). */
export async function documentNumbers(db: Db, orgId: string, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const list = await rows<{ id: string; number: string | null }>(
    db,
    sql`select id, number from cash_items where org_id = ${orgId} and id = any(${sql.param([...ids])}::text[])
        union all select id, number from purchase_orders where org_id = ${orgId} and id = any(${sql.param([...ids])}::text[])`,
  );
  return new Map(list.map((r) => [r.id, r.number]));
}
