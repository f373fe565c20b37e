/** GET /api/agent/status (spec 2.10): any valid key; never charged. */
import { StatusResponse } from '../../schemas/status.js';
import type { ApiApp } from '../context.js';
import { agentRoute, withAlerts } from '../route.js';

export const statusRoute = agentRoute(null, {
  path: '/api/agent/status',
  summary: 'Subscription, usage and key status',
  description: 'Subscription, the legacy daily quota, the rolling 5-hour credit window (usage) and the key itself. Exempt from query credits: poll it freely.',
  responses: {
    200: { description: 'Status', content: { 'application/json': { schema: StatusResponse } } },
  },
});

export function registerStatus(app: ApiApp): void {
  app.openapi(statusRoute, (c) => {
    const auth = c.get('auth');
    const env = c.get('envelope');
    const deps = c.get('deps');
    const body = {
      subscription: env.subscription
        ? {
            status: env.subscription.status as 'trialing' | 'active' | 'past_due' | 'canceled' | 'trial_ended',
            plan: env.subscription.plan,
            trialEndsAt: env.subscription.trialEndsAt?.toISOString() ?? null,
            trialDaysRemaining: env.subscription.trialDaysRemaining,
          }
        : null,
      quota: env.quota ? { ...env.quota, resetAt: env.quota.resetAt.toISOString() } : null,
      usage: env.usage
        ? {
            remaining: env.usage.remaining,
            nextCreditInMinutes: env.usage.nextCreditInMinutes,
            fullResetInMinutes: env.usage.fullResetInMinutes,
            windowResetAt: env.usage.windowResetAt.toISOString(),
          }
        : null,
      key: {
        keyPrefix: auth.keyPrefix,
        kind: auth.kind,
        name: auth.keyName,
        scopes: auth.scopes,
        orgId: auth.orgId,
        createdAt: auth.keyCreatedAt.toISOString(),
      },
      environment: deps.config.CASHLINE_ENV,
    };
    return c.json(withAlerts(c, body), 200);
  });
}
