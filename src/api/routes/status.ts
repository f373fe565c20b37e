/** GET /api/agent/status (spec 2.10 StatusResponse, 4.1): any valid key; never charged (spec 8). */
import { StatusResponse } from '../../schemas/status.js';
import type { ApiApp } from '../context.js';
import { agentRoute, withAlerts } from '../route.js';

export const statusRoute = agentRoute(null, {
  path: '/api/agent/status',
  summary: 'Subscription, usage and key status',
  description:
    'The subscription of the target organisation, the legacy daily quota, the rolling 5-hour credit window (usage) and the key itself. ' +
    'Exempt from query credits: poll it freely (the burst cap still applies). Partner keys may call it without naming an organisation; usage is null then.',
  responses: {
    200: { description: 'Status', content: { 'application/json': { schema: StatusResponse } } },
  },
});

export function registerStatus(app: ApiApp) {
  return app
    .openapi(statusRoute, (c) => {
      const auth = c.get('auth');
      const env = c.get('envelope');
      const body = {
        subscription: {
          status: env.subscription.status,
          plan: env.subscription.plan,
          trialEndsAt: env.subscription.trialEndsAt?.toISOString() ?? null,
          trialDaysRemaining: env.subscription.trialDaysRemaining,
        },
        quota: { ...env.quota, resetAt: env.quota.resetAt.toISOString() },
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
        environment: c.get('deps').config.CASHLINE_ENV,
      };
      return c.json(withAlerts(c, body), 200);
    });
}
