/**
 * GET /api/agent/receivables/aged and /payables/aged (READ_INVOICES; issue
 * 19, docs/lists.md#aged): per contact, what is owed by ageing band, sorted by
 * what is overdue, cursor-paged, with totals over every contact.
 */
import type { Context } from 'hono';
import { dateIn } from '../../domain/calendar.js';
import { agedPage } from '../../domain/aged.js';
import { SENSITIVE_CONTACT } from '../../domain/sensitive.js';
import type { PagingParams } from '../../domain/list-params.js';
import { AgedPayablesResponse, AgedReceivablesResponse } from '../../schemas/aged.js';
import { AgedQuery } from '../../schemas/params.js';
import { agedByContact } from '../../store/queries/daily-summary.js';
import type { ApiApp, AppEnv } from '../context.js';
import { agentRoute, withAlerts } from '../route.js';
import { callerOrg, json, listCaller, paging } from '../lists.js';

const AGED_NOTE =
  "Open AUTHORISED documents still owed, in the base currency, aged as at today in the organisation's time zone by days past the due date (the issue date when there is none), in the daily summary's bands. Contacts are sorted by their overdue balance, largest first; totals cover every contact.";

export const agedReceivablesRoute = agentRoute('READ_INVOICES', {
  path: '/api/agent/receivables/aged',
  summary: 'Who owes what, and how late: receivables aged per customer',
  description: `Per customer: what it owes not yet due, 1-30, 31-60, 61-90 and over 90 days past due, its overdue and whole balance, its open invoices and the oldest due date. ${AGED_NOTE}`,
  request: { query: AgedQuery },
  responses: { 200: json(AgedReceivablesResponse, 'Aged receivables') },
});

export const agedPayablesRoute = agentRoute('READ_INVOICES', {
  path: '/api/agent/payables/aged',
  summary: 'What we owe, and how late: payables aged per supplier',
  description: `Per supplier: what is owed to it not yet due, 1-30, 31-60, 61-90 and over 90 days past due, the overdue and whole balance, the open bills and the oldest due date. ${AGED_NOTE}`,
  request: { query: AgedQuery },
  responses: { 200: json(AgedPayablesResponse, 'Aged payables') },
});

async function agedAnswer(c: Context<AppEnv>, side: 'AR' | 'AP', q: PagingParams) {
  const { orgId, gate } = listCaller(c);
  const org = callerOrg(c);
  const asOf = dateIn(org.timezone, c.get('deps').clock.now());
  const p = paging(c, orgId, side === 'AR' ? 'receivables-aged' : 'payables-aged', { asOf }, q);
  const page = agedPage(await agedByContact(c.get('db'), orgId, side, asOf), p.after, q.limit);
  let redacted = 0;
  const contacts = page.rows.map(({ row, overdue, total }) => {
    const hide = gate && row.sensitive;
    if (hide) redacted++;
    return {
      contactId: row.contactId,
      contactName: hide ? SENSITIVE_CONTACT : (row.name ?? 'No contact'),
      ...row.bands,
      overdue,
      total,
      documents: row.documents,
      oldestDueDate: row.oldestDueDate,
    };
  });
  return { contacts, asOfDate: asOf, currency: org.baseCurrency, nextCursor: p.nextCursor(page.next), totalCount: page.totalCount, redactedItemCount: redacted, totals: page.totals };
}

export function registerAged(app: ApiApp) {
  return app
    .openapi(agedReceivablesRoute, async (c) => c.json(withAlerts(c, await agedAnswer(c, 'AR', c.req.valid('query'))), 200))
    .openapi(agedPayablesRoute, async (c) => c.json(withAlerts(c, await agedAnswer(c, 'AP', c.req.valid('query'))), 200));
}
