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
 *   GET /{Resource}/{id} (one record, as a webhook's resourceUrl names it).
 *   PUT/POST /Invoices, /Contacts, /Payments (write scopes; ./writes.ts), each
 *   change signed and POSTed to the `webhook` receiver (./webhooks.ts).
 *   Scopes (src/ledger/xero/scopes.ts): a call outside the token's is 401
 *   AuthorizationUnsuccessful; a `forbidden` path is 403.
 * Identity (./identity.ts, ./authorize.ts): GET /identity/connect/authorize
 * (PKCE S256; consent page or `autoConsent`), POST /connect/token
 * (authorization_code and refresh_token; client Basic auth or
 * client_id/client_secret in the form, or client_id alone for a public client),
 * POST /connect/revocation, GET /connections, DELETE /connections/{id}.
 * Limits (Xero's, per tenant): 5 concurrent calls and 60 a minute; a breach is
 * a 429 with Retry-After and X-MinLimit-Remaining, as Xero answers.
 */
import { randomBytes } from 'node:crypto';
import { OFFLINE_ACCESS, XERO_READ_SCOPES, XERO_WRITE_SCOPES } from '../ledger/xero/scopes.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { handleApi } from './api.js';
import { emptyDataset, ID_FIELD, removeRecord, upsertRecord, type ListResource, type Rec, type XeroDataset } from './dataset.js';
import { FaultQueue, startRedirectHost, type Fault } from './faults.js';
import { handleIdentity } from './identity.js';
import { RateLimiter, type RateLimits } from './limits.js';
import type { RequestLogEntry, XeroState } from './state.js';
import { TokenStore, type Grant } from './tokens.js';
import { WebhookSender, type IntentToReceive, type WebhookConfig, type WebhookDelivery } from './webhooks.js';

// What the server's users import from here (tests, the demo ledger, benchmarks).
export { datasetFromFiles } from './dataset.js';
export type { Fault } from './faults.js';
export type { Grant } from './tokens.js';
export type { WebhookDelivery, WebhookEvent } from './webhooks.js';

export const ACCESS_TOKEN_TTL_S = 1800;

/** Every read scope the server knows, with offline_access: what `issueGrant` gives by default. */
const ALL_READ_SCOPES = [OFFLINE_ACCESS, ...Object.keys(XERO_READ_SCOPES)];
/** The writeToken's scopes: every write scope and every read scope. */
const WRITE_TOKEN_SCOPES = [...Object.keys(XERO_WRITE_SCOPES), ...Object.keys(XERO_READ_SCOPES)];
/** The writeToken lasts as long as the server (ten years). */
const WRITE_TOKEN_TTL_S = 10 * 365 * 86_400;

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
  /** The authorise page approves at once (true), refuses at once ('deny'), or shows the consent page (false, default). */
  autoConsent?: boolean | 'deny';
  /** Organisations the user may authorise besides the dataset's (no books: empty lists). */
  tenants?: { tenantId: string; tenantName: string }[];
  /** Which of the requested scopes the consent grants (default: all of them). */
  grantScopes?: (requested: string[]) => string[];
  /** API paths (e.g. '/Journals') the app may not call whatever its scopes: 403. */
  forbidden?: string[];
  /** true (default): a confidential client, the token endpoint needs the secret; false: a public PKCE client. */
  requireClientSecret?: boolean;
  /** Redirect URIs accepted besides loopback ones (http://127.0.0.1:*, localhost, [::1]). */
  redirectUris?: string[];
  /** Where signed webhook events of writes go. */
  webhook?: WebhookConfig;
}

/** A live connection: one tenant a grant authorised. */
export interface LiveConnection {
  id: string;
  tenantId: string;
  tenantName: string;
  authEventId: string;
  grantId: string;
  /** The grant's latest refresh token ('' without offline_access). */
  refreshToken: string;
}

export interface XeroServer {
  url: string;
  /** XERO_API_URL for the client. */
  apiUrl: string;
  /** XERO_IDENTITY_URL for the client: token `${identityUrl}/connect/token`, revocation `${identityUrl}/connect/revocation`. */
  identityUrl: string;
  /** XERO_LOGIN_URL: the authorise endpoint is `${loginUrl}/identity/connect/authorize`. */
  loginUrl: string;
  /** GET/DELETE connections (Xero: https://api.xero.com/connections, the API's origin). */
  connectionsUrl: string;
  /** A long-lived access token with the write scopes (and every read scope) on the dataset's tenant. */
  writeToken: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  data: XeroDataset;
  requests: RequestLogEntry[];
  /** Requests that reached the other host a `redirect` fault points at (must stay 0). */
  redirectHits(): number;
  addFault(f: Fault): void;
  clearFaults(): void;
  /** What the authorisation-code flow would give an app: a fresh access and refresh token (default: every read scope, the dataset's tenant). */
  issueGrant(opts?: { scopes?: string[]; tenantIds?: string[] }): Grant;
  /** The connections of every grant not revoked (the writeToken's aside). */
  connections(): LiveConnection[];
  /** Whether a refresh token this server issued is revoked (throws for a token it never issued). */
  isRevoked(refreshToken: string): boolean;
  /** Points the webhook at a receiver started after this server (its address was not known yet), or stops it (null). */
  setWebhook(w: WebhookConfig | null): void;
  /** The webhook batches posted so far and the receiver's answers. */
  webhookDeliveries(): WebhookDelivery[];
  /** Xero's intent-to-receive check of the webhook receiver (needs the `webhook` option). */
  sendIntentToReceive(): Promise<IntentToReceive>;
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
  const tenants = new Map<string, XeroDataset>([[opts.data.tenantId, opts.data]]);
  for (const t of opts.tenants ?? []) {
    if (!tenants.has(t.tenantId)) tenants.set(t.tenantId, emptyDataset(t.tenantId, t.tenantName, opts.data.organisation.BaseCurrency));
  }
  const state: XeroState = {
    host,
    clientId: opts.clientId ?? 'cashline-test-client',
    clientSecret: opts.clientSecret ?? randomBytes(16).toString('hex'),
    data: opts.data,
    tenants,
    tokens: new TokenStore(opts.accessTokenTtlS ?? ACCESS_TOKEN_TTL_S, opts.refreshTokenTtlS ?? 60 * 86_400),
    codes: new Map(),
    pending: new Map(),
    policy: {
      autoConsent: opts.autoConsent ?? false,
      grantScopes: opts.grantScopes ?? ((requested) => requested),
      forbidden: opts.forbidden ?? [],
      requireClientSecret: opts.requireClientSecret ?? true,
      redirectUris: opts.redirectUris ?? [],
    },
    webhooks: null,
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
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  const apiUrl = `${base}/api.xro/2.0`;
  const setWebhook = (w: WebhookConfig | null) => {
    state.webhooks?.close();
    state.webhooks = w ? new WebhookSender(w, apiUrl) : null;
  };
  if (opts.webhook) setWebhook(opts.webhook);
  const close = async () => {
    state.webhooks?.close();
    for (const res of state.stalled) res.destroy();
    for (const s of sockets) s.destroy();
    await Promise.all([new Promise((r) => server.close(r)), state.redirectHost.close()]);
  };
  const writeToken = state.tokens.createGrant({
    clientId: state.clientId,
    scopes: WRITE_TOKEN_SCOPES,
    tenantIds: [state.data.tenantId],
    ttlS: WRITE_TOKEN_TTL_S,
    longLived: true,
  }).tokens.accessToken;
  return { url: base, apiUrl, identityUrl: base, loginUrl: base, connectionsUrl: `${base}/connections`, writeToken, setWebhook, ...controls(state), close };
}

/** What a test or the demo does to a running server, besides closing it. */
function controls(state: XeroState): Omit<XeroServer, 'url' | 'apiUrl' | 'identityUrl' | 'loginUrl' | 'connectionsUrl' | 'writeToken' | 'setWebhook' | 'close'> {
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
    issueGrant: (o = {}) =>
      tokens.createGrant({ clientId: state.clientId, scopes: o.scopes ?? ALL_READ_SCOPES, tenantIds: o.tenantIds ?? [data.tenantId] }).tokens,
    connections: () => liveConnections(state),
    isRevoked: (refreshToken) => {
      const info = tokens.refreshInfo(refreshToken);
      if (!info) throw new Error('isRevoked: this server never issued that refresh token');
      return info.revoked;
    },
    webhookDeliveries: () => [...(state.webhooks?.deliveries ?? [])],
    sendIntentToReceive: () => {
      if (!state.webhooks) return Promise.reject(new Error('sendIntentToReceive: the server has no webhook option'));
      return state.webhooks.intentToReceive();
    },
    expireAccessTokens: () => tokens.expireAccessTokens(),
    revokeTokens: () => tokens.revokeTokens(),
    expireRefreshTokens: () => tokens.expireRefreshTokens(),
    upsert: (resource, record) => {
      const isNew = !data.records[resource].some((r) => r[ID_FIELD[resource]] === record[ID_FIELD[resource]]);
      const stored = upsertRecord(data, resource, record);
      // A change in the books is a change, however it was made: invoices and contacts raise their webhook event.
      const category = resource === 'Invoices' ? 'INVOICE' : resource === 'Contacts' ? 'CONTACT' : null;
      if (category) state.webhooks?.enqueue({ eventCategory: category, eventType: isNew ? 'CREATE' : 'UPDATE', resourceId: String(stored[ID_FIELD[resource]]) }, data.tenantId);
    },
    remove: (resource, id) => removeRecord(data, resource, id),
  };
}

/** The connections of every grant not revoked (the writeToken's own grant aside), for tests. */
function liveConnections(state: XeroState): LiveConnection[] {
  return state.tokens.grants
    .filter((g) => !g.revoked && !g.longLived)
    .flatMap((g) =>
      g.connections.map((c) => ({
        id: c.id,
        tenantId: c.tenantId,
        tenantName: String(state.tenants.get(c.tenantId)?.organisation.Name ?? ''),
        authEventId: g.authEventId,
        grantId: g.id,
        refreshToken: g.refreshToken,
      })),
    );
}

/** Every request: identity endpoints, or an API call logged, held to the limits and answered after the latency. */
function onRequest(state: XeroState, req: IncomingMessage, res: ServerResponse, latencyMs: number | undefined): void {
  const url = new URL(req.url ?? '/', 'http://xero.invalid');
  const path = url.pathname;
  if (!path.startsWith('/api.xro/2.0/')) {
    handleIdentity(state, req, res, url).catch(() => res.destroy());
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
