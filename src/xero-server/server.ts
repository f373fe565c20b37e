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
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { handleApi } from './api.js';
import { removeRecord, upsertRecord, type ListResource, type Rec, type XeroDataset } from './dataset.js';
import { FaultQueue, startRedirectHost, type Fault } from './faults.js';
import { handleIdentity } from './identity.js';
import { RateLimiter, type RateLimits } from './limits.js';
import type { RequestLogEntry, XeroState } from './state.js';
import { TokenStore, type Grant } from './tokens.js';

// What the server's users import from here (tests, the demo ledger, benchmarks).
export { datasetFromFiles } from './dataset.js';
export type { Fault } from './faults.js';

export const ACCESS_TOKEN_TTL_S = 1800;

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
  limits?: RateLimits | false;
  /** Milliseconds added before each API answer (a slow ledger). */
  latencyMs?: number;
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
  upsert(resource: ListResource, record: Rec): void;
  /** Removes a record (a repeating invoice the user deleted disappears from the list). */
  remove(resource: ListResource, id: string): void;
  close(): Promise<void>;
}

export async function startXeroServer(opts: XeroServerOptions): Promise<XeroServer> {
  const host = opts.host ?? '127.0.0.1';
  const state: XeroState = {
    host,
    clientId: opts.clientId ?? 'cashline-test-client',
    clientSecret: opts.clientSecret ?? randomBytes(16).toString('hex'),
    data: opts.data,
    tokens: new TokenStore(opts.accessTokenTtlS ?? ACCESS_TOKEN_TTL_S, opts.refreshTokenTtlS ?? 60 * 86_400),
    faults: new FaultQueue(),
    limiter: new RateLimiter(opts.limits === false ? null : (opts.limits ?? { perMinute: 60, concurrent: 5 })),
    requests: [],
    stalled: new Set<ServerResponse>(),
    redirectHost: await startRedirectHost(host),
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => onRequest(state, req, res, opts.latencyMs));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, host, r));
  const base = `http://${host}:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    for (const res of state.stalled) res.destroy();
    for (const s of sockets) s.destroy();
    await Promise.all([new Promise((r) => server.close(r)), state.redirectHost.close()]);
  };
  return { url: base, apiUrl: `${base}/api.xro/2.0`, identityUrl: base, ...controls(state), close };
}

/** What a test or the demo does to a running server, besides closing it. */
function controls(state: XeroState): Omit<XeroServer, 'url' | 'apiUrl' | 'identityUrl' | 'close'> {
  const { tokens, faults, data } = state;
  return {
    tenantId: data.tenantId,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    data,
    requests: state.requests,
    redirectHits: () => state.redirectHost.hits(),
    addFault: (f) => faults.add(f),
    clearFaults: () => faults.clear(),
    issueGrant: () => tokens.issueGrant(),
    expireAccessTokens: () => tokens.expireAccessTokens(),
    revokeTokens: () => tokens.revokeTokens(),
    expireRefreshTokens: () => tokens.expireRefreshTokens(),
    upsert: (resource, record) => upsertRecord(data, resource, record),
    remove: (resource, id) => removeRecord(data, resource, id),
  };
}

/** Every request: identity endpoints, or an API call logged, held to the limits and answered after the latency. */
function onRequest(state: XeroState, req: IncomingMessage, res: ServerResponse, latencyMs: number | undefined): void {
  const url = new URL(req.url ?? '/', `http://${state.host}`);
  const path = url.pathname;
  if (!path.startsWith('/api.xro/2.0/')) {
    handleIdentity(state, req, res, path).catch(() => res.destroy());
    return;
  }
  const apiPath = path.slice('/api.xro/2.0'.length);
  const now = Date.now();
  const inFlight = state.limiter.enter(now);
  const entry: RequestLogEntry = {
    method: req.method ?? 'GET',
    path: apiPath,
    status: 0,
    at: now,
    inFlight,
    ifModifiedSince: (req.headers['if-modified-since'] as string | undefined) ?? null,
  };
  state.requests.push(entry);
  res.on('close', () => {
    state.limiter.leave();
    entry.status = res.statusCode;
  });
  if (!state.limiter.admit(res, now)) return;
  const go = () => handleApi(state, req, res, apiPath, url).catch(() => res.destroy());
  if (latencyMs) setTimeout(go, latencyMs);
  else void go();
}
