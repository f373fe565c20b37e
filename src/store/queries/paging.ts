/**
 * Keyset paging shared by every list (invoices, bills, credit notes, purchase
 * orders, contacts), with sensitive-data gating and totals.
 *
 * Order: a stable total order, sort key descending then id descending. Pages
 * are KEYSET pages (`(sort_key, id) < (last sort key, last id)`, never
 * OFFSET), so paging stays correct and cheap however many rows share a date.
 *
 * What a page is, with gating (the key lacks READ_SENSITIVE):
 * - The page holds the next `limit` VISIBLE rows after the cursor (gated rows
 *   are filtered in SQL, so a page is only short at the end of the list).
 * - redactedItemCount is the number of gated rows in the stretch of the list
 *   the page covers: after the cursor and up to the last row returned; on the
 *   last page, up to the end of the list. The stretches of successive pages
 *   are disjoint and cover the list, so over a full walk
 *   sum(rows returned) + sum(redactedItemCount) = totalCount.
 * - totalCount counts every matched row before gating.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import { type CursorPosition, InvalidCursorError } from '../../domain/cursor.js';
import { canonical, sum } from '../../domain/money.js';
import { TOTALS_CAP } from '../../domain/list-params.js';
import type { InvoiceBillTotals } from '../../schemas/ledger.js';

export type SortKind = 'date' | 'timestamptz' | 'numeric';

const DATE_KEY = /^\d{4}-\d{2}-\d{2}$/;
const TS_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const NUMERIC_KEY = /^-?\d{1,30}(\.\d{1,12})?$/;
const KEY_PATTERN: Record<SortKind, RegExp> = { date: DATE_KEY, timestamptz: TS_KEY, numeric: NUMERIC_KEY };

export interface KeysetSpec {
  /** The page's select list; must include the sort key as `sort_key` (text, see sortKeyText) and the id as `id`. */
  columns: SQL;
  /** `from <tables>` of the page (display joins allowed). */
  from: SQL;
  /** Every filter condition, org_id included. */
  where: SQL;
  /** Sort key column and its kind. */
  sortCol: SQL;
  sortKind: SortKind;
  idCol: SQL;
  /**
   * Boolean SQL: the row is withheld from this caller; null when nothing is
   * gated. Evaluated per row in the select list (write it as a plain column
   * or a scalar sub-select), never as a WHERE anti-join: the planner would
   * otherwise hash the whole sensitive set for every page.
   */
  gated: SQL | null;
  /**
   * Keys first: when `where` filters on columns an index holds but cannot
   * seek on while keeping the order (a status list), pick the page's keys
   * with an index-only scan first (`keysFrom`: `from <table> <alias>`), then
   * fetch the rows through `joinKeys` (the display `from`, joined to the
   * keys CTE `k` on the primary key). Saves a heap fetch for every row the
   * filter rejects.
   */
  keysFirst?: { keysFrom: SQL; joinKeys: SQL; keyCols: SQL };
}

export interface KeysetPage<R> {
  rows: R[];
  /** Position of the last row returned when more visible rows follow; else null. */
  next: CursorPosition | null;
  /** Gated rows in the stretch this page covers (0 when nothing is gated). */
  redacted: number;
}

/** Rejects a cursor position that does not fit the list's key (defence in depth: cursors are signed). */
export function checkPosition(kind: SortKind, pos: CursorPosition): void {
  if (!KEY_PATTERN[kind].test(pos[0])) throw new InvalidCursorError();
}

/** The sort key as text that round-trips exactly (dates as YYYY-MM-DD, timestamps to the microsecond, UTC). */
export function sortKeyText(col: SQL, kind: SortKind): SQL {
  if (kind === 'numeric') return sql`(${col})::text`;
  return kind === 'date'
    ? sql`to_char(${col}, 'YYYY-MM-DD')`
    : sql`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

function keyLiteral(kind: SortKind, v: string): SQL {
  if (kind === 'numeric') return sql`${v}::numeric`;
  return kind === 'date' ? sql`${v}::date` : sql`${v}::timestamptz`;
}

/** `(sort, id) < position`: strictly after `position` in descending order. */
export function after(spec: Pick<KeysetSpec, 'sortCol' | 'sortKind' | 'idCol'>, pos: CursorPosition): SQL {
  return sql`(${spec.sortCol}, ${spec.idCol}) < (${keyLiteral(spec.sortKind, pos[0])}, ${pos[1]})`;
}

/**
 * The page query: the next `n` rows after `from` in list order, gated ones
 * included and flagged (`gated`). Exported for the benchmark's floor.
 */
export function pageSql(spec: KeysetSpec, from: CursorPosition | null, n: number): SQL {
  const conds: SQL[] = [spec.where];
  if (from) conds.push(after(spec, from));
  const where = sql.join(conds, sql` and `);
  if (spec.keysFirst) {
    const k = spec.keysFirst;
    return sql`with k as materialized (select ${k.keyCols} ${k.keysFrom} where ${where}
        order by ${spec.sortCol} desc, ${spec.idCol} desc limit ${n})
      select ${spec.columns}, ${spec.gated ?? sql`false`} as gated ${k.joinKeys}
      order by ${spec.sortCol} desc, ${spec.idCol} desc`;
  }
  return sql`select ${spec.columns}, ${spec.gated ?? sql`false`} as gated ${spec.from}
    where ${where}
    order by ${spec.sortCol} desc, ${spec.idCol} desc limit ${n}`;
}

/** Rows fetched per round trip beyond the page when gating may drop some. */
const gatedChunk = (limit: number) => limit + 1 + Math.ceil(limit / 8) + 8;
const MAX_CHUNK = 20_000;

/**
 * The next `limit` visible rows after `from`. Walks the list in order, in
 * chunks (usually one round trip): visible rows are collected until one more
 * than the page is seen; gated rows are counted into the stretch of the page
 * they fall in (before the last row returned; or anywhere up to the end of
 * the list when this is the last page).
 */
export async function keysetPage<R extends { sort_key: string; id: string; gated: boolean }>(
  db: Db,
  spec: KeysetSpec,
  from: CursorPosition | null,
  limit: number,
  opts: {
    /**
     * Further gating decided outside SQL, per fetched chunk (the rows not
     * already gated in SQL): resolves to the predicate "withhold this row".
     * lines=true uses it: the chunk's lines are fetched for the page anyway.
     */
    refine?: (chunk: R[]) => Promise<(row: R) => boolean>;
    /** Fetches the next `n` rows after a position in list order (default: pageSql). */
    fetch?: (from: CursorPosition | null, n: number) => Promise<R[]>;
    /** Rows may be withheld (sizes the first chunk with slack); default: spec.gated or refine given. */
    gating?: boolean;
  } = {},
): Promise<KeysetPage<R>> {
  if (from) checkPosition(spec.sortKind, from);
  const page: R[] = [];
  let redacted = 0;
  let pending = 0;
  let hasMore = false;
  let pos = from;
  const gating = opts.gating ?? (spec.gated !== null || opts.refine !== undefined);
  let chunk = gating ? gatedChunk(limit) : limit + 1;
  let seen = 0;
  const fetch = opts.fetch ?? ((at: CursorPosition | null, n: number) => rows<R>(db, pageSql(spec, at, n)));
  for (;;) {
    const fetched = await fetch(pos, chunk);
    const withheld = opts.refine ? await opts.refine(fetched.filter((r) => !r.gated)) : undefined;
    for (const r of fetched) {
      if (r.gated || withheld?.(r)) pending++;
      else if (page.length < limit) {
        page.push(r);
        redacted += pending;
        pending = 0;
      } else {
        hasMore = true;
        break;
      }
    }
    const last = fetched[fetched.length - 1];
    if (hasMore || fetched.length < chunk || !last) break;
    pos = [last.sort_key, last.id];
    seen += fetched.length;
    // Size the next chunk from the visible share seen so far (at least double when nothing was visible).
    const missing = limit + 1 - page.length;
    const share = page.length / seen;
    chunk = Math.min(MAX_CHUNK, share > 0 ? Math.ceil((missing / share) * 1.25) + 16 : chunk * 2);
  }
  if (!hasMore) redacted += pending;
  const last = page[page.length - 1];
  return { rows: page, next: hasMore && last ? [last.sort_key, last.id] : null, redacted };
}

/**
 * Where counts and totals come from: the rows themselves (`count(*)`,
 * `sum(total)`), or a summary kept in step with them (cash_item_counts:
 * `sum(n)`, `sum(amount)`). Either way exact, in SQL, over the whole filtered set.
 */
export interface AggregateSource {
  /** `from <table> <alias>` */
  from: SQL;
  where: SQL;
  status: SQL;
  currency: SQL;
  /** Aggregate expression of the row count. */
  n: SQL;
  /** Aggregate expression of the amount. */
  amount: SQL;
}

/** Matched rows before gating. Exported for the benchmark's floor. */
export function countSql(a: AggregateSource): SQL {
  return sql`select coalesce(${a.n}, 0)::int8 as n ${a.from} where ${a.where}`;
}

export async function countOf(db: Db, a: AggregateSource): Promise<number> {
  const [r] = await rows<{ n: number }>(db, countSql(a));
  return Number(r?.n ?? 0);
}

/**
 * InvoiceBillTotals over the whole filtered set, in SQL (GROUP BY status,
 * currency; exact NUMERIC sums). `matched` is the set's size (already
 * counted): above `cap` nothing is computed and `truncated` is returned.
 */
export async function totalsOf(
  db: Db,
  a: AggregateSource,
  statuses: readonly string[],
  matched: number,
  cap: number = TOTALS_CAP,
): Promise<{ totals: InvoiceBillTotals } | { truncated: true }> {
  if (matched > cap) return { truncated: true };
  const groups = await rows<{ status: string; currency: string; n: number; amount: string }>(
    db,
    sql`select ${a.status} as status, ${a.currency} as currency, ${a.n}::int8 as n, ${a.amount} as amount
        ${a.from} where ${a.where} group by 1, 2 having ${a.n} > 0`,
  );
  return { totals: shapeTotals(groups, statuses) };
}

/** Builds the spec's totals variants from (status, currency, count, amount) groups. */
export function shapeTotals(
  groups: { status: string; currency: string; n: number; amount: string }[],
  statuses: readonly string[],
): InvoiceBillTotals {
  const zeroFilled = () => {
    const by: Record<string, { count: number; amount: string }> = {};
    for (const s of statuses) by[s] = { count: 0, amount: '0' };
    return by;
  };
  const currencies = [...new Set(groups.map((g) => g.currency))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (groups.length === 0) {
    return { byStatus: zeroFilled(), grandTotal: { count: 0, amount: '0' } };
  }
  const bucket = (gs: typeof groups) => ({
    count: gs.reduce((n, g) => n + Number(g.n), 0),
    amount: canonical(sum(gs.map((g) => g.amount))),
  });
  if (currencies.length === 1) {
    const byStatus = zeroFilled();
    for (const g of groups) byStatus[g.status] = bucket(groups.filter((x) => x.status === g.status));
    return { byStatus, grandTotal: bucket(groups), currency: currencies[0]! };
  }
  const primary = currencies[0]!;
  // Amounts of different currencies are never added: one bucket per currency.
  const byCurrency = Object.fromEntries(currencies.map((c) => [c, bucket(groups.filter((g) => g.currency === c))]));
  return {
    byStatus: null,
    grandTotal: bucket(groups.filter((g) => g.currency === primary)),
    mixedCurrency: true,
    primaryCurrency: primary,
    byCurrency,
  };
}

/** `YYYY-MM-DD` to the spec's date-time (midnight UTC). */
export function dayToDateTime(d: string): string;
export function dayToDateTime(d: string | null | undefined): string | null;
export function dayToDateTime(d: string | null | undefined): string | null {
  return d ? `${d}T00:00:00.000Z` : null;
}

/** ISO instant from a timestamp rendered by `sortKeyText` or PostgreSQL text. */
export function tsToDateTime(v: string): string {
  return new Date(v.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();
}

/** Binds a JS list as one parameter (a JSON array), usable as `= any(...)`. */
export function textArray(values: readonly string[]): SQL {
  return sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

/** The character codes money() reads. */
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * canonical() for NUMERIC text as the store returns it ('123.4500', '-0.50'),
 * without a decimal.js round trip (lists format tens of thousands of values):
 * `-?\d+(\.\d+)?` is trimmed of its leading and trailing zeros in one scan,
 * and handed back as it is when there is nothing to trim (most amounts);
 * anything else goes through canonical().
 */
export function money(v: string): string {
  const n = v.length;
  const neg = v.charCodeAt(0) === MINUS;
  const intStart = neg ? 1 : 0;
  let i = intStart;
  while (i < n && isDigit(v.charCodeAt(i))) i++;
  const intEnd = i;
  if (intEnd === intStart) return canonical(v);
  // Where the answer ends: after the last non-zero digit of the fraction, else before the point.
  let end = intEnd;
  if (i < n) {
    if (v.charCodeAt(i) !== DOT) return canonical(v);
    const fracStart = ++i;
    while (i < n && isDigit(v.charCodeAt(i))) i++;
    if (i !== n || i === fracStart) return canonical(v);
    end = n;
    while (end > fracStart && v.charCodeAt(end - 1) === ZERO) end--;
    if (end === fracStart) end = intEnd;
  }
  // Leading zeros of the integer part go, its last digit stays.
  let start = intStart;
  while (start < intEnd - 1 && v.charCodeAt(start) === ZERO) start++;
  if (end === intEnd && start === intEnd - 1 && v.charCodeAt(start) === ZERO) return '0';
  if (start === intStart) return end === n ? v : v.slice(0, end);
  return neg ? `-${v.slice(start, end)}` : v.slice(start, end);
}

export function moneyOrNull(v: string | null | undefined): string | null {
  return v === null || v === undefined ? null : money(v);
}
