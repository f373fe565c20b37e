/**
 * What every list and drill route shares (spec 4.3; docs/lists.md): the
 * caller's organisation
 * and sensitive-data gate, signed cursors bound to the organisation, the
 * endpoint and the normalised filters (anything else is 400
 * invalid_cursor), the paging fields (nextCursor, totalCount,
 * redactedItemCount, truncated, totals, totalsTruncated), and the OpenAPI
 * response helpers.
 */
import type { Context } from 'hono';
import { type CursorPosition, decodeCursor, encodeCursor, filtersHash, InvalidCursorError } from '../domain/cursor.js';
import type { PagingParams } from '../domain/list-params.js';
import { ErrorResponse } from '../schemas/common.js';
import type { AppEnv } from './context.js';
import type { OrgMeta } from '../store/queries/organisation.js';
import { ApiError } from './errors.js';
import type { Db } from '../store/db.js';
import { contactsByIds } from '../store/queries/organisation.js';
import { documentNumbers } from '../store/queries/cash-items.js';
import { SENSITIVE_CONTACT } from '../domain/sensitive.js';

/** The request's organisation and what its key may see. */
export function listCaller(c: Context<AppEnv>): { orgId: string; gate: boolean } {
  const auth = c.get('auth');
  // The pipeline resolves the organisation before any handler of these routes runs.
  if (!auth.orgId) throw new ApiError(400, 'org_required', 'This endpoint needs an organisation.');
  return { orgId: auth.orgId, gate: !auth.canSeeSensitive };
}

/** The request's organisation as the queries take it (400 org_required without one). */
export function callerOrg(c: Context<AppEnv>): OrgMeta {
  const org = c.get('auth').org;
  if (!org) throw new ApiError(400, 'org_required', 'This endpoint needs an organisation.');
  return { id: org.id, name: org.name, timezone: org.timezone, baseCurrency: org.baseCurrency };
}

export interface Paging {
  /** Where the page starts (null: the beginning; always null with autoPaginate). */
  after: CursorPosition | null;
  /** nextCursor for a result's `next` position (always null with autoPaginate). */
  nextCursor(next: CursorPosition | null): string | null;
}

/** Verifies the cursor against (organisation, endpoint, filters) and gives the encoder of the next one. */
export function paging(c: Context<AppEnv>, orgId: string, endpoint: string, filters: Record<string, unknown>, params: PagingParams): Paging {
  const secret = c.get('deps').cursorSecret;
  const ctx = { orgId, endpoint, filtersHash: filtersHash(filters) };
  let after: CursorPosition | null = null;
  if (params.cursor !== undefined) {
    try {
      after = decodeCursor(secret, ctx, params.cursor);
    } catch (err) {
      if (err instanceof InvalidCursorError) throw invalidCursor();
      throw err;
    }
  }
  return {
    after,
    nextCursor: (next) => (params.autoPaginate || !next ? null : encodeCursor(secret, ctx, next)),
  };
}

export const invalidCursor = () =>
  new ApiError(400, 'invalid_cursor', 'The cursor is not valid for this request: use the nextCursor of the same endpoint, organisation and filters.', {
    parameter: 'cursor',
  });

/** The paging fields of a list response (spec 2.4 InvoicesResponse, 2.5 ContactsListResponse). */
export function pageFields<T>(
  params: PagingParams,
  p: Paging,
  r: { next: CursorPosition | null; totalCount: number; redactedItemCount: number; totals?: T; totalsTruncated?: true },
): {
  nextCursor: string | null;
  totalCount: number;
  redactedItemCount: number;
  truncated?: true;
  totals?: T;
  totalsTruncated?: true;
} {
  return {
    nextCursor: p.nextCursor(r.next),
    totalCount: r.totalCount,
    redactedItemCount: r.redactedItemCount,
    // autoPaginate: more rows than the 5,000 returned (spec 4.3).
    ...(params.autoPaginate && r.next ? { truncated: true as const } : {}),
    ...(r.totals !== undefined ? { totals: r.totals } : {}),
    ...(r.totalsTruncated ? { totalsTruncated: true as const } : {}),
  };
}

/** What every list query of the store takes beside its own filters. */
export interface PageWindow {
  orgId: string;
  gate: boolean;
  after: CursorPosition | null;
  limit: number;
  totals: boolean;
}

type PageResult = { next: CursorPosition | null; totalCount: number; redactedItemCount: number; totals?: unknown; totalsTruncated?: true };

/**
 * One page of a list: the caller's organisation and gate, the cursor checked
 * against (organisation, endpoint, filters), the store query, and the paging
 * fields of the answer.
 */
export async function listPage<R extends PageResult>(
  c: Context<AppEnv>,
  endpoint: string,
  filters: Record<string, unknown>,
  params: PagingParams,
  query: (w: PageWindow) => Promise<R>,
) {
  const { orgId, gate } = listCaller(c);
  const p = paging(c, orgId, endpoint, filters, params);
  const r = await cursorSafe(query({ orgId, gate, after: p.after, limit: params.limit, totals: params.totals }));
  // The totals keep the query's own type (R's), so the answer is typed by it.
  return { r, fields: pageFields(params, p, r as R & { totals?: NonNullable<R['totals']> }) };
}

/** A store-level InvalidCursorError (a signed cursor whose position does not fit) is still a 400 invalid_cursor. */
export async function cursorSafe<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof InvalidCursorError) throw invalidCursor();
    throw err;
  }
}

export const json = <T>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

export const notFoundResponse = {
  404: {
    description: 'No such id in this organisation (also for ids of other organisations, and for rows withheld from keys without READ_SENSITIVE).',
    content: { 'application/json': { schema: ErrorResponse } },
  },
} as const;


/**
 * The contact names and document numbers of an answer's rows, read once
 * (two queries): a sensitive contact's name is `Sensitive contact` for a key
 * without READ_SENSITIVE (`gate`), each rewrite counted for
 * redactedItemCount. Used by the answers computed outside SQL (collections,
 * forecast changes).
 */
export async function rowNames(db: Db, orgId: string, gate: boolean, rows: readonly { contactId: string | null; documentId: string | null }[]) {
  const [contacts, numbers] = await Promise.all([
    contactsByIds(db, orgId, [...new Set(rows.flatMap((x) => (x.contactId ? [x.contactId] : [])))]),
    documentNumbers(db, orgId, rows.flatMap((x) => (x.documentId ? [x.documentId] : []))),
  ]);
  let redacted = 0;
  return {
    contactName(contactId: string | null): string | null {
      const k = contactId ? contacts.get(contactId) : undefined;
      if (!k) return null;
      if (k.sensitive && gate) {
        redacted++;
        return SENSITIVE_CONTACT;
      }
      return k.name;
    },
    number: (documentId: string | null): string | null | undefined => (documentId ? numbers.get(documentId) : null),
    redacted: () => redacted,
  };
}
