/**
 * The envelope of every successful authenticated response (spec 2.1, 4.2):
 * the subscription, the legacy daily quota, the credit usage and the alerts
 * (`c.get('envelope')`), the X-Service-* headers, and the billingAlert /
 * ledgerAlert that `withAlerts` folds into bodies. Decisions in docs/api.md.
 */
import type { MiddlewareHandler } from 'hono';
import type { Db } from '../store/db.js';
import { ledgerConnection } from '../store/queries/connections.js';
import type { LedgerHealthCache } from './ledger-cache.js';
import type { BillingAlert, LedgerAlert } from '../schemas/common.js';
import type { AppEnv, AuthContext, BillingRow, Envelope, QuotaInfo, SubscriptionInfo } from './context.js';
import { CREDIT_WINDOW_MS, planCredits, SUBSCRIPTION_STATUSES, type Usage } from '../domain/plans.js';


export const BILLING_URL = 'https://app.cashline.example/settings/billing';
/** Where a ledger alert sends the user: the organisation's web consent at the service's public address (docs/sync.md "Connect your Xero"). */
export const connectUrl = (publicUrl: string, orgId: string) => `${publicUrl}/connect/xero?org=${encodeURIComponent(orgId)}`;
const DAY_MS = 86_400_000;

/** The plan name reported for a partner key that names no organisation. */
export const PARTNER_PLAN = 'Partner';

const STATUSES: ReadonlySet<string> = new Set(SUBSCRIPTION_STATUSES);

export function subscriptionInfo(ba: Pick<BillingRow, 'plan' | 'subscriptionStatus' | 'trialEndsAt'>, now: Date): SubscriptionInfo {
  const status = (STATUSES.has(ba.subscriptionStatus) ? ba.subscriptionStatus : 'active') as SubscriptionInfo['status'];
  const trialing = status === 'trialing';
  const days = trialing && ba.trialEndsAt ? Math.max(0, Math.ceil((ba.trialEndsAt.getTime() - now.getTime()) / DAY_MS)) : null;
  return { status, plan: ba.plan, trialEndsAt: ba.trialEndsAt, trialDaysRemaining: days };
}

/** billingAlert triggers (spec 2.1): subscription past_due/canceled/trial_ended, credits used >= 90%, trial with 5 days or fewer. */
export function billingAlertFor(sub: SubscriptionInfo, usage: Usage | null): BillingAlert | undefined {
  const cta = (label: string) => ({ label, url: BILLING_URL });
  if (sub.status === 'past_due') {
    return { severity: 'critical', message: 'Payment for the subscription is past due; access may stop soon.', cta: cta('Update payment method') };
  }
  if (sub.status === 'canceled') {
    return { severity: 'critical', message: 'The subscription is canceled.', cta: cta('Reactivate subscription') };
  }
  if (sub.status === 'trial_ended') {
    return { severity: 'critical', message: 'The free trial has ended.', cta: cta('Choose a plan') };
  }
  if (usage && usage.limit > 0 && usage.used * 10 >= usage.limit * 9) {
    const out = usage.remaining === 0;
    return {
      severity: out ? 'critical' : 'warn',
      message: out
        ? `All ${usage.limit} query credits of the rolling 5-hour window are used; the next frees in ${usage.nextCreditInMinutes} minutes.`
        : `${usage.used} of ${usage.limit} query credits of the rolling 5-hour window are used.`,
      cta: cta('Upgrade plan'),
    };
  }
  if (sub.status === 'trialing' && sub.trialDaysRemaining !== null && sub.trialDaysRemaining <= 5) {
    return {
      severity: sub.trialDaysRemaining <= 1 ? 'critical' : 'warn',
      message: `The free trial ends in ${sub.trialDaysRemaining} day${sub.trialDaysRemaining === 1 ? '' : 's'}.`,
      cta: cta('Choose a plan'),
    };
  }
  return undefined;
}

/** The token states that need a reconnect, and the alert's reason for each. */
const TOKEN_REASONS: Record<string, 'token_expired' | 'token_revoked' | 'token_unreadable' | undefined> = {
  expired: 'token_expired',
  revoked: 'token_revoked',
  unreadable: 'token_unreadable',
};

const SERVICE_ISSUE_MAX_AGE_MS = 12 * 60 * 60 * 1000;

/** ledgerAlert from the organisation's ledger connection (undefined when healthy). */
export async function ledgerAlertFor(db: Db, orgId: string, now: Date, publicUrl: string): Promise<LedgerAlert | undefined> {
  return ledgerAlertFrom(await ledgerConnection(db, orgId), now, connectUrl(publicUrl, orgId));
}

export function ledgerAlertFrom(
  conn: {
    tokenState: string;
    breakerState: string;
    lastSuccessfulSync: Date | null;
    lastErrorAt: Date | null;
    consecutiveFailures?: number;
    disconnectedAt?: Date | null;
    unavailable?: unknown;
  } | null,
  now: Date,
  /** The organisation's web consent (connectUrl). */
  url: string,
): LedgerAlert | undefined {
  if (!conn) {
    return {
      severity: 'warn',
      kind: 'no_connection',
      reason: 'not_connected',
      message: 'No ledger account is connected; figures come from imported data and will not update.',
      lastSuccessfulSync: null,
      cta: { label: 'Connect Xero', url },
    };
  }
  const last = conn.lastSuccessfulSync ? conn.lastSuccessfulSync.toISOString() : null;
  if (conn.tokenState === 'disconnected' || conn.disconnectedAt) {
    return {
      severity: 'warn',
      kind: 'no_connection',
      reason: 'disconnected',
      message: `The Xero connection was removed${conn.disconnectedAt ? ` on ${conn.disconnectedAt.toISOString().slice(0, 10)}` : ''}; figures are those of the last sync${last ? ` (${last})` : ''} and will not update.`,
      lastSuccessfulSync: last,
      cta: { label: 'Connect Xero', url },
    };
  }
  // token_state: ok | expired | revoked | unreadable (sealed tokens that no held key opens: altered or moved; src/ledger/seal.ts).
  const badToken = TOKEN_REASONS[conn.tokenState];
  if (badToken || conn.breakerState === 'open') {
    const reason = badToken ?? 'breaker_open';
    return {
      severity: 'critical',
      kind: 'reconnect_required',
      reason,
      message:
        reason === 'breaker_open'
          ? 'The ledger keeps failing and syncing has stopped; the data is stale and will not update until the connection is repaired.'
          : reason === 'token_unreadable'
            ? 'The stored ledger connection can no longer be read; the data is stale and will not update until it is reconnected.'
            : 'The ledger connection has expired or was revoked; the data is stale and will not update until it is reconnected.',
      lastSuccessfulSync: last,
      cta: { label: 'Reconnect Xero', url },
    };
  }
  const age = conn.lastSuccessfulSync ? now.getTime() - conn.lastSuccessfulSync.getTime() : Number.POSITIVE_INFINITY;
  // The last run failed (the sync counts failures in a row), or an error is more recent than the last success.
  const failing =
    (conn.consecutiveFailures ?? 0) > 0 || (conn.lastErrorAt !== null && (conn.lastSuccessfulSync === null || conn.lastErrorAt > conn.lastSuccessfulSync));
  if (failing) {
    return {
      severity: 'warn',
      kind: 'service_issue',
      reason: 'sync_failing',
      message:
        age <= SERVICE_ISSUE_MAX_AGE_MS
          ? 'The ledger is returning errors; retrying automatically. Data may be up to 12 hours old.'
          : 'The ledger is returning errors; retrying automatically. Data is more than 12 hours old.',
      lastSuccessfulSync: last,
      cta: { label: 'Check ledger status', url },
    };
  }
  if (conn.lastSuccessfulSync === null) {
    return {
      severity: 'warn',
      kind: 'service_issue',
      reason: 'never_synced',
      message: 'The ledger is connected but no sync has completed yet; figures may be missing or come from imported data until the first sync finishes.',
      lastSuccessfulSync: null,
      cta: { label: 'Check ledger status', url },
    };
  }
  if (age > SERVICE_ISSUE_MAX_AGE_MS) {
    return {
      severity: 'warn',
      kind: 'service_issue',
      reason: 'stale',
      message: `No successful sync for more than 12 hours (last at ${last}); the data may be out of date. The sync workers may not be running.`,
      lastSuccessfulSync: last,
      cta: { label: 'Check ledger status', url },
    };
  }
  const unavailable = unavailableResources(conn.unavailable);
  if (unavailable.length) {
    const what = unavailable.map((u) => `${u.resource} (${u.reason === 'scope_not_granted' ? `scope ${u.scope} not granted` : 'Xero does not let this app call it'})`).join(', ');
    const affects = unavailable.map((u) => u.affects).filter(Boolean);
    return {
      severity: 'warn',
      kind: 'service_issue',
      reason: 'resource_unavailable',
      message: `The ledger syncs, but Cashline may not read ${what}${affects.length ? `: ${affects.join('; ')}` : ''}. Everything else is up to date; reconnect granting the scope to read it.`,
      lastSuccessfulSync: last,
      cta: { label: 'Reconnect Xero', url },
    };
  }
  return undefined;
}

/** The connection's `unavailable` column, read defensively: [{ resource, scope, reason, affects }]. */
function unavailableResources(v: unknown): { resource: string; scope: string; reason: string; affects: string }[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && typeof (x as { resource?: unknown }).resource === 'string')
    .map((x) => ({ resource: String(x.resource), scope: String(x.scope ?? ''), reason: String(x.reason ?? ''), affects: String(x.affects ?? '') }));
}

/** The legacy per-organisation daily bucket's size: the plan's 5-hour credits x 24/5. */
export function legacyDailyLimit(creditsPer5h: number): number {
  return Math.floor((creditsPer5h * DAY_MS) / CREDIT_WINDOW_MS);
}

export function utcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function nextUtcMidnight(now: Date): Date {
  return new Date(utcMidnight(now).getTime() + DAY_MS);
}

/**
 * The envelope of a request whose tenancy is resolved; `usage` after this
 * call's credit (if any) and `dailyUsed` the legacy daily bucket's charged
 * calls with this one (both from the request's admission).
 */
export async function buildEnvelope(
  db: Db,
  ledger: LedgerHealthCache,
  auth: AuthContext,
  admitted: { usage: Usage | null; dailyUsed: number | null },
  now: Date,
  publicUrl: string,
): Promise<Envelope> {
  const { usage } = admitted;
  const resetAt = nextUtcMidnight(now);
  const connection = auth.org ? await ledger.lookup(db, auth.org.id) : null;
  const ledgerAlert = auth.org ? ledgerAlertFrom(connection, now, connectUrl(publicUrl, auth.org.id)) : undefined;
  if (!auth.org || !auth.billing) {
    // No billing account behind the request: nothing is metered (docs/api.md).
    return {
      subscription: { status: 'active', plan: auth.org ? 'None' : PARTNER_PLAN, trialEndsAt: null, trialDaysRemaining: null },
      usage: null,
      quota: { limit: 0, used: 0, remaining: 0, resetAt },
      ...withLedger(ledgerAlert),
    };
  }
  const subscription = subscriptionInfo(auth.billing, now);
  const limit = legacyDailyLimit(planCredits(auth.billing.plan));
  const used = admitted.dailyUsed ?? 0;
  const quota: QuotaInfo = { limit, used, remaining: Math.max(0, limit - used), resetAt };
  const billingAlert = billingAlertFor(subscription, usage);
  return {
    subscription,
    usage,
    quota,
    ...(billingAlert ? { billingAlert } : {}),
    ...withLedger(ledgerAlert),
  };
}

const withLedger = (ledgerAlert: LedgerAlert | undefined) => (ledgerAlert ? { ledgerAlert } : {});

/**
 * Middleware (after the limits): computes `envelope` before the handler, and
 * sets the X-Service-* headers of spec 4.2 on a 2xx answer after it.
 */
export const envelope: MiddlewareHandler<AppEnv> = async (c, next) => {
  const deps = c.get('deps');
  const env = await buildEnvelope(
    deps.store.db,
    deps.ledger,
    c.get('auth'),
    { usage: c.get('usage'), dailyUsed: c.get('dailyUsed') },
    deps.clock.now(),
    deps.publicUrl(),
  );
  c.set('envelope', env);
  await next();

  // A 304 (If-None-Match) is a read like any other: the same headers.
  const res = c.res;
  if ((res.status < 200 || res.status > 299) && res.status !== 304) return;
  // Set on the answer itself: c.header() on a finished answer rebuilds it around its body as a stream (observe.ts).
  const h = res.headers;
  h.set('X-Service-Subscription', env.subscription.status);
  h.set('X-Service-Plan', env.subscription.plan);
  if (env.subscription.status === 'trialing' && env.subscription.trialDaysRemaining !== null) {
    h.set('X-Service-Trial-Days-Remaining', String(env.subscription.trialDaysRemaining));
  }
  h.set('X-Service-Reset-Minutes', String(env.usage?.nextCreditInMinutes ?? 0));
  // The admission counted this call in the daily bucket already (and gives it back if the answer is not chargeable).
  h.set('X-Service-Quota-Remaining', String(Math.max(0, env.quota.remaining)));
  h.set('X-Service-Quota-Reset', env.quota.resetAt.toISOString());
};
