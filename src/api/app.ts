/**
 * The HTTP application. Every request under /api/agent/ runs, in order:
 *  1. `observe`: request id; afterwards RateLimit headers, Cache-Control:
 *     no-store, the audit row (authenticated requests) and the access log;
 *  2. method guard (every path): GET, and HEAD (a GET without its body, charged like
 *     one); OPTIONS is 204 with `Allow`; anything else 405 method_not_allowed with `Allow`;
 *  3. the public documents (/api/agent/openapi.json, /api/agent/docs) answer here;
 *  4. endpoint match: a path no agentRoute declared is 404 not_found;
 *  5. `authenticate`: the one 401;
 *  6. `countRefusal`: a request refused before step 9 still counts against
 *     the key's burst bucket (counted after its answer);
 *  7. `tenancy`: the target organisation (400 org_required, 403 forbidden);
 *  8. scope: 403 insufficient_scope; then a NUL character in any declared
 *     parameter (path or query) is 400 bad_request naming it (no text column
 *     can hold one, so nothing downstream ever sees it); then unknown query
 *     parameters and a malformed X-Service-Tool become `warnings`;
 *  9. `admit`: one round trip to the counters: the burst (429 rate_limited),
 *     a query credit (429 quota_exhausted) and the legacy daily bucket, given
 *     back afterwards unless the answer is 2xx/304/404;
 * 10. `envelope`: subscription, quota, usage, alerts; X-Service-* headers on 2xx;
 * 11. the handler's store handle: the read replica's for the endpoints that
 *     tolerate seconds of staleness while it is up and current (route.ts), else the primary's;
 * 12. the route's own validation (400 bad_request naming the parameter) and handler.
 * Errors thrown anywhere become `{error, message}` bodies (src/api/errors.ts).
 */
import { randomBytes } from 'node:crypto';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { cors } from 'hono/cors';
import { compression } from './compression.js';
import { etagging } from './etag.js';
import { KeyCache } from './key-cache.js';
import { LedgerHealthCache } from './ledger-cache.js';
import type { Clock } from '../clock.js';
import { type Config, publicUrl } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { SqlLimiter } from '../store/usage.js';
import { AuditLog } from '../store/audit.js';
import { authenticate, requireScope, tenancy } from './auth.js';
import { admit, countRefusal } from './admission.js';
import type { ApiApp, AppEnv, ConsentFlow, Deps } from './context.js';
import { registerLedgerWeb } from './routes/ledger-web.js';
import { registerDocs } from './docs.js';
import { envelope } from './envelope.js';
import { ApiError, badRequest, errorResponse, type ErrorBody, rootCause } from './errors.js';
import { ParamError } from '../domain/list-params.js';
import type { Limiter } from '../domain/plans.js';
import type { Warning } from '../schemas/common.js';
import { observe, TOOL_PATTERN } from './observe.js';
import { AGENT_PREFIX, pipelineWarnings, ROUTE_QUERY_PARAMS, ROUTE_SCOPES, scopesOf, toleratesStaleness, warn } from './route.js';
import { registerRoutes } from './routes/index.js';

export interface AppOptions {
  store: Store;
  config: Config;
  /** The service clock (default: config.clock, which honours CASHLINE_NOW). */
  clock?: Clock;
  logger: Logger;
  /** Burst and credit counters (default: the SQL store's). */
  limiter?: Limiter;
  /**
   * Registers more endpoints after the built-in ones (tests, experiments).
   * Declare them with `agentRoute` so that the pipeline knows their scope.
   */
  extraRoutes?: (app: ApiApp) => void;
  /** The process's key cache (startServer's, which hears of revocations); default: one of its own, bounded by its time-to-live alone. */
  keys?: KeyCache;
  /** The process's audit log (startServer's, written out on close); default: one of its own, written by its timer. */
  audit?: AuditLog;
  /** The process's cache of ledger connections' health (startServer's, which hears of changes anywhere); default: one of its own, which hears of this process's changes. */
  ledger?: LedgerHealthCache;
  /** Where users reach the service (default CASHLINE_PUBLIC_URL or http://HOST:PORT; startServer: the address it listens on when CASHLINE_PUBLIC_URL is unset). */
  publicUrl?: () => string;
  /** The web consent's ledger side (absent: /connect/xero says the ledger is not configured). */
  consent?: ConsentFlow;
  /** Called with the organisations a verified Xero webhook named, after their sync was requested in the store. */
  onLedgerChanged?: (orgIds: string[]) => void;
}

/** The methods every path answers (`Allow` on OPTIONS and 405). */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** The headers a browser client may read (CORS): the envelope's and Retry-After. */
const EXPOSED_HEADERS = [
  'X-Service-Subscription',
  'X-Service-Plan',
  'X-Service-Reset-Minutes',
  'X-Service-Quota-Remaining',
  'X-Service-Quota-Reset',
  'X-Service-Trial-Days-Remaining',
  'Retry-After',
] as const;

export function createApp(opts: AppOptions): ApiApp {
  const deps: Deps = {
    store: opts.store,
    config: opts.config,
    clock: opts.clock ?? opts.config.clock,
    logger: opts.logger,
    limiter: opts.limiter ?? new SqlLimiter(opts.store.db),
    cursorSecret: opts.config.CASHLINE_CURSOR_SECRET ?? randomBytes(32).toString('hex'),
    keys: opts.keys ?? new KeyCache(opts.config.CASHLINE_KEY_CACHE_SECONDS * 1000),
    audit: opts.audit ?? auditLog(opts),
    ledger: opts.ledger ?? new LedgerHealthCache(0),
    publicUrl: opts.publicUrl ?? (() => publicUrl(opts.config)),
    consent: opts.consent,
    onLedgerChanged: opts.onLedgerChanged,
  };

  const app = new OpenAPIHono<AppEnv>({
    // The route's schemas parse its params and query (src/schemas/query.ts): a failure is the one 400 naming the
    // parameter (decisions.md); what a parsed query ignored (an unknown status, a cursor beside autoPaginate) becomes warnings.
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const parameter = issue?.path?.length ? String(issue.path[0]) : result.target;
        throw new ParamError(parameter, issue?.message ?? 'invalid value');
      }
      const ignored = (result.data as { ignored?: unknown } | null)?.ignored;
      if (Array.isArray(ignored)) warn(c as Context<AppEnv>, ignored as Warning[]);
      return undefined;
    },
  });

  app.use('*', async (c, next) => {
    c.set('deps', deps);
    c.set('db', deps.store.db);
    await next();
  });
  // Answers of 1 KB or more are brotli-, gzip- or deflate-encoded when the client accepts it (docs/api.md#http).
  app.use('*', compression());
  // Browser clients, from the configured origins only (CASHLINE_CORS_ORIGINS; off by default): preflights answered here.
  const origins = opts.config.CASHLINE_CORS_ORIGINS;
  if (origins) {
    app.use(
      '*',
      cors({
        origin: origins.includes('*') ? '*' : origins,
        allowMethods: ['GET', 'HEAD', 'OPTIONS'],
        allowHeaders: ['Authorization', 'X-Service-Org-Id', 'X-Service-Tool'],
        exposeHeaders: [...EXPOSED_HEADERS],
        maxAge: 600,
      }),
    );
  }
  app.use(`${AGENT_PREFIX}/*`, observe);
  // The ledger's web pages and webhook (POST), before the agent API's read-only method guard.
  registerLedgerWeb(app);
  app.use('*', async (c, next) => {
    const method = c.req.method;
    // HEAD is a GET without its body (Hono dispatches it as GET and drops the body): same pipeline, status, headers and charge.
    if (method === 'GET' || method === 'HEAD') return next();
    c.header('Allow', ALLOWED_METHODS);
    c.header('Cache-Control', 'no-store');
    if (method === 'OPTIONS') return c.body(null, 204);
    const body: ErrorBody = { error: 'method_not_allowed', message: 'The agent API is read-only: only GET (and HEAD, OPTIONS) exist.' };
    return c.json(body, 405);
  });
  registerDocs(app); // public: answered before authentication
  // ETag on every answer, 304 for a matching If-None-Match (after the limits: a 304 is a read like any other; docs/api.md#http).
  app.use(`${AGENT_PREFIX}/*`, matchEndpoint, authenticate, countRefusal, tenancy, checkScope, rejectNul, noteIgnored, admit, envelope, etagging(), readFrom);

  registerRoutes(app);
  opts.extraRoutes?.(app);

  app.notFound((c) => c.json({ error: 'not_found', message: 'No such endpoint.' } satisfies ErrorBody, 404));
  app.onError((err, c) => errorResponse(c, err));
  return app;
}

/** An audit log writing to the app's store, as configured; failures are logged, never thrown at a request. */
export function auditLog(opts: Pick<AppOptions, 'store' | 'config' | 'logger'>): AuditLog {
  return new AuditLog(opts.store.db, {
    flushMs: opts.config.CASHLINE_AUDIT_FLUSH_MS,
    batch: opts.config.CASHLINE_AUDIT_BATCH,
    onError: (err, dropped) =>
      opts.logger.warn({ cause: rootCause(err), dropped }, dropped ? 'audit log: rows dropped (the buffer is full)' : 'could not write the audit log; kept for the next write'),
  });
}

/** The endpoint's template (e.g. /api/agent/contacts/:id) or a 404 for paths no agentRoute declared. */
const matchEndpoint: MiddlewareHandler<AppEnv> = async (c, next) => {
  const routes = matchedRoutes(c).filter((r) => r.method !== 'ALL' && !r.path.endsWith('*'));
  const template = routes.map((r) => r.path).find((p) => ROUTE_SCOPES.has(p));
  if (!template) throw new ApiError(404, 'not_found', 'No such endpoint.');
  c.set('route', template);
  await next();
};

/** The handler's store handle: the read replica's for reads that tolerate staleness, while it is up and current (route.ts). */
const readFrom: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (toleratesStaleness(c.get('route'))) c.set('db', c.get('deps').store.readDb());
  await next();
};

const checkScope: MiddlewareHandler<AppEnv> = (c, next) => requireScope(scopesOf(ROUTE_SCOPES.get(c.get('route')) ?? null))(c, next);

const decodeSegment = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** 400 naming the first declared parameter (path or query) whose value holds a NUL character. */
const rejectNul: MiddlewareHandler<AppEnv> = async (c, next) => {
  const template = c.get('route');
  // The request's path is parsed only for a template with path parameters.
  if (template.includes('/:')) {
    const actual = new URL(c.req.url).pathname.split('/');
    template.split('/').forEach((segment, i) => {
      if (segment.startsWith(':') && decodeSegment(actual[i] ?? '').includes('\0')) {
        throw badRequest(segment.slice(1), 'must not contain a NUL character');
      }
    });
  }
  // The query string parsed once (as c.req.queries(name) would for each name).
  const queries = c.req.queries();
  for (const name of ROUTE_QUERY_PARAMS.get(template) ?? []) {
    if ((queries[name] ?? []).some((v) => v.includes('\0'))) throw badRequest(name, 'must not contain a NUL character');
  }
  await next();
};

/** Unknown query parameters and a malformed X-Service-Tool: ignored, and reported in the body's `warnings`. */
const noteIgnored: MiddlewareHandler<AppEnv> = async (c, next) => {
  warn(c, pipelineWarnings(c, c.get('route'), TOOL_PATTERN));
  await next();
};
