/**
 * Query parameters of the list endpoints (spec 4.3, 4.4, 4.6; decisions.md),
 * parsed and normalised in one place. Pure: no I/O.
 *
 * Rules:
 * - `status`: comma-separated, OR semantics; values are trimmed and compared
 *   case-insensitively with the endpoint's vocabulary (ledger statuses for
 *   invoices, bills and credit notes; the raw purchase-order statuses for
 *   purchase orders, matched verbatim: no FORECAST/ACTUAL collapse). Unknown
 *   values are ignored; when nothing known remains, there is no status filter.
 *   Repeated `status` parameters are combined.
 * - `dateFrom`/`dateTo`: YYYY-MM-DD and a real calendar date (2024-02-30 is a
 *   400); both inclusive (`dateTo` covers its whole day, UTC). dateFrom after
 *   dateTo is a 400.
 * - `limit`: default 50, capped at 200 (silently); below 1 or not an integer
 *   is a 400.
 * - booleans (`lines`, `autoPaginate`, `totals`): true/false (also 1/0); other
 *   values are a 400.
 * - `autoPaginate=true` ignores `cursor` entirely (it is not even verified).
 * - Unknown parameters are ignored. A malformed known parameter is a 400 that
 *   names it (ParamError.parameter).
 */
import { isCalendarDate } from './calendar.js';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;
export const AUTO_PAGINATE_CAP = 5000;
export const TOTALS_CAP = 100_000;

export const LEDGER_STATUS_VALUES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'] as const;
export const PURCHASE_ORDER_STATUS_VALUES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'BILLED', 'DELETED'] as const;

export class ParamError extends Error {
  readonly code = 'bad_request';
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

/** What hono's `c.req.queries()` gives (or a plain record of strings). */
export type RawQuery = Record<string, string | readonly string[] | undefined>;

function first(raw: RawQuery, name: string): string | undefined {
  const v = raw[name];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v[0];
}

function all(raw: RawQuery, name: string): string[] {
  const v = raw[name];
  if (v === undefined) return [];
  return typeof v === 'string' ? [v] : [...v];
}

export function parseLimit(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PAGE_LIMIT;
  const v = value.trim();
  if (!/^[+-]?\d+$/.test(v)) throw new ParamError('limit', `limit must be an integer between 1 and ${MAX_PAGE_LIMIT}`);
  if (v.startsWith('-') || /^[+]?0+$/.test(v)) throw new ParamError('limit', 'limit must be at least 1');
  // Any positive integer, however long, is capped.
  const digits = v.replace(/^\+/, '').replace(/^0+/, '');
  if (digits.length > 6) return MAX_PAGE_LIMIT;
  return Math.min(Number(digits), MAX_PAGE_LIMIT);
}

export function parseBool(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ParamError(name, `${name} must be true or false`);
}

export function parseDate(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.trim();
  if (!isCalendarDate(v)) throw new ParamError(name, `${name} must be a calendar date YYYY-MM-DD`);
  return v;
}

/** A parameter or value the request named that the answer ignores (reported as a warning). */
export interface IgnoredValue {
  parameter: string;
  value: string;
  message: string;
}

/** Normalises a status filter: vocabulary order, de-duplicated; unknown values are dropped and returned as ignored. */
export function parseStatusList(values: readonly string[], vocabulary: readonly string[]): { statuses: string[]; ignored: IgnoredValue[] } {
  const wanted = new Set<string>();
  const ignored: IgnoredValue[] = [];
  for (const v of values) {
    for (const part of v.split(',')) {
      const s = part.trim().toUpperCase();
      if (vocabulary.includes(s)) wanted.add(s);
      else if (part.trim() !== '') ignored.push({ parameter: 'status', value: part.trim(), message: `unknown status, ignored; known: ${vocabulary.join(', ')}` });
    }
  }
  return { statuses: vocabulary.filter((s) => wanted.has(s)), ignored };
}

export interface ItemFilters {
  /** Empty: no status filter. */
  statuses: string[];
  contactId?: string | undefined;
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

export interface PagingParams {
  /** What the request named that these parameters ignore (an unknown status, a cursor beside autoPaginate). */
  ignored: IgnoredValue[];
  /** Ignored (undefined) when autoPaginate is true. */
  cursor?: string | undefined;
  /** Rows per page (already capped); AUTO_PAGINATE_CAP when autoPaginate. */
  limit: number;
  autoPaginate: boolean;
  totals: boolean;
}

export interface ItemListParams extends PagingParams {
  filters: ItemFilters;
  lines: boolean;
}

function parsePaging(raw: RawQuery): PagingParams {
  const autoPaginate = parseBool('autoPaginate', first(raw, 'autoPaginate'));
  const limit = parseLimit(first(raw, 'limit'));
  const totals = parseBool('totals', first(raw, 'totals'));
  const cursor = first(raw, 'cursor');
  const ignored: IgnoredValue[] =
    autoPaginate && cursor !== undefined && cursor !== ''
      ? [{ parameter: 'cursor', value: cursor, message: 'ignored: autoPaginate returns the whole matched set in one answer' }]
      : [];
  return {
    ignored,
    autoPaginate,
    limit: autoPaginate ? AUTO_PAGINATE_CAP : limit,
    totals,
    cursor: autoPaginate || cursor === undefined || cursor === '' ? undefined : cursor,
  };
}

/** invoices, bills, credit notes (ledger statuses) and purchase orders (their own statuses). */
export function parseItemListParams(raw: RawQuery, vocabulary: readonly string[] = LEDGER_STATUS_VALUES): ItemListParams {
  const paging = parsePaging(raw);
  const dateFrom = parseDate('dateFrom', first(raw, 'dateFrom'));
  const dateTo = parseDate('dateTo', first(raw, 'dateTo'));
  if (dateFrom && dateTo && dateFrom > dateTo) throw new ParamError('dateFrom', 'dateFrom must not be after dateTo');
  const contactId = first(raw, 'contactId')?.trim();
  const status = parseStatusList(all(raw, 'status'), vocabulary);
  return {
    ...paging,
    ignored: [...paging.ignored, ...status.ignored],
    lines: parseBool('lines', first(raw, 'lines')),
    filters: {
      statuses: status.statuses,
      contactId: contactId ? contactId : undefined,
      dateFrom,
      dateTo,
    },
  };
}

export const CONTACT_TYPES = ['customer', 'supplier', 'both'] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];
export const CONTACT_SORTS = ['recent_desc', 'revenue_desc', 'spend_desc'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

export interface ContactListParams extends PagingParams {
  type: ContactType;
  sort: ContactSort;
}

function parseEnum<T extends string>(name: string, value: string | undefined, values: readonly T[], dflt: T): T {
  if (value === undefined || value.trim() === '') return dflt;
  const v = value.trim().toLowerCase();
  const hit = values.find((x) => x === v);
  if (!hit) throw new ParamError(name, `${name} must be one of ${values.join(', ')}`);
  return hit;
}

export function parseContactListParams(raw: RawQuery): ContactListParams {
  return {
    ...parsePaging(raw),
    type: parseEnum('type', first(raw, 'type'), CONTACT_TYPES, 'both'),
    sort: parseEnum('sort', first(raw, 'sort'), CONTACT_SORTS, 'recent_desc'),
  };
}

/** account-balances `date`: a calendar date, default `today` (the org's local date). */
export function parseAsOfDate(raw: RawQuery, today: string): string {
  return parseDate('date', first(raw, 'date')) ?? today;
}

/** The filter object a cursor is bound to (normalised, so equivalent requests agree). */
export function itemFiltersForCursor(f: ItemFilters): Record<string, unknown> {
  return { statuses: f.statuses, contactId: f.contactId, dateFrom: f.dateFrom, dateTo: f.dateTo };
}
