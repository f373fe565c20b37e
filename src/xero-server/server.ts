/**
 * A Xero-compatible HTTP server on loopback, built from Xero's OpenAPI
 * description (../shared/xero/xero_accounting.yaml, xero-identity.yaml): the
 * Accounting endpoints the sync reads and the identity endpoint that issues
 * 30-minute access tokens and rotating refresh tokens. It serves a dataset
 * (by default the demo generator's bodies) and can be told to misbehave
 * (`faults`), for the tests, the benchmark and `cashline-server demo --ledger`.
 * docs/sync.md describes it.
 *
 * Endpoints (under /api.xro/2.0, bearer token and `xero-tenant-id` required):
 *   GET /Organisation, /Accounts and /RepeatingInvoices (unpaged; Xero ignores
 *   If-Modified-Since on the latter), /Contacts, /Invoices, /CreditNotes,
 *   /Overpayments, /Prepayments, /PurchaseOrders, /Payments,
 *   /BankTransactions (`page`, `pageSize` ≤ 1000, a `pagination` block), /Journals (`offset`: 100 journals after that
 *   JournalNumber), /Reports/BankSummary.
 *   `If-Modified-Since` (HTTP date or ISO 8601, UTC) keeps the records whose
 *   UpdatedDateUTC is at or after it (inclusive); records are ordered by
 *   UpdatedDateUTC, then id, so paging is stable.
 * Identity: POST /connect/token (grant_type=refresh_token; client Basic auth
 * or client_id/client_secret in the form), GET /connections.
 * Limits (Xero's, per tenant): 5 concurrent calls and 60 a minute; a breach is
 * a 429 with Retry-After and X-MinLimit-Remaining, as Xero answers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseXeroTimestamp, toMsDate } from '../ledger/xero/dates.js';
import type { XeroFiles } from '../demo/generate.js';

export const XERO_PAGED = ['Contacts', 'Invoices', 'CreditNotes', 'Overpayments', 'Prepayments', 'PurchaseOrders', 'Payments', 'BankTransactions'] as const;
export type PagedResource = (typeof XERO_PAGED)[number];
export const MAX_PAGE_SIZE = 1000;
export const JOURNALS_PER_CALL = 100;
export const ACCESS_TOKEN_TTL_S = 1800;

type Rec = Record<string, unknown>;

const ID_FIELD: Record<PagedResource | 'Accounts' | 'RepeatingInvoices', string> = {
  Contacts: 'ContactID',
  Invoices: 'InvoiceID',
  CreditNotes: 'CreditNoteID',
  Overpayments: 'OverpaymentID',
  Prepayments: 'PrepaymentID',
  RepeatingInvoices: 'RepeatingInvoiceID',
  PurchaseOrders: 'PurchaseOrderID',
  Payments: 'PaymentID',
  BankTransactions: 'BankTransactionID',
  Accounts: 'AccountID',
};

/** What the server serves: one organisation (tenant). */
export interface XeroDataset {
  tenantId: string;
  organisation: Rec;
  records: Record<PagedResource | 'Accounts' | 'RepeatingInvoices', Rec[]>;
  journals: Rec[];
  /** The Reports/BankSummary body ({Reports: [...]}). */
  bankSummary: Rec;
}

function flatten(body: unknown, key: string): Rec[] {
  if (body === undefined) return [];
  const pages = Array.isArray(body) ? body : [body];
  return pages.flatMap((p) => ((p as Rec)[key] as Rec[] | undefined) ?? []);
}

/** A dataset from the bodies of `generateDemo` (or any folder of import files, parsed). */
export function datasetFromFiles(files: XeroFiles): XeroDataset {
  const orgBody = files['Organisation.json'] as { Organisations: Rec[] } | undefined;
  const organisation = orgBody?.Organisations?.[0] ?? { OrganisationID: randomUUID(), Name: 'Xero test organisation', BaseCurrency: 'AUD' };
  const records = {} as XeroDataset['records'];
  for (const r of [...XERO_PAGED, 'Accounts', 'RepeatingInvoices'] as const) records[r] = flatten(files[`${r}.json`], r);
  return {
    tenantId: String(organisation.OrganisationID),
    organisation,
    records,
    journals: flatten(files['Journals.json'], 'Journals').sort((a, b) => Number(a.JournalNumber) - Number(b.JournalNumber)),
    bankSummary: (files['BankSummary.json'] as Rec | undefined) ?? { Reports: [] },
  };
}

// ---------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------

export type FaultKind =
  /** 429 with Retry-After (`retryAfter` seconds, default 1). */
  | 'rate_limit'
  /** 500 with a Xero-style error body. */
  | 'server_error'
  /** 503 with Retry-After. */
  | 'unavailable'
  /** Accepts the request and never answers. */
  | 'stall'
  /** Sends the head and half of the body, then drops the connection. */
  | 'truncate'
  /** 200 with a body that is not JSON. */
  | 'malformed'
  /** 302 to another host (a second loopback server that counts its hits). */
  | 'redirect'
  /** 401 TokenExpired, whatever the token. */
  | 'unauthorized'
  /** 200 with a body of `bytes` (default 8 MiB) of valid JSON. */
  | 'huge';

export interface Fault {
  kind: FaultKind;
  /** Only requests whose path contains this (e.g. '/Invoices'); default every API request. */
  match?: string;
  /** How many requests it applies to (default: all until cleared). */
  times?: number;
  retryAfter?: number;
  bytes?: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  at: number;
  /** Calls in flight (this one included) when it arrived. */
  inFlight: number;
  ifModifiedSince: string | null;
}

export interface XeroServerOptions {
  data: XeroDataset;
  host?: string;
  port?: number;
  clientId?: string;
  clientSecret?: string;
  accessTokenTtlS?: number;
  /** Refresh tokens unused for this long expire (Xero: 60 days). */
  refreshTokenTtlS?: number;
  /** Xero's per-tenant limits; `false` turns them off (benchmarks of the store side). */
  limits?: { perMinute: number; concurrent: number; windowMs?: number } | false;
  /** Milliseconds added before each API answer (a slow ledger). */
  latencyMs?: number;
}

export interface Grant {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

export interface XeroServer {
  url: string;
  /** XERO_API_URL for the client. */
  apiUrl: string;
  /** XERO_IDENTITY_URL for the client. */
  identityUrl: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  data: XeroDataset;
  requests: RequestLogEntry[];
  /** Requests that reached the other host a `redirect` fault points at (must stay 0). */
  redirectHits(): number;
  addFault(f: Fault): void;
  clearFaults(): void;
  /** What the authorisation-code flow would give an app: a fresh access and refresh token. */
  issueGrant(): Grant;
  /** Every access token issued so far is expired from now on. */
  expireAccessTokens(): void;
  /** The user disconnected the app: refresh and access tokens are revoked. */
  revokeTokens(): void;
  /** Refresh tokens expired (60 days unused): refreshing answers invalid_grant. */
  expireRefreshTokens(): void;
  /** Adds or changes a record, stamping UpdatedDateUTC with the server's now (after any stamp it holds). */
  upsert(resource: PagedResource | 'Accounts' | 'RepeatingInvoices', record: Rec): void;
  /** Removes a record (a repeating invoice the user deleted disappears from the list). */
  remove(resource: PagedResource | 'Accounts' | 'RepeatingInvoices', id: string): void;
  close(): Promise<void>;
}

interface TokenInfo {
  expiresAt: number;
  revoked: boolean;
}

export async function startXeroServer(opts: XeroServerOptions): Promise<XeroServer> {
  const host = opts.host ?? '127.0.0.1';
  const clientId = opts.clientId ?? 'cashline-test-client';
  const clientSecret = opts.clientSecret ?? randomBytes(16).toString('hex');
  const ttl = opts.accessTokenTtlS ?? ACCESS_TOKEN_TTL_S;
  const refreshTtl = opts.refreshTokenTtlS ?? 60 * 86_400;
  const limits = opts.limits === false ? null : (opts.limits ?? { perMinute: 60, concurrent: 5 });
  const data = opts.data;
  const access = new Map<string, TokenInfo>();
  const refresh = new Map<string, TokenInfo>();
  const faults: (Fault & { left: number })[] = [];
  const requests: RequestLogEntry[] = [];
  const minute: number[] = [];
  let inFlight = 0;
  const sockets = new Set<Socket>();
  const stalled = new Set<ServerResponse>();

  // The other host of `redirect` faults.
  let hits = 0;
  const other = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"Invoices":[]}');
  });
  await new Promise<void>((r) => other.listen(0, host, r));
  const otherUrl = `http://localhost:${(other.address() as AddressInfo).port}`;

  const issueGrant = (): Grant => {
    const accessToken = `xat_${randomBytes(24).toString('hex')}`;
    const refreshToken = `xrt_${randomBytes(24).toString('hex')}`;
    access.set(accessToken, { expiresAt: Date.now() + ttl * 1000, revoked: false });
    refresh.set(refreshToken, { expiresAt: Date.now() + refreshTtl * 1000, revoked: false });
    return { accessToken, refreshToken, expiresIn: ttl };
  };

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  const problem = (res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}) =>
    json(res, status, { Type: null, Title: title, Status: status, Detail: detail, Instance: randomUUID(), Extensions: {} }, headers);

  const envelope = () => ({ Id: randomUUID(), Status: 'OK', ProviderName: 'Cashline Xero-compatible server', DateTimeUTC: toMsDate(new Date()) });

  function takeFault(path: string): Fault | null {
    for (const f of faults) {
      if (f.left <= 0) continue;
      if (f.match && !path.includes(f.match)) continue;
      f.left--;
      return f;
    }
    return null;
  }

  async function identity(req: IncomingMessage, res: ServerResponse, path: string) {
    if (req.method === 'POST' && path === '/connect/token') {
      const form = new URLSearchParams(await readBody(req));
      let id = form.get('client_id');
      let secret = form.get('client_secret');
      const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
      if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':') as [string, string];
      if (id !== clientId || secret !== clientSecret) return json(res, 400, { error: 'invalid_client' });
      if (form.get('grant_type') !== 'refresh_token') return json(res, 400, { error: 'unsupported_grant_type' });
      const old = refresh.get(form.get('refresh_token') ?? '');
      if (!old || old.revoked) return json(res, 400, { error: 'invalid_grant' });
      if (old.expiresAt <= Date.now()) return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token expired' });
      // Rotation: as Xero does, the previous refresh token stays usable for a 30-minute grace period
      // (a client that died before storing the new one can still refresh).
      old.expiresAt = Math.min(old.expiresAt, Date.now() + 30 * 60_000);
      const g = issueGrant();
      return json(res, 200, {
        id_token: undefined,
        access_token: g.accessToken,
        expires_in: g.expiresIn,
        token_type: 'Bearer',
        refresh_token: g.refreshToken,
        scope: 'offline_access accounting.transactions.read accounting.contacts.read accounting.settings.read accounting.reports.read accounting.journals.read',
      });
    }
    if (req.method === 'GET' && path === '/connections') {
      const tok = bearer(req);
      const info = tok ? access.get(tok) : undefined;
      if (!info || info.revoked || info.expiresAt <= Date.now()) return problem(res, 401, 'Unauthorized', 'TokenExpired');
      return json(res, 200, [
        { id: randomUUID(), authEventId: randomUUID(), tenantId: data.tenantId, tenantType: 'ORGANISATION', tenantName: String(data.organisation.Name ?? ''), createdDateUtc: new Date().toISOString(), updatedDateUtc: new Date().toISOString() },
      ]);
    }
    return problem(res, 404, 'Not Found', 'No such identity endpoint');
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, url: URL) {
    if (req.method !== 'GET') return problem(res, 405, 'Method Not Allowed', 'This server is read-only');
    const tok = bearer(req);
    const info = tok ? access.get(tok) : undefined;
    if (!info || info.revoked) return problem(res, 401, 'Unauthorized', 'AuthenticationUnsuccessful');
    if (info.expiresAt <= Date.now()) return problem(res, 401, 'Unauthorized', `TokenExpired: token expired at ${new Date(info.expiresAt).toUTCString()}`);
    if (req.headers['xero-tenant-id'] !== data.tenantId) return problem(res, 403, 'Forbidden', 'AuthenticationUnsuccessful: xero-tenant-id');

    const fault = takeFault(path);
    if (fault) {
      switch (fault.kind) {
        case 'rate_limit':
          return problem(res, 429, 'Too Many Requests', 'rate limit exceeded', { 'retry-after': String(fault.retryAfter ?? 1), 'x-rate-limit-problem': 'minute' });
        case 'server_error':
          return problem(res, 500, 'Internal Server Error', 'An error occurred in Xero');
        case 'unavailable':
          return problem(res, 503, 'Service Unavailable', 'The Xero API is temporarily unavailable', { 'retry-after': String(fault.retryAfter ?? 1) });
        case 'stall':
          stalled.add(res);
          res.on('close', () => stalled.delete(res));
          return;
        case 'truncate': {
          const body = Buffer.from(JSON.stringify({ ...envelope(), Invoices: Array.from({ length: 50 }, (_, i) => ({ InvoiceID: `x-${i}` })) }));
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
          res.write(body.subarray(0, body.length >> 1));
          setTimeout(() => res.socket?.destroy(), 5);
          return;
        }
        case 'malformed': {
          const body = '{"Id":"x","Status":"OK","Invoices":[{"InvoiceID": <html>oops';
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          return res.end(body);
        }
        case 'redirect':
          res.writeHead(302, { location: `${otherUrl}${url.pathname}${url.search}`, 'content-length': 0 });
          return res.end();
        case 'unauthorized':
          return problem(res, 401, 'Unauthorized', 'TokenExpired: token expired');
        case 'huge': {
          const n = fault.bytes ?? 8 * 1024 * 1024;
          const body = `{"Id":"x","Status":"OK","Padding":"${'x'.repeat(n)}","Invoices":[]}`;
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          return res.end(body);
        }
      }
    }

    const since = parseSince(req.headers['if-modified-since']);
    if (since === 'invalid') return problem(res, 400, 'Bad Request', 'If-Modified-Since is not a date');
    const fresh = (r: Rec, field = 'UpdatedDateUTC') => {
      if (since === null) return true;
      const at = typeof r[field] === 'string' ? parseXeroTimestamp(r[field] as string) : null;
      return at === null || at.getTime() >= since;
    };

    if (path === '/Organisation') return json(res, 200, { ...envelope(), Organisations: [data.organisation] });
    if (path === '/Reports/BankSummary') return json(res, 200, { ...envelope(), ...data.bankSummary });
    if (path === '/Accounts') return json(res, 200, { ...envelope(), Accounts: sorted(data.records.Accounts, 'AccountID').filter((r) => fresh(r)) });
    if (path === '/RepeatingInvoices') return json(res, 200, { ...envelope(), RepeatingInvoices: sorted(data.records.RepeatingInvoices, 'RepeatingInvoiceID') });
    if (path === '/Journals') {
      const offsetText = url.searchParams.get('offset') ?? '0';
      if (!/^\d+$/.test(offsetText)) return problem(res, 400, 'Bad Request', 'offset must be a whole number');
      const offset = Number(offsetText);
      const out = data.journals.filter((j) => Number(j.JournalNumber) > offset && fresh(j, 'CreatedDateUTC')).slice(0, JOURNALS_PER_CALL);
      return json(res, 200, { ...envelope(), Journals: out });
    }
    const resource = (XERO_PAGED as readonly string[]).includes(path.slice(1)) ? (path.slice(1) as PagedResource) : null;
    if (!resource) return problem(res, 404, 'Not Found', `The resource ${path} is not served here`);
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

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${host}`);
    const path = url.pathname;
    if (!path.startsWith('/api.xro/2.0/')) {
      identity(req, res, path).catch(() => res.destroy());
      return;
    }
    const apiPath = path.slice('/api.xro/2.0'.length);
    const now = Date.now();
    const windowMs = limits?.windowMs ?? 60_000;
    while (minute.length && minute[0]! <= now - windowMs) minute.shift();
    inFlight++;
    const entry: RequestLogEntry = {
      method: req.method ?? 'GET',
      path: apiPath,
      status: 0,
      at: now,
      inFlight,
      ifModifiedSince: (req.headers['if-modified-since'] as string | undefined) ?? null,
    };
    requests.push(entry);
    res.on('close', () => {
      inFlight--;
      entry.status = res.statusCode;
    });
    if (limits && (inFlight > limits.concurrent || minute.length >= limits.perMinute)) {
      const retry = inFlight > limits.concurrent ? 1 : Math.max(1, Math.ceil((minute[0]! + windowMs - now) / 1000));
      problem(res, 429, 'Too Many Requests', inFlight > limits.concurrent ? 'concurrent limit exceeded' : 'minute limit exceeded', {
        'retry-after': String(retry),
        'x-minlimit-remaining': '0',
        'x-rate-limit-problem': inFlight > limits.concurrent ? 'concurrent' : 'minute',
      });
      return;
    }
    minute.push(now);
    res.setHeader('x-minlimit-remaining', String(limits ? Math.max(0, limits.perMinute - minute.length) : 9999));
    const go = () => api(req, res, apiPath, url).catch(() => res.destroy());
    if (opts.latencyMs) setTimeout(go, opts.latencyMs);
    else void go();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, host, r));
  const base = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    apiUrl: `${base}/api.xro/2.0`,
    identityUrl: base,
    tenantId: data.tenantId,
    clientId,
    clientSecret,
    data,
    requests,
    redirectHits: () => hits,
    addFault: (f) => faults.push({ ...f, left: f.times ?? Number.POSITIVE_INFINITY }),
    clearFaults: () => {
      faults.length = 0;
    },
    issueGrant,
    expireAccessTokens: () => {
      for (const t of access.values()) t.expiresAt = Math.min(t.expiresAt, Date.now() - 1);
    },
    revokeTokens: () => {
      for (const t of access.values()) t.revoked = true;
      for (const t of refresh.values()) t.revoked = true;
    },
    expireRefreshTokens: () => {
      for (const t of refresh.values()) t.expiresAt = Math.min(t.expiresAt, Date.now() - 1);
    },
    upsert(resource, record) {
      const list = data.records[resource];
      const idField = ID_FIELD[resource];
      // The ledger's clock only moves forward: after every stamp it has given (demo data may be stamped later today).
      const latest = list.reduce((m, r) => Math.max(m, typeof r.UpdatedDateUTC === 'string' ? (parseXeroTimestamp(r.UpdatedDateUTC)?.getTime() ?? 0) : 0), 0);
      const stamped = { ...record, UpdatedDateUTC: toMsDate(new Date(Math.max(Date.now(), latest + 1000))) };
      const i = list.findIndex((r) => r[idField] === record[idField]);
      if (i >= 0) list[i] = stamped;
      else list.push(stamped);
      sortedCache.delete(list);
    },
    remove(resource, id) {
      const list = data.records[resource];
      const i = list.findIndex((r) => r[ID_FIELD[resource]] === id);
      if (i >= 0) list.splice(i, 1);
      sortedCache.delete(list);
    },
    async close() {
      for (const res of stalled) res.destroy();
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => other.close(r))]);
    },
  };
}

const sortedCache = new WeakMap<Rec[], Rec[]>();
/** Records by UpdatedDateUTC, then id (a stable order for paging). */
function sorted(list: Rec[], idField: string): Rec[] {
  const hit = sortedCache.get(list);
  if (hit && hit.length === list.length) return hit;
  const key = (r: Rec) => (typeof r.UpdatedDateUTC === 'string' ? (parseXeroTimestamp(r.UpdatedDateUTC)?.getTime() ?? 0) : 0);
  const out = list
    .map((r) => ({ r, k: key(r), id: String(r[idField] ?? '') }))
    .sort((a, b) => a.k - b.k || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((x) => x.r);
  sortedCache.set(list, out);
  return out;
}

function bearer(req: IncomingMessage): string | null {
  const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
  return m ? m[1]! : null;
}

/** If-Modified-Since: an HTTP date or an ISO 8601 instant (UTC when it has no zone), as ms; null when absent. */
export function parseSince(v: string | string[] | undefined): number | null | 'invalid' {
  if (v === undefined || Array.isArray(v) || v.trim() === '') return null;
  const s = v.trim();
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(s) ? `${s}Z` : s;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : 'invalid';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
      if (text.length > 65_536) req.destroy();
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
