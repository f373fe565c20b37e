/**
 * The HTTP application. For every `/api/agent/*` request the pipeline runs, in
 * order: method check (only GET exists: 405), authentication (401), route
 * match (404), tenancy (400 org_required / 403 forbidden), burst cap (429
 * rate_limited; counts every authenticated request), scope (403
 * insufficient_scope), query credit reservation (429 quota_exhausted; never on
 * /status), the envelope, then the route's own validation (400) and handler.
 * Afterwards a reserved credit is returned unless the answer was 2xx or 404,
 * the envelope headers are set on 2xx answers, and the audit log is written.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { SqlLimiter } from '../store/usage.js';
import { chargedCallsSince, writeAudit } from '../store/audit.js';
import { ApiError, errorBody, isUnavailable } from './errors.js';
import { authenticate, requestedOrg, resolveTenancy } from './auth.js';
import type { AppEnv, AuthContext, Deps, Envelope } from './context.js';
import { AGENT_PREFIX, ROUTE_SCOPES } from './route.js';
import { billingAlertFor, ledgerAlertFor, legacyDailyLimit, nextUtcMidnight, subscriptionInfo, utcMidnight } from './envelope.js';
import { type CreditSubject, type Limiter, planCredits } from './limits.js';
import { registerRoutes } from './routes/index.js';
import { registerDocs } from './docs.js';

export interface AppOptions {
  store: Store;
  config: Config;
  clock?: Clock;
  logger: Logger;
  limiter?: Limiter;
}

const TOOL_PATTERN = /^service\.[a-z_]+$/;
const STATUS_ROUTE = `${AGENT_PREFIX}/status`;

export function createApp(opts: AppOptions): OpenAPIHono<AppEnv> {
  const deps: Deps = {
    store: opts.store,
    config: opts.config,
    clock: opts.clock ?? opts.config.clock,
    logger: opts.logger,
    limiter: opts.limiter ?? new SqlLimiter(opts.store.db),
    cursorSecret: opts.config.CASHLINE_CURSOR_SECRET ?? randomBytes(32).toString('hex'),
  };

  const app = new OpenAPIHono<AppEnv>({
    // A malformed known parameter is a 400 that names it (decisions.md).
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const parameter = String(issue?.path?.[0] ?? 'query');
        const message = issue?.message ?? 'invalid value';
        return c.json({ error: 'bad_request' as const, message: `${parameter}: ${message}`, parameter }, 400);
      }
      return undefined;
    },
  });

  app.use('*', async (c, next) => {
    c.set('deps', deps);
    c.set('requestId', c.req.header('x-request-id')?.slice(0, 64) || randomUUID());
    await next();
  });

  app.use(`${AGENT_PREFIX}/*`, pipeline);

  registerRoutes(app);
  registerDocs(app);

  app.notFound((c) => c.json({ error: 'not_found' as const, message: 'No such endpoint.' }, 404));
  app.onError((err, c) => respondError(c as Context<AppEnv>, err));
  return app;
}

function respondError(c: Context<AppEnv>, err: unknown): Response {
  if (err instanceof ApiError) {
    if (err.extra.retryAfterSeconds !== undefined) c.header('Retry-After', String(err.extra.retryAfterSeconds));
    return c.json(errorBody(err), err.status);
  }
  const deps = c.get('deps');
  if (isUnavailable(err)) {
    deps?.logger.warn({ requestId: c.get('requestId'), err: { message: (err as Error).message } }, 'store unavailable');
    c.header('Retry-After', '2');
    return c.json({ error: 'service_unavailable' as const, message: 'The service is temporarily unavailable; retry shortly.' }, 503);
  }
  deps?.logger.error({ requestId: c.get('requestId'), err }, 'unhandled error');
  return c.json({ error: 'internal_error' as const, message: 'Internal error.' }, 500);
}

/** The endpoint's template, e.g. /api/agent/contacts/:id, or null when no endpoint matches. */
function endpointTemplate(c: Context<AppEnv>): string | null {
  const routes = matchedRoutes(c).filter((r) => r.method !== 'ALL' && !r.path.endsWith('*'));
  const last = routes[routes.length - 1];
  return last && ROUTE_SCOPES.has(last.path) ? last.path : null;
}

const PUBLIC_PATHS = new Set([`${AGENT_PREFIX}/openapi.json`, `${AGENT_PREFIX}/docs`]);

async function pipeline(c: Context<AppEnv>, next: () => Promise<void>): Promise<Response | void> {
  if (PUBLIC_PATHS.has(c.req.path)) return next();
  const deps = c.get('deps');
  const started = performance.now();
  const now = deps.clock.now();
  const method = c.req.method;

  if (method !== 'GET' && method !== 'HEAD') {
    c.header('Allow', 'GET');
    return c.json({ error: 'method_not_allowed' as const, message: 'The agent API is read-only: only GET exists.' }, 405);
  }

  const db = deps.store.db;
  const key = await authenticate(db, c.req.header('authorization'));
  const route = endpointTemplate(c);
  let auth: AuthContext | null = null;
  let reservation: { subject: CreditSubject; id: string } | null = null;
  let status = 500;
  try {
    if (!route) throw new ApiError(404, 'not_found', 'No such endpoint.');
    c.set('route', route);
    auth = await resolveTenancy(db, key, requestedOrg(c, route), route);
    c.set('auth', auth);

    const burst = await deps.limiter.hitBurst(auth.keyId, route, now);
    c.header('RateLimit-Policy', `"burst";q=${burst.limit};w=60`);
    c.header('RateLimit', `"burst";r=${burst.remaining};t=${burst.allowed ? burst.resetSeconds : burst.retryAfterSeconds}`);
    if (!burst.allowed) {
      throw new ApiError(429, 'rate_limited', `Burst cap: at most ${burst.limit} requests a minute per key and endpoint.`, {
        retryAfterSeconds: burst.retryAfterSeconds,
      });
    }

    const scope = ROUTE_SCOPES.get(route) ?? null;
    if (scope && !auth.scopes.includes(scope)) {
      throw new ApiError(403, 'insufficient_scope', `This endpoint needs the scope ${scope}.`);
    }

    const subject: CreditSubject | null =
      auth.billing && auth.orgId
        ? { billingAccountId: auth.billing.id, meterId: auth.meterId, orgId: auth.orgId, limit: planCredits(auth.billing.plan) }
        : null;
    let usage = null;
    if (subject && route !== STATUS_ROUTE) {
      const r = await deps.limiter.reserveCredit(subject, now);
      usage = r.usage;
      if (!r.allowed) {
        throw new ApiError(
          429,
          'quota_exhausted',
          `All ${subject.limit} query credits of the rolling 5-hour window are used; the next frees in ${r.retryAfterSeconds} seconds.`,
          { retryAfterSeconds: r.retryAfterSeconds },
        );
      }
      reservation = { subject, id: r.reservation };
    } else if (subject) {
      usage = await deps.limiter.usage(subject, now);
    }
    c.set('envelope', await buildEnvelope(deps, auth, usage, now));

    await next();
    status = c.res.status;
  } catch (err) {
    c.res = respondError(c, err);
    status = c.res.status;
  }

  if (reservation && !((status >= 200 && status < 300) || status === 404)) {
    await deps.limiter.releaseCredit(reservation.subject, reservation.id).catch((err) => {
      deps.logger.warn({ err: { message: (err as Error).message } }, 'could not return a reserved credit');
    });
  }
  c.header('Cache-Control', 'no-store');
  if (status >= 200 && status < 300) setEnvelopeHeaders(c);

  const tool = c.req.header('x-service-tool');
  const durationMs = Math.round(performance.now() - started);
  try {
    await writeAudit(db, {
      orgId: auth?.orgId ?? key.keyOrgId,
      at: now,
      keyId: key.keyId,
      keyPrefix: key.keyPrefix,
      userId: key.userId,
      partnerId: key.partnerId,
      method,
      route: route ?? c.req.path.slice(0, 200),
      status,
      tool: tool && TOOL_PATTERN.test(tool) ? tool : null,
      requestId: c.get('requestId'),
      durationMs,
    });
  } catch (err) {
    deps.logger.warn({ err: { message: (err as Error).message } }, 'could not write the audit log');
  }
  deps.logger.info(
    { requestId: c.get('requestId'), method, route: route ?? c.req.path, status, durationMs, keyPrefix: key.keyPrefix, orgId: auth?.orgId ?? null },
    'request',
  );
  return c.res;
}

async function buildEnvelope(deps: Deps, auth: AuthContext, usage: Envelope['usage'], now: Date): Promise<Envelope> {
  if (!auth.org) return { subscription: null, usage: null, quota: null };
  const subscription = auth.billing ? subscriptionInfo(auth.billing, now) : null;
  let quota: Envelope['quota'] = null;
  if (auth.billing) {
    const limit = legacyDailyLimit(planCredits(auth.billing.plan));
    const used = await chargedCallsSince(deps.store.db, auth.org.id, utcMidnight(now));
    quota = { limit, used, remaining: Math.max(0, limit - used), resetAt: nextUtcMidnight(now) };
  }
  const billingAlert = subscription ? billingAlertFor(subscription, usage) : undefined;
  const ledgerAlert = await ledgerAlertFor(deps.store.db, auth.org.id, now);
  return {
    subscription,
    usage,
    quota,
    ...(billingAlert ? { billingAlert } : {}),
    ...(ledgerAlert ? { ledgerAlert } : {}),
  };
}

function setEnvelopeHeaders(c: Context<AppEnv>): void {
  const env = c.get('envelope');
  if (!env) return;
  if (env.subscription) {
    c.header('X-Service-Subscription', env.subscription.status);
    c.header('X-Service-Plan', env.subscription.plan);
    if (env.subscription.status === 'trialing' && env.subscription.trialDaysRemaining !== null) {
      c.header('X-Service-Trial-Days-Remaining', String(env.subscription.trialDaysRemaining));
    }
  }
  if (env.usage) c.header('X-Service-Reset-Minutes', String(env.usage.nextCreditInMinutes));
  if (env.quota) {
    c.header('X-Service-Quota-Remaining', String(env.quota.remaining));
    c.header('X-Service-Quota-Reset', env.quota.resetAt.toISOString());
  }
  if (env.usage) {
    const u = env.usage;
    c.header('RateLimit-Policy', `${c.res.headers.get('RateLimit-Policy') ?? ''}${c.res.headers.get('RateLimit-Policy') ? ', ' : ''}"credits";q=${u.limit};w=18000`);
    c.header(
      'RateLimit',
      `${c.res.headers.get('RateLimit') ?? ''}${c.res.headers.get('RateLimit') ? ', ' : ''}"credits";r=${u.remaining};t=${u.nextCreditInMinutes * 60}`,
    );
  }
}
