/** GET /api/agent/orgs (spec 2.10 OrgsResponse, 4.1): any valid key. */
import { OrgsResponse } from '../../schemas/orgs.js';
import { partnerOrgs, userOrgs } from '../../store/tenancy.js';
import type { ApiApp } from '../context.js';
import { agentRoute, withAlerts } from '../route.js';

export const orgsRoute = agentRoute(null, {
  path: '/api/agent/orgs',
  summary: 'Organisations this key reaches',
  description:
    "Partner keys: the practice's linked client organisations (no organisation needs to be named). " +
    "User keys: the organisations the key's user belongs to. Sorted by name, then id.",
  responses: {
    200: { description: 'Organisations', content: { 'application/json': { schema: OrgsResponse } } },
  },
});

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const byName = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function registerOrgs(app: ApiApp) {
  return app
    .openapi(orgsRoute, async (c) => {
      const auth = c.get('auth');
      const db = c.get('db');
      const orgs =
        auth.kind === 'PARTNER'
          ? await partnerOrgs(db, auth.partnerId!)
          : auth.userId
            ? await userOrgs(db, auth.userId)
            : auth.org
              ? [{ id: auth.org.id, name: auth.org.name, slug: auth.org.slug }]
              : [];
      // Sorted here, not by the store's collation, so both backends give the same order.
      const sorted = orgs.map((o) => ({ id: o.id, name: o.name, slug: o.slug })).sort(byName);
      return c.json(withAlerts(c, { keyKind: auth.kind, orgs: sorted }), 200);
    });
}
