/**
 * GET /api/agent/contacts and /api/agent/contacts/{id} (spec 2.5, 4.4, 4.5;
 * READ_CONTACTS). The list pages like the ledger lists (cursor bound to the
 * organisation, the endpoint and type+sort; limit capped at 200); the drill
 * is 404 for unknown ids, other organisations' ids and, for keys without
 * READ_SENSITIVE, sensitive contacts (the list withholds them too).
 *
 * /api/agent/contacts/summary (READ_SUMMARY) belongs to the summaries and
 * must be registered before this drill; the drill steps aside for it anyway.
 */
import type { Context } from 'hono';
import { dateIn } from '../../domain/calendar.js';
import { ContactDrillResponse, ContactsListResponse } from '../../schemas/ledger.js';
import { ContactListQuery, IdParam } from '../../schemas/params.js';
import { getContact, listContacts } from '../../store/queries/contacts.js';
import type { ApiApp, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { agentRoute, withAlerts } from '../route.js';
import { json, listCaller, listPage, notFoundResponse } from '../lists.js';

export const contactsRoute = agentRoute('READ_CONTACTS', {
  path: '/api/agent/contacts',
  summary: 'Contacts',
  description:
    'Customers and suppliers. type: customer (isCustomer), supplier (isSupplier) or both (default: every contact, including those that are neither). ' +
    'Paging order: lastSyncedAt descending, then id descending (keyset); sort=revenue_desc (by ltv) or spend_desc (by all-time paid bills) re-sorts the returned page in memory, nulls last. ' +
    'limit: default 50, capped at 200. Without READ_SENSITIVE, sensitive contacts are withheld: a page still holds `limit` visible contacts and redactedItemCount counts the withheld ones of the stretch the page covers. ' +
    'totals=true adds counts by type (customer only, supplier only, both, neither), summing to totalCount.',
  request: { query: ContactListQuery },
  responses: { 200: json(ContactsListResponse, 'A page of contacts') },
});

export const contactRoute = agentRoute('READ_CONTACTS', {
  path: '/api/agent/contacts/{id}',
  summary: 'One contact: credit, revenue, lifetime value, cadence, recent paid invoices',
  description:
    'The contact with its available credit and revenue (computed from the ledger), the nightly baseline analytics (null until computed), the last invoice and bill, and up to 50 recent paid invoices. ' +
    '{id} is the ledger contact id. Without READ_SENSITIVE a sensitive contact is 404, and recent paid invoices on sensitive accounts show accountName `Sensitive account` and accountCode null (redactedItemCount).',
  request: { params: IdParam },
  responses: { 200: json(ContactDrillResponse, 'The contact'), ...notFoundResponse },
});

function today(c: Context<AppEnv>): string {
  const org = c.get('auth').org;
  return dateIn(org?.timezone ?? 'Australia/Sydney', c.get('deps').clock.now());
}

export function registerContacts(app: ApiApp) {
  return app
    .openapi(contactsRoute, async (c) => {
      const q = c.req.valid('query');
      const { r, fields } = await listPage(c, 'contacts', { type: q.type, sort: q.sort, q: q.q }, q, (w) =>
        listContacts(c.get('db'), { ...w, type: q.type, sort: q.sort, q: q.q }),
      );
      return c.json(withAlerts(c, { contacts: r.contacts, ...fields }), 200);
    })
    .openapi(contactRoute, async (c, next) => {
      const { id } = c.req.valid('param');
      // /contacts/summary is another endpoint: never a contact id here.
      if (id === 'summary') {
        await next();
        return c.res as never;
      }
      const { orgId, gate } = listCaller(c);
      const r = await getContact(c.get('db'), { orgId, id, gate, today: today(c) });
      if (!r) throw notFound('contact');
      return c.json(withAlerts(c, r), 200);
    });
}
