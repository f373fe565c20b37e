/** The Accounting API of the Xero-compatible server (under /api.xro/2.0): auth and scopes, faults, If-Modified-Since, paging, resources, writes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseXeroTimestamp } from '../ledger/xero/dates.js';
import { scopesFor, writeScopesFor } from '../ledger/xero/scopes.js';
import { ID_FIELD, sorted, XERO_PAGED, type ListResource, type PagedResource, type Rec, type XeroDataset } from './dataset.js';
import { answerFault } from './faults.js';
import { envelope, json, problem } from './http.js';
import { bearerGrant } from './identity.js';
import type { XeroState } from './state.js';
import { handleWrite } from './writes.js';

export const MAX_PAGE_SIZE = 1000;
export const JOURNALS_PER_CALL = 100;

/** If-Modified-Since: an HTTP date or an ISO 8601 instant (UTC when it has no zone), as ms; null when absent. */
export function parseSince(v: string | string[] | undefined): number | null | 'invalid' {
  if (v === undefined || Array.isArray(v) || v.trim() === '') return null;
  const s = v.trim();
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(s) ? `${s}Z` : s;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : 'invalid';
}

/** One Accounting API request; `path` is under /api.xro/2.0. GET reads; PUT and POST write (./writes.ts). */
export async function handleApi(state: XeroState, req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'PUT' && method !== 'POST') return problem(res, 405, 'Method Not Allowed', `${method} is not supported here`);
  const data = authorised(state, req, res, path, method !== 'GET');
  if (!data) return;
  const fault = state.faults.take(path);
  if (fault && answerFault(res, fault, { stalled: state.stalled, redirectTo: () => `${state.redirectHost.url}${url.pathname}${url.search}` })) return;
  if (method !== 'GET') return handleWrite(data, req, res, path, (e) => state.webhooks?.enqueue(e, data.tenantId));
  return serve(data, req, res, path, url);
}

/** Whether the app may never call `path` (the `forbidden` option: Xero reserves some endpoints for some tiers). */
function isForbidden(forbidden: string[], path: string): boolean {
  return forbidden.some((f) => {
    const p = f.startsWith('/api.xro/2.0/') ? f.slice('/api.xro/2.0'.length) : f;
    return path === p || path.startsWith(`${p}/`);
  });
}

/**
 * The bearer token, the app's access to the path, the token's scopes and the tenant, as Xero checks them; the
 * tenant's dataset, or null once a 401/403 is answered. An expired token's Detail says TokenExpired (the client
 * refreshes); a missing scope's says AuthorizationUnsuccessful (a refresh would not help).
 */
function authorised(state: XeroState, req: IncomingMessage, res: ServerResponse, path: string, write: boolean): XeroDataset | null {
  const grant = bearerGrant(state, req, res);
  if (!grant) return null;
  if (isForbidden(state.policy.forbidden, path)) {
    problem(res, 403, 'Forbidden', 'AuthenticationUnsuccessful');
    return null;
  }
  // A path no scope opens is answered by the handlers (404 or 405), as Xero does.
  const needed = write ? writeScopesFor(path) : scopesFor(path);
  if (needed.length && !needed.some((s) => grant.scopes.includes(s))) {
    problem(res, 401, 'Unauthorized', 'AuthorizationUnsuccessful');
    return null;
  }
  const tenantId = req.headers['xero-tenant-id'];
  const data = typeof tenantId === 'string' ? state.tenants.get(tenantId) : undefined;
  if (!data || !grant.connections.some((c) => c.tenantId === tenantId)) {
    problem(res, 403, 'Forbidden', 'AuthenticationUnsuccessful');
    return null;
  }
  return data;
}

/** Whether a record's stamp is at or after If-Modified-Since (records without a readable stamp always are). */
type Fresh = (r: Rec, field?: string) => boolean;

function serve(data: XeroDataset, req: IncomingMessage, res: ServerResponse, path: string, url: URL): void {
  const since = parseSince(req.headers['if-modified-since']);
  if (since === 'invalid') return problem(res, 400, 'Bad Request', 'If-Modified-Since is not a date');
  const fresh: Fresh = (r, field = 'UpdatedDateUTC') => {
    if (since === null) return true;
    const at = typeof r[field] === 'string' ? parseXeroTimestamp(r[field] as string) : null;
    return at === null || at.getTime() >= since;
  };

  if (path === '/Organisation') return json(res, 200, { ...envelope(), Organisations: [data.organisation] });
  if (path === '/Reports/BankSummary') return json(res, 200, { ...envelope(), ...data.bankSummary });
  if (path === '/Accounts') return json(res, 200, { ...envelope(), Accounts: sorted(data.records.Accounts, 'AccountID').filter((r) => fresh(r)) });
  if (path === '/RepeatingInvoices') return json(res, 200, { ...envelope(), RepeatingInvoices: sorted(data.records.RepeatingInvoices, 'RepeatingInvoiceID') });
  if (path === '/Journals') return serveJournals(data, res, url, fresh);
  const one = /^\/([A-Za-z]+)\/([^/]+)$/.exec(path);
  if (one && Object.hasOwn(ID_FIELD, one[1]!)) return serveOne(data, res, one[1] as ListResource, decodeURIComponent(one[2]!));
  const resource = (XERO_PAGED as readonly string[]).includes(path.slice(1)) ? (path.slice(1) as PagedResource) : null;
  if (!resource) return problem(res, 404, 'Not Found', `The resource ${path} is not served here`);
  return servePaged(data, res, url, resource, fresh);
}

/** GET /{Resource}/{id} (what a webhook's resourceUrl points at): the list's answer shape with that one record; an invoice also by number. */
function serveOne(data: XeroDataset, res: ServerResponse, resource: ListResource, id: string): void {
  const idField = ID_FIELD[resource];
  const list = data.records[resource];
  const rec = list.find((r) => r[idField] === id) ?? (resource === 'Invoices' ? list.find((r) => r.InvoiceNumber === id) : undefined);
  if (!rec) return problem(res, 404, 'Not Found', `No ${resource.replace(/s$/, '')} ${id}`);
  return json(res, 200, { ...envelope(), [resource]: [rec] });
}

/** /Journals: up to JOURNALS_PER_CALL journals after the JournalNumber `offset`. */
function serveJournals(data: XeroDataset, res: ServerResponse, url: URL, fresh: Fresh): void {
  const offsetText = url.searchParams.get('offset') ?? '0';
  if (!/^\d+$/.test(offsetText)) return problem(res, 400, 'Bad Request', 'offset must be a whole number');
  const offset = Number(offsetText);
  const out = data.journals.filter((j) => Number(j.JournalNumber) > offset && fresh(j, 'CreatedDateUTC')).slice(0, JOURNALS_PER_CALL);
  return json(res, 200, { ...envelope(), Journals: out });
}

/** A paged resource: `page`, `pageSize` (≤ MAX_PAGE_SIZE) and a `pagination` block. */
function servePaged(data: XeroDataset, res: ServerResponse, url: URL, resource: PagedResource, fresh: Fresh): void {
  const pageText = url.searchParams.get('page') ?? '1';
  const sizeText = url.searchParams.get('pageSize') ?? '100';
  if (!/^\d+$/.test(pageText) || Number(pageText) < 1) return problem(res, 400, 'Bad Request', 'page must be a positive whole number');
  if (!/^\d+$/.test(sizeText) || Number(sizeText) < 1) return problem(res, 400, 'Bad Request', 'pageSize must be a positive whole number');
  const page = Number(pageText);
  const size = Math.min(MAX_PAGE_SIZE, Number(sizeText));
  const all = sorted(data.records[resource], ID_FIELD[resource]).filter((r) => fresh(r));
  const slice = all.slice((page - 1) * size, page * size);
  return json(res, 200, {
    ...envelope(),
    pagination: { page, pageSize: size, pageCount: Math.ceil(all.length / size), itemCount: all.length },
    [resource]: slice,
  });
}
