/**
 * GET /api/agent/collections (READ_INVOICES and READ_FORECAST; issue 18,
 * docs/forecast.md#collections): what to do about the lowest week of the
 * BASE forecast. Computed on the forecast model of the latest recompute
 * (forecast-model.ts) by src/domain/forecast/collections.ts; document
 * numbers and contact names read here (names rewritten for a key without
 * READ_SENSITIVE).
 */
import { collections } from '../../domain/forecast/collections.js';
import { CollectionsQuery, CollectionsResponse } from '../../schemas/collections.js';
import { listScenarios } from '../../store/queries/scenarios.js';
import type { ApiApp } from '../context.js';
import { ApiError } from '../errors.js';
import { forecastModel } from '../forecast-model.js';
import { callerOrg, json, listCaller, rowNames } from '../lists.js';
import { agentRoute, withAlerts } from '../route.js';

export const collectionsRoute = agentRoute(['READ_INVOICES', 'READ_FORECAST'], {
  path: '/api/agent/collections',
  summary: 'What to chase first: the receivables whose collection would lift the lowest forecast week most, and the bills that could wait',
  description:
    'The open approved invoices ranked by how much collecting each on its due date (today when overdue), rather than when the forecast expects it, would raise the lowest closing cash of the BASE forecast (lift), ' +
    "with what is owed, days overdue, the predicted payment date, the chance it is still unpaid after the lowest week and the customer's paying history; beside them, the approved bills the forecast expects paid before their due week, with the lift of paying each on its due date. " +
    'Computed from the same forecast as GET /forecast: each lift is exactly the change of minClosingCash.',
  request: { query: CollectionsQuery },
  responses: { 200: json(CollectionsResponse, 'Collections') },
});

export function registerCollections(app: ApiApp) {
  return app.openapi(collectionsRoute, async (c) => {
    const { orgId, gate } = listCaller(c);
    const org = callerOrg(c);
    const { limit } = c.req.valid('query');
    const db = c.get('db');
    const now = c.get('deps').clock.now();
    const base = (await listScenarios(db, orgId)).find((s) => s.kind === 'BASE');
    if (!base) throw new ApiError(404, 'not_found', 'This organisation has no BASE scenario.');
    const model = await forecastModel(db, org, now);
    const r = collections(model.prepared, base, now);
    const receivables = r.receivables.slice(0, limit);
    const payables = r.payables.slice(0, limit);
    const names = await rowNames(db, orgId, gate, [...receivables, ...payables]);
    const named = <T extends { contactId: string | null; documentId: string; number: string | null }>(x: T) => ({
      ...x,
      number: names.number(x.documentId) ?? x.number,
      contactName: names.contactName(x.contactId),
    });
    return c.json(
      withAlerts(c, {
        computedAt: (model.snapshot?.computedAt ?? now).toISOString(),
        asOfDate: model.inputs.asOf,
        currency: org.baseCurrency,
        lowestWeekIndex: r.lowestWeekIndex,
        minClosingCash: r.minClosingCash,
        receivables: receivables.map(named),
        receivableCount: r.receivables.length,
        payables: payables.map(named),
        payableCount: r.payables.length,
        redactedItemCount: names.redacted(),
      }),
      200,
    );
  });
}
