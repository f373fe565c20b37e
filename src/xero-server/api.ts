/** The Accounting API of the Xero-compatible server (under /api.xro/2.0): auth, faults, If-Modified-Since, paging, resources. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseXeroTimestamp } from '../ledger/xero/dates.js';
import { ID_FIELD, sorted, XERO_PAGED, type PagedResource, type Rec, type XeroDataset } from './dataset.js';
import { answerFault } from './faults.js';
import { bearer, envelope, json, problem } from './http.js';
import type { XeroState } from './state.js';

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

/** One Accounting API request; `path` is under /api.xro/2.0. */
export async function handleApi(state: XeroState, req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
  if (req.method !== 'GET') return problem(res, 405, 'Method Not Allowed', 'This server is read-only');
  if (!authorised(state, req, res)) return;
  const fault = state.faults.take(path);
  if (fault && answerFault(res, fault, { stalled: state.stalled, redirectTo: () => `${state.redirectHost.url}${url.pathname}${url.search}` })) return;
  return serve(state.data, req, res, path, url);
}

/** The bearer token and the tenant; answers 401/403 and returns false when they do not hold. */
function authorised(state: XeroState, req: IncomingMessage, res: ServerResponse): boolean {
  const info = state.tokens.accessInfo(bearer(req));
  if (!info || info.revoked) {
    problem(res, 401, 'Unauthorized', 'AuthenticationUnsuccessful');
    return false;
  }
  if (info.expiresAt <= Date.now()) {
    problem(res, 401, 'Unauthorized', `TokenExpired: token expired at ${new Date(info.expiresAt).toUTCString()}`);
    return false;
  }
  if (req.headers['xero-tenant-id'] !== state.data.tenantId) {
    problem(res, 403, 'Forbidden', 'AuthenticationUnsuccessful: xero-tenant-id');
    return false;
  }
  return true;
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
  const resource = (XERO_PAGED as readonly string[]).includes(path.slice(1)) ? (path.slice(1) as PagedResource) : null;
  if (!resource) return problem(res, 404, 'Not Found', `The resource ${path} is not served here`);
  return servePaged(data, res, url, resource, fresh);
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
