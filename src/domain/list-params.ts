/**
 * The list endpoints' parameters (spec 4.3, 4.4, 4.6; decisions.md): their
 * limits and vocabularies, the typed parameters a list query parses into
 * (src/schemas/params.ts is the parser), the status rule, the one error
 * type of a bad parameter, and the filters a cursor is bound to. Pure: no I/O.
 *
 * Status: comma-separated, OR semantics; values are trimmed and compared
 * case-insensitively with the endpoint's vocabulary (ledger statuses for
 * invoices, bills and credit notes; the raw purchase-order statuses for
 * purchase orders, matched verbatim: no FORECAST/ACTUAL collapse). Unknown
 * values are ignored (and reported); when nothing known remains, there is
 * no status filter. Repeated `status` parameters are combined.
 */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;
export const AUTO_PAGINATE_CAP = 5000;
export const TOTALS_CAP = 100_000;
/** The longest `q` (search text) a list takes, in characters after trimming. */
export const SEARCH_MAX_LENGTH = 100;

export const LEDGER_STATUS_VALUES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'] as const;
export const PURCHASE_ORDER_STATUS_VALUES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'BILLED', 'DELETED'] as const;

/** A bad query parameter: the one error type, answered as 400 bad_request naming it (`<parameter>: <message>`). */
export class ParamError extends Error {
  readonly code = 'bad_request';
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
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
  /** Invoices and bills: inclusive bounds on the due date. */
  dueFrom?: string | undefined;
  dueTo?: string | undefined;
  /** Invoices and bills: only those due before this day (the organisation's today) and still owed (overdue=true). */
  overdueOn?: string | undefined;
  /**
   * Search text (`q`, trimmed, 1 to SEARCH_MAX_LENGTH characters): a
   * case- and accent-insensitive substring of the document's number (and
   * reference, invoices and bills) or of its contact's name (docs/lists.md#q).
   */
  q?: string | undefined;
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
  /** overdue=true (invoices and bills): the route fixes filters.overdueOn to the organisation's today. */
  overdue?: boolean;
}

export const CONTACT_TYPES = ['customer', 'supplier', 'both'] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];
export const CONTACT_SORTS = ['recent_desc', 'revenue_desc', 'spend_desc'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

/** The filter object a cursor is bound to (normalised, so equivalent requests agree). */
export function itemFiltersForCursor(f: ItemFilters): Record<string, unknown> {
  return { statuses: f.statuses, contactId: f.contactId, dateFrom: f.dateFrom, dateTo: f.dateTo, dueFrom: f.dueFrom, dueTo: f.dueTo, overdueOn: f.overdueOn, q: f.q };
}
