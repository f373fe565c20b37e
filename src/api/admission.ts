/**
 * The limits of spec 8 in the pipeline (decisions.md), in one round trip to
 * the counters per request (issue 21):
 * - `admit` (after tenancy and the scope check): one `Limiter.admit` call
 *   counts the request against its key's burst bucket for the endpoint
 *   template (60 a minute, a sliding window) and, when the burst admits it and
 *   a billing account is behind it, reserves one query credit (never on
 *   /status, nor on the HANDLER_METERED endpoints, which charge per row
 *   themselves: those only read the window) and counts it in the
 *   organisation's legacy daily bucket. 429 rate_limited over the burst cap,
 *   429 quota_exhausted when the credit window is full. After the handler,
 *   what was taken is given back in one more round trip unless the answer was
 *   chargeable (2xx, 304 or 404: 400/401/403/429/5xx are never charged).
 * - `countRefusal` (right after authentication): every authenticated request
 *   counts against its burst bucket, whatever happens next; a request refused
 *   before `admit` (400/403 from tenancy, scope or a parameter) is counted
 *   there, after its answer, so the refusal keeps its precedence over a 429.
 * Both set the IETF RateLimit-Policy / RateLimit items (docs/api.md).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, AuthContext } from './context.js';
import { ApiError, rootCause } from './errors.js';
import { type BurstResult, BURST_WINDOW_MS, CREDIT_WINDOW_MS, type CreditSubject, planCredits, type Usage } from '../domain/plans.js';

export const STATUS_ROUTE = '/api/agent/status';

/**
 * Endpoints whose handler meters its own credits, so the pipeline reserves
 * none (like /status, it only reads the usage): the portfolio spends one
 * credit per client organisation it includes (src/api/routes/portfolio.ts).
 */
export const HANDLER_METERED: ReadonlySet<string> = new Set(['/api/agent/portfolio']);

/** The credit bucket of a request, or null when no billing account is behind it. */
export function creditSubject(auth: AuthContext): CreditSubject | null {
  if (!auth.billing || !auth.orgId) return null;
  return { billingAccountId: auth.billing.id, meterId: auth.meterId, orgId: auth.orgId, limit: planCredits(auth.billing.plan) };
}


function addRateLimit(c: Context<AppEnv>, policy: string, limit: string): void {
  const rl = c.get('rateLimit');
  rl.policies.push(policy);
  rl.limits.push(limit);
}

/** Whether an answer with this status spends the call's credit and daily count (decisions.md; a 304 is a read like any other). */
export const isChargeable = (status: number) => (status >= 200 && status <= 299) || status === 304 || status === 404;

function addBurstRateLimit(c: Context<AppEnv>, burst: BurstResult): void {
  addRateLimit(
    c,
    `"burst";q=${burst.limit};w=${BURST_WINDOW_MS / 1000}`,
    `"burst";r=${burst.remaining};t=${burst.allowed ? burst.resetSeconds : burst.retryAfterSeconds}`,
  );
}

/** The UTC day (YYYY-MM-DD) of the legacy daily bucket. */
const utcDay = (now: Date) => now.toISOString().slice(0, 10);

export const countRefusal: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('admitted', false);
  await next();
  if (c.get('admitted')) return;
  const deps = c.get('deps');
  try {
    // observe (outside) writes the RateLimit headers after this.
    addBurstRateLimit(c, await deps.limiter.hitBurst(c.get('key').keyId, c.get('route'), deps.clock.now()));
  } catch (err) {
    deps.logger.warn({ requestId: c.get('requestId'), cause: rootCause(err) }, 'could not count a refused request against its burst bucket');
  }
};

export const admit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const deps = c.get('deps');
  const route = c.get('route');
  const now = deps.clock.now();
  const subject = creditSubject(c.get('auth'));
  c.set('admitted', true); // whatever happens now (a 429, the counters unavailable: 503), never counted twice
  const a = await deps.limiter.admit(
    {
      keyId: c.get('key').keyId,
      route,
      subject,
      // /status is never charged; HANDLER_METERED charge in their handler.
      credit: route === STATUS_ROUTE || HANDLER_METERED.has(route) ? 'read' : 'reserve',
      daily: route === STATUS_ROUTE ? 'read' : 'count',
      day: utcDay(now),
    },
    now,
  );
  addBurstRateLimit(c, a.burst);
  if (!a.burst.allowed) {
    throw new ApiError(429, 'rate_limited', `Burst cap: at most ${a.burst.limit} requests a minute per key and endpoint.`, {
      retryAfterSeconds: a.burst.retryAfterSeconds,
    });
  }
  if (a.credit && !a.credit.allowed) {
    addCreditRateLimit(c, a.credit.usage, now, a.credit.retryAfterSeconds);
    throw new ApiError(
      429,
      'quota_exhausted',
      `All ${subject!.limit} query credits of the rolling 5-hour window are used; the next frees in ${a.credit.retryAfterSeconds} seconds.`,
      { retryAfterSeconds: a.credit.retryAfterSeconds },
    );
  }
  c.set('usage', a.usage);
  c.set('dailyUsed', a.dailyUsed);
  if (a.usage) addCreditRateLimit(c, a.usage, now);

  await next();

  if (a.taken && !isChargeable(c.res.status)) {
    try {
      await deps.limiter.settle(a.taken);
    } catch (err) {
      deps.logger.warn({ requestId: c.get('requestId'), cause: rootCause(err) }, 'could not return a reserved credit');
    }
  }
};

function addCreditRateLimit(c: Context<AppEnv>, usage: Usage, now: Date, retryAfterSeconds?: number): void {
  // t: seconds until more credit frees (the oldest call in the window ages out; on a refusal, Retry-After);
  // absent for an empty window.
  const seconds =
    retryAfterSeconds ?? (usage.oldestFreesAt ? Math.max(1, Math.ceil((usage.oldestFreesAt.getTime() - now.getTime()) / 1000)) : null);
  const t = seconds === null ? '' : `;t=${seconds}`;
  addRateLimit(c, `"credits";q=${usage.limit};w=${CREDIT_WINDOW_MS / 1000}`, `"credits";r=${usage.remaining}${t}`);
}
