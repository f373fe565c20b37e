/**
 * The envelope of every successful authenticated response (spec 2.1, 4.2):
 * X-Service-* headers, IETF RateLimit headers, and the billingAlert /
 * ledgerAlert folded into bodies. Decisions in docs/api.md.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../store/db.js';
import * as s from '../store/schema.js';
import type { BillingAlert, LedgerAlert } from '../schemas/common.js';
import { CREDIT_WINDOW_MS, type Usage } from './limits.js';

export const BILLING_URL = 'https://app.cashline.example/settings/billing';
export const LEDGER_URL = 'https://app.cashline.example/settings/ledger';

export interface SubscriptionInfo {
  status: string;
  plan: string;
  trialEndsAt: Date | null;
  /** Whole days left of the trial (ceil), only while trialing. */
  trialDaysRemaining: number | null;
}

export function subscriptionInfo(
  ba: { plan: string; subscriptionStatus: string; trialEndsAt: Date | null },
  now: Date,
): SubscriptionInfo {
  const trialing = ba.subscriptionStatus === 'trialing';
  const days =
    trialing && ba.trialEndsAt ? Math.max(0, Math.ceil((ba.trialEndsAt.getTime() - now.getTime()) / 86_400_000)) : null;
  return { status: ba.subscriptionStatus, plan: ba.plan, trialEndsAt: ba.trialEndsAt, trialDaysRemaining: days };
}

/** billingAlert triggers: trial 5 days or fewer, credits used >= 90%, past_due/canceled/trial_ended. */
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
  if (usage && usage.limit > 0 && usage.used / usage.limit >= 0.9) {
    const out = usage.remaining === 0;
    return {
      severity: out ? 'critical' : 'warn',
      message: out
        ? `All ${usage.limit} query credits of the 5-hour window are used; the next frees in ${usage.nextCreditInMinutes} minutes.`
        : `${usage.used} of ${usage.limit} query credits of the 5-hour window are used.`,
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

const SERVICE_ISSUE_MAX_AGE_MS = 12 * 60 * 60 * 1000;

/** ledgerAlert from the organisation's ledger connection (absent when healthy). */
export async function ledgerAlertFor(db: Db, orgId: string, now: Date): Promise<LedgerAlert | undefined> {
  const [conn] = await db.select().from(s.ledgerConnections).where(eq(s.ledgerConnections.orgId, orgId));
  return ledgerAlertFrom(conn ?? null, now);
}

export function ledgerAlertFrom(
  conn: {
    tokenState: string;
    breakerState: string;
    lastSuccessfulSync: Date | null;
    lastErrorAt: Date | null;
  } | null,
  now: Date,
): LedgerAlert | undefined {
  if (!conn) {
    return {
      severity: 'warn',
      kind: 'no_connection',
      message: 'No ledger account is connected; figures come from imported data and will not update.',
      lastSuccessfulSync: null,
      cta: { label: 'Connect Xero', url: LEDGER_URL },
    };
  }
  const last = conn.lastSuccessfulSync ? conn.lastSuccessfulSync.toISOString() : null;
  if (conn.tokenState === 'expired' || conn.tokenState === 'revoked' || conn.breakerState === 'open') {
    return {
      severity: 'critical',
      kind: 'reconnect_required',
      message:
        conn.breakerState === 'open' && conn.tokenState === 'ok'
          ? 'The ledger keeps failing and syncing has stopped; the data is stale until the connection is repaired.'
          : 'The ledger connection has expired or was revoked; the data is stale and will not update until it is reconnected.',
      lastSuccessfulSync: last,
      cta: { label: 'Reconnect Xero', url: LEDGER_URL },
    };
  }
  const failing = conn.lastErrorAt && (!conn.lastSuccessfulSync || conn.lastErrorAt > conn.lastSuccessfulSync);
  if (failing) {
    const age = conn.lastSuccessfulSync ? now.getTime() - conn.lastSuccessfulSync.getTime() : Number.POSITIVE_INFINITY;
    return {
      severity: 'warn',
      kind: 'service_issue',
      message:
        age <= SERVICE_ISSUE_MAX_AGE_MS
          ? 'The ledger is returning errors; retrying automatically. Data may be up to 12 hours old.'
          : 'The ledger is returning errors; retrying automatically. Data is more than 12 hours old.',
      lastSuccessfulSync: last,
      cta: { label: 'Check ledger status', url: LEDGER_URL },
    };
  }
  return undefined;
}

/** The legacy per-organisation daily bucket: the plan's 5-hour credits x 24/5, reset at 00:00 UTC. */
export function legacyDailyLimit(creditsPer5h: number): number {
  return Math.floor((creditsPer5h * 24 * 60 * 60 * 1000) / CREDIT_WINDOW_MS);
}

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

export function utcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}
