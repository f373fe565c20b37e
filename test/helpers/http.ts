/**
 * A real API server on 127.0.0.1 (port 0) over a fresh store, for tests that
 * go through HTTP, on either backend:
 *
 *   const api = await startTestApi(kind, { now: '2026-11-23T09:00:00Z' });
 *   const { orgId } = await api.org({ name: 'Acme', plan: 'Reserve' });
 *   const key = await api.key(orgId, ['READ_INVOICES']);
 *   const res = await api.get('/api/agent/invoices', key);
 *   ...
 *   await api.close(); // in afterAll
 *
 * The service clock is a ManualClock (`api.clock.set(...)`, `.advance(ms)`).
 */
import { connect } from 'node:net';
import { get as httpGet } from 'node:http';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { z } from '@hono/zod-openapi';
import { ManualClock } from '../../src/clock.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/log.js';
import { hc } from 'hono/client';
import { startServer, type RunningServer, type ServerOptions } from '../../src/api/server.js';
import { ledgerChangedHere } from '../../src/store/key-revocations.js';
import type { AgentApp } from '../../src/api/routes/index.js';
import type { ApiApp } from '../../src/api/context.js';
import { notFound } from '../../src/api/errors.js';
import { agentRoute, withAlerts } from '../../src/api/route.js';
import type { Limiter } from '../../src/domain/plans.js';
import { rows, type StoreKind } from '../../src/store/db.js';
import * as s from '../../src/store/schema.js';
import { ResponseChecker } from './openapi.js';
import { alertFields, ErrorResponse } from '../../src/schemas/common.js';
import {
  createKey,
  createOrg,
  createPartner,
  createUser,
  linkPartner,
  revokeKey,
  type CreateOrgInput,
} from '../../src/store/tenancy.js';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import { freshStore, type TestStore } from './store.js';

/** A fetch Response whose json() is untyped, for terse assertions in tests. */
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface LedgerState {
  tokenState?: 'ok' | 'expired' | 'revoked';
  breakerState?: 'closed' | 'open' | 'half_open';
  lastSuccessfulSync?: Date | null;
  lastAttemptAt?: Date | null;
  lastErrorAt?: Date | null;
}

export interface AuditRow {
  org_id: string | null;
  key_id: string | null;
  key_prefix: string | null;
  user_id: string | null;
  partner_id: string | null;
  method: string;
  route: string;
  status: number;
  tool: string | null;
  request_id: string | null;
  duration_ms: number | null;
}

export interface TestApi {
  url: string;
  store: TestStore;
  clock: ManualClock;
  server: RunningServer;
  config: Config;
  logger: Logger;
  /** The access-log lines (parsed JSON), when started with `captureLogs`. */
  logs: Record<string, unknown>[];
  /** The raw log output, when started with `captureLogs`. */
  rawLogs(): string;
  close(): Promise<void>;
  /** An organisation with its owner and billing account (defaults: Free, active). */
  org(input?: Partial<Omit<CreateOrgInput, 'now'>>): Promise<{ orgId: string; userId: string; billingAccountId: string }>;
  /** Another member of an organisation. */
  user(orgId: string): Promise<string>;
  /** A user key (all scopes by default; the owner's unless `userId`). */
  key(orgId: string, scopes?: readonly Scope[], userId?: string): Promise<string>;
  /** A partner practice linked to `orgIds`, and a key of it. */
  partner(orgIds: string[], scopes?: readonly Scope[]): Promise<{ partnerId: string; key: string }>;
  /** Revokes a key (by the key itself). */
  revoke(key: string): Promise<void>;
  /** Creates the organisation's ledger connection (healthy, synced now), or updates the given fields of it. */
  ledger(orgId: string, state?: LedgerState): Promise<void>;
  /** The organisation's audit rows, newest first. */
  audit(orgId: string): Promise<AuditRow[]>;
  /** GET with an optional bearer key and headers. */
  get(path: string, key?: string | null, headers?: Record<string, string>): Promise<JsonResponse>;
  /** Any request (method, body, …) to a path of this server. */
  fetch(path: string, init?: RequestInit): Promise<JsonResponse>;
  /**
   * Hono's typed client of the agent API with this key (and headers): paths,
   * query parameters and response fields are checked by the compiler, so a
   * test cannot send a parameter or read a field that does not exist. Its
   * answers are checked against the OpenAPI document like every other.
   */
  client(key: string, headers?: Record<string, string>): ReturnType<typeof hc<AgentApp>>;
}

export interface TestApiOptions {
  /** The service clock's start (default 2026-11-23T09:00:00Z). */
  now?: string;
  /** Extra environment for loadConfig. */
  env?: Record<string, string>;
  limiter?: (store: TestStore) => Limiter;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** PostgreSQL only: the read replica (a standby of the test server, test/helpers/standby.ts). */
  replica?: { url: string; maxLagSeconds?: number };
  /** More endpoints (declared with agentRoute), e.g. to provoke errors. */
  extraRoutes?: (app: ApiApp) => void;
  /** Keep the JSON log lines in `api.logs` (level info). */
  captureLogs?: boolean;
  drainMs?: number;
  /** Check every JSON answer against the OpenAPI document (default true; test/helpers/openapi.ts). */
  validateResponses?: boolean;
  /** More server options built on the test's store and configuration (the web consent, the webhook's prompt sync). */
  server?: (store: TestStore, config: Config, logger: Logger) => Partial<ServerOptions>;
  /** The store to serve (of the given kind; e.g. a copy of a fixture: helpers/fixtures.ts), instead of a fresh one; closed with the server. */
  store?: TestStore;
}

/** The public prefix of a key: cl_user_<prefix>_<secret>. */
export const keyPrefixOf = (key: string) => key.split('_')[2]!;

/** The in-process test servers' drain grace (the served default is IDLE_GRACE_MS, a second). */
const TEST_IDLE_GRACE_MS = 100;

export async function startTestApi(kind: StoreKind, opts: TestApiOptions = {}): Promise<TestApi> {
  if (opts.store && opts.store.kind !== kind) throw new Error(`startTestApi(${kind}) given a ${opts.store.kind} store`);
  const store = opts.store ?? (await freshStore(kind, { ...(opts.poolSize ? { poolSize: opts.poolSize } : {}), ...(opts.replica ? { replica: opts.replica } : {}) }));
  const clock = new ManualClock(opts.now ?? '2026-11-23T09:00:00Z');
  const config = loadConfig({
    CASHLINE_LOG_LEVEL: opts.captureLogs ? 'info' : 'silent',
    CASHLINE_CURSOR_SECRET: 'test-cursor-secret-0123456789',
    ...opts.env,
  });
  let raw = '';
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      raw += String(chunk);
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger(config, opts.captureLogs ? sink : undefined);
  const server = await startServer({
    store,
    config,
    clock,
    logger,
    ...opts.server?.(store, config, logger),
    host: '127.0.0.1',
    port: 0,
    ...(opts.limiter ? { limiter: opts.limiter(store) } : {}),
    ...(opts.extraRoutes ? { extraRoutes: opts.extraRoutes } : {}),
    ...(opts.drainMs !== undefined ? { drainMs: opts.drainMs } : {}),
    // In-process test servers are closed by their test once its requests are answered: no client is still sending.
    idleGraceMs: TEST_IDLE_GRACE_MS,
  });
  const db = store.db;
  const checker =
    opts.validateResponses === false ? null : new ResponseChecker(await unpooledJson(`${server.url}/api/agent/openapi.json`));
  const checked = async (path: string, init: RequestInit | undefined, res: Response): Promise<Response> => {
    if (!checker) return res;
    const problems = checker.check(
      (init?.method ?? 'GET').toUpperCase(),
      new URL(path, server.url).pathname,
      res.status,
      res.headers.get('content-type'),
      await res.clone().text(),
    );
    if (problems.length) throw new Error(`the answer does not match the OpenAPI document:\n${problems.join('\n')}`);
    return res;
  };
  const api: TestApi = {
    url: server.url,
    store,
    clock,
    server,
    config,
    logger,
    logs,
    rawLogs: () => raw,
    async close() {
      await server.close();
      await store.close();
    },
    org: (input = {}) => createOrg(db, { name: 'Test Org', ...input, now: clock.now() }),
    user: async (orgId) => (await createUser(db, { orgId, now: clock.now() })).userId,
    key: async (orgId, scopes = SCOPES, userId) => (await createKey(db, { orgId, userId, scopes: [...scopes], now: clock.now() })).key,
    async partner(orgIds, scopes = SCOPES) {
      const { partnerId } = await createPartner(db, { name: 'Practice', now: clock.now() });
      for (const orgId of orgIds) await linkPartner(db, { partnerId, orgId, now: clock.now() });
      const { key } = await createKey(db, { partnerId, scopes: [...scopes], now: clock.now() });
      return { partnerId, key };
    },
    revoke: (key) => revokeKey(db, keyPrefixOf(key), clock.now()).then(() => undefined),
    async ledger(orgId, state = {}) {
      // A new connection is healthy and synced now unless told otherwise; an update changes only what is given.
      const values = { tokenState: 'ok', breakerState: 'closed', lastSuccessfulSync: clock.now(), ...state };
      const insert = db.insert(s.ledgerConnections).values({ orgId, tenantId: `tenant-${orgId}`, ...values });
      await (Object.keys(state).length ? insert.onConflictDoUpdate({ target: s.ledgerConnections.orgId, set: state }) : insert.onConflictDoNothing());
      ledgerChangedHere(orgId); // as the store's own writers do: this process's caches hear of it at once
    },
    // The rows the server has recorded so far (it writes them in batches: flushed first).
    audit: async (orgId) => {
      await server.flushAudit();
      return rows<AuditRow & Record<string, unknown>>(
        db,
        sql`select org_id, key_id, key_prefix, user_id, partner_id, method, route, status, tool, request_id, duration_ms
            from audit_log where org_id = ${orgId} order by id desc`,
      );
    },
    get: async (path, key, headers = {}) => {
      const init = { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } };
      return checked(path, init, await fetch(`${server.url}${path}`, init));
    },
    fetch: async (path, init) => checked(path, init, await fetch(`${server.url}${path}`, init)),
    client: (key, headers = {}) =>
      hc<AgentApp>(server.url, {
        headers: { authorization: `Bearer ${key}`, ...headers },
        fetch: async (input: string | URL | Request, init?: RequestInit) => {
          const url = new URL(input instanceof Request ? input.url : String(input));
          return checked(`${url.pathname}${url.search}`, init, await fetch(input, init));
        },
      }),
  };
  return api;
}

/**
 * GETs JSON on a connection of its own (closed after): a test that sets up for
 * a minute after starting its server must not find the first request of its
 * client on a kept-alive socket that both sides are about to time out.
 */
function unpooledJson(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(JSON.parse(text)));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * Sends raw bytes as a request head over a fresh TCP connection (for inputs a
 * fetch client refuses: multi-byte or huge header values) and reads the whole
 * answer. The head must end with an empty line.
 */
export function rawRequest(url: string, head: Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headText, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = headText!.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      let body = rest.join('\r\n\r\n');
      if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body });
    });
    socket.write(head);
  });
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const i = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, i), 16);
    if (!size) return out;
    out += rest.slice(i + 2, i + 2 + size);
    rest = rest.slice(i + 2 + size + 2);
  }
}

/** A GET request head with `Connection: close` and the given extra header lines (raw bytes). */
export function rawGet(path: string, headerLines: Buffer[] = []): Buffer {
  return Buffer.concat([
    Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`, 'latin1'),
    ...headerLines.flatMap((h) => [h, Buffer.from('\r\n')]),
    Buffer.from('\r\n'),
  ]);
}

// ---------------------------------------------------------------------------
// Test-only endpoints (pass `extraRoutes: testRoutes`): a scoped list with a
// validated query, a drill that can 404, and endpoints that fail or stall.
// ---------------------------------------------------------------------------

const ItemQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional().openapi({ param: { name: 'limit', in: 'query' } }),
  ms: z.coerce.number().int().min(0).max(10_000).optional().openapi({ param: { name: 'ms', in: 'query' } }),
});
const ItemParam = z.object({ id: z.string().min(1).openapi({ param: { name: 'id', in: 'path' } }) });
const ItemBody = z
  .object({ id: z.string(), orgId: z.string().nullable(), limit: z.number().int().nullable(), ...alertFields })
  .openapi('TestItem');
const ok = {
  200: { description: 'OK', content: { 'application/json': { schema: ItemBody } } },
  404: { description: 'Not found', content: { 'application/json': { schema: ErrorResponse } } },
};

export const testItemRoute = agentRoute('READ_BANK', {
  path: '/api/agent/test-items/{id}',
  summary: 'Test: a scoped drill (READ_BANK); id "missing" is a 404',
  request: { params: ItemParam, query: ItemQuery },
  responses: ok,
});
const testBoomRoute = agentRoute(null, { path: '/api/agent/test-boom', summary: 'Test: throws', responses: ok });
const testDownRoute = agentRoute(null, { path: '/api/agent/test-down', summary: 'Test: the store is unreachable', responses: ok });
const testSlowRoute = agentRoute(null, {
  path: '/api/agent/test-slow',
  summary: 'Test: answers after ?ms=',
  request: { query: ItemQuery },
  responses: ok,
});

export function testRoutes(app: ApiApp): void {
  app.openapi(testItemRoute, (c) => {
    const { id } = c.req.valid('param');
    if (id === 'missing') throw notFound('test item');
    return c.json(withAlerts(c, { id, orgId: c.get('auth').orgId, limit: c.req.valid('query').limit ?? null }), 200);
  });
  app.openapi(testBoomRoute, () => {
    throw new Error('kaboom: internal detail that must not leak');
  });
  app.openapi(testDownRoute, () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  });
  app.openapi(testSlowRoute, async (c) => {
    await new Promise((r) => setTimeout(r, c.req.valid('query').ms ?? 300));
    return c.json({ id: 'slow', orgId: c.get('auth').orgId, limit: null }, 200);
  });
}

/** The body of a typed client's answer that must be 200 (typed as the route's 200 response); anything else fails the test with the body. */
export async function okBody<R extends { status: number; json(): Promise<unknown>; text(): Promise<string> }>(
  res: R,
): Promise<Awaited<ReturnType<Extract<R, { status: 200 }>['json']>>> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return (await res.json()) as Awaited<ReturnType<Extract<R, { status: 200 }>['json']>>;
}
