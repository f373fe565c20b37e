/** GET /api/agent/orgs (spec 2.10 OrgsResponse): any valid key. */
import { OrgsResponse } from '../../schemas/orgs.js';
import { partnerOrgs, userOrgs } from '../../store/tenancy.js';
import type { ApiApp } from '../context.js';
import { agentRoute, withAlerts } from '../route.js';

export const orgsRoute = agentRoute(null, {
  path: '/api/agent/orgs',
  summary: 'Organisations this key reaches',
  description:
    "Partner keys: the practice's linked client organisations. User keys: the organisations the key's user belongs to. Sorted by name.",
  responses: {
    200: { description: 'Organisations', content: { 'application/json': { schema: OrgsResponse } } },
  },
});

export function registerOrgs(app: ApiApp): void {
  app.openapi(orgsRoute, async (c) => {
    const auth = c.get('auth');
    const db = c.get('deps').store.db;
    const orgs =
      auth.kind === 'PARTNER'
        ? await partnerOrgs(db, auth.partnerId!)
        : auth.userId
          ? await userOrgs(db, auth.userId)
          : auth.org
            ? [{ id: auth.org.id, name: auth.org.name, slug: auth.org.slug }]
            : [];
    return c.json(withAlerts(c, { keyKind: auth.kind, orgs }), 200);
  });
}
