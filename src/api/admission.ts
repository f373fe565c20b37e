/**
 * The limits of spec 8 in the pipeline (decisions.md):
 * - `countBurst` (right after authentication): every authenticated request
 *   counts against its key's bucket for the endpoint template (60 a minute,
 *   a sliding window), whatever happens next; a request over the cap is not
 *   recorded. Its verdict is acted on by `limits`, so an over-cap request
 *   still gets its 400/403 from tenancy or scope first.
 * - `limits` (after the scope check): 429 rate_limited over the burst cap;
 *   then one query credit is reserved atomically (never on /status, nor on
 *   the HANDLER_METERED endpoints, which charge per row themselves; not when
 *   no billing account is behind the request), 429 quota_exhausted when the
 *   window is full. After the handler, the reservation is returned unless the
 *   answer was 2xx or 404 (so 400/401/403/429/5xx are never charged).
 * Both set the IETF RateLimit-Policy / RateLimit items (docs/api.md).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, AuthContext } from './context.js';
import { ApiError, rootCause } from './errors.js';
import { BURST_WINDOW_MS, CREDIT_WINDOW_MS, type CreditSubject, planCredits, type Usage } from '../domain/plans.js';

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

/** Whether an answer with this status spends the call's credit (decisions.md). */
export const isChargeable = (status: number) => (status >= 200 && status <= 299) || status === 404;

function addRateLimit(c: Context<AppEnv>, policy: string, limit: string): void {
  const rl = c.get('rateLimit');
  rl.policies.push(policy);
  rl.limits.push(limit);
}

export const countBurst: MiddlewareHandler<AppEnv> = async (c, next) => {
  const deps = c.get('deps');
  const burst = await deps.limiter.hitBurst(c.get('key').keyId, c.get('route'), deps.clock.now());
  c.set('burst', burst);
  addRateLimit(
    c,
    `"burst";q=${burst.limit};w=${BURST_WINDOW_MS / 1000}`,
    `"burst";r=${burst.remaining};t=${burst.allowed ? burst.resetSeconds : burst.retryAfterSeconds}`,
  );
  await next();
};

export const limits: MiddlewareHandler<AppEnv> = async (c, next) => {
  const deps = c.get('deps');
  const burst = c.get('burst');
  if (!burst.allowed) {
    throw new ApiError(429, 'rate_limited', `Burst cap: at most ${burst.limit} requests a minute per key and endpoint.`, {
      retryAfterSeconds: burst.retryAfterSeconds,
    });
  }

  const now = deps.clock.now();
  const subject = creditSubject(c.get('auth'));
  let usage: Usage | null = null;
  if (subject && (c.get('route') === STATUS_ROUTE || HANDLER_METERED.has(c.get('route')))) {
    usage = await deps.limiter.usage(subject, now); // status is never charged; HANDLER_METERED charge in their handler
  } else if (subject) {
    const r = await deps.limiter.reserveCredit(subject, now);
    usage = r.usage;
    if (!r.allowed) {
      addCreditRateLimit(c, usage, now, r.retryAfterSeconds);
      throw new ApiError(
        429,
        'quota_exhausted',
        `All ${subject.limit} query credits of the rolling 5-hour window are used; the next frees in ${r.retryAfterSeconds} seconds.`,
        { retryAfterSeconds: r.retryAfterSeconds },
      );
    }
    c.set('credit', { subject, reservation: r.reservation });
  }
  c.set('usage', usage);
  if (usage) addCreditRateLimit(c, usage, now);

  await next();

  const credit = c.get('credit');
  if (credit && !isChargeable(c.res.status)) {
    c.set('credit', null);
    try {
      await deps.limiter.releaseCredit(credit.subject, credit.reservation);
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
