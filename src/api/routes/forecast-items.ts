/**
 * GET /api/agent/forecast/items (READ_FORECAST; issue 19,
 * docs/forecast.md#items): what makes up one week of the forecast, item by
 * item, from the stored snapshot GET /forecast serves (the recompute writes
 * them with it; nothing is computed per request). Cursor-paged; a cursor
 * keeps paging through the snapshot its first page came from. Sensitive
 * contacts' names are rewritten for keys without READ_SENSITIVE.
 */
import { fromDay, mondayOf, toDay } from '../../domain/forecast/days.js';
import { ForecastItemsQuery, ForecastItemsResponse } from '../../schemas/forecast-items.js';
import { forecastItemsPage, itemsSnapshotById, latestItemsSnapshot, type ItemsSnapshot } from '../../store/queries/forecast-snapshot-items.js';
import { scenarioExists } from '../../store/queries/scenarios.js';
import type { Db } from '../../store/db.js';
import type { ApiApp } from '../context.js';
import { ApiError } from '../errors.js';
import { agentRoute, withAlerts } from '../route.js';
import { callerOrg, invalidCursor, json, listCaller, notFoundResponse, pageFields, paging } from '../lists.js';

export const forecastItemsRoute = agentRoute('READ_FORECAST', {
  path: '/api/agent/forecast/items',
  summary: 'What makes up one week of the forecast: each invoice, bill, schedule, prediction, order and manual line',
  description:
    "The items of one week (week: 0-based, required) of the latest forecast snapshot of a scenario (default BASE), the same snapshot GET /forecast serves: each with its kind, document, contact, direction, amount, expected date, probability and why it is in this week (reasonCode, reason). A week's items in add up exactly to its inflow, its items out to its outflow. " +
    'Largest amount first, cursor-paged (the cursor stays on the snapshot of the first page). 404 not_found when the scenario does not exist, has no forecast yet, or its latest forecast was computed before items were stored (recompute).',
  request: { query: ForecastItemsQuery },
  responses: { 200: json(ForecastItemsResponse, 'Forecast items'), ...notFoundResponse },
});

/** The snapshot a request reads: the cursor's, else the scenario's latest (404 with what to do otherwise). */
async function snapshotFor(db: Db, orgId: string, scenarioId: string | undefined, cursorSnapshot: string | undefined): Promise<ItemsSnapshot> {
  const snap = cursorSnapshot !== undefined ? await itemsSnapshotById(db, orgId, cursorSnapshot) : await latestItemsSnapshot(db, orgId, scenarioId);
  if (!snap) {
    if (cursorSnapshot !== undefined) {
      throw new ApiError(404, 'not_found', 'The forecast this cursor pages through is no longer kept (newer ones replaced it): start again without cursor.');
    }
    if (scenarioId !== undefined && !(await scenarioExists(db, orgId, scenarioId))) {
      throw new ApiError(404, 'not_found', `No scenario ${scenarioId} in this organisation.`, { parameter: 'scenarioId' });
    }
    throw new ApiError(404, 'not_found', 'No forecast has been computed for this organisation yet (cashline-server recompute computes it).');
  }
  if (snap.itemCount === null) {
    throw new ApiError(
      404,
      'not_found',
      `The latest forecast (computed ${snap.computedAt.toISOString()}) was stored before its items were: recompute the forecast (cashline-server recompute) to list them; GET /forecast serves its weeks meanwhile.`,
    );
  }
  return snap;
}

export function registerForecastItems(app: ApiApp) {
  return app.openapi(forecastItemsRoute, async (c) => {
    const q = c.req.valid('query');
    const { orgId, gate } = listCaller(c);
    const db = c.get('db');
    // The cursor's position: the rank of the last item served, and the snapshot it came from.
    const p = paging(c, orgId, 'forecast-items', { scenarioId: q.scenarioId, week: q.week, kind: q.kind }, q);
    const afterSeq = p.after ? Number(p.after[0]) : 0;
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw invalidCursor();
    const snap = await snapshotFor(db, orgId, q.scenarioId, p.after?.[1]);
    const page = await forecastItemsPage(db, { orgId, snapshotId: snap.id, week: q.week, kind: q.kind, afterSeq, limit: q.limit, gate, totals: q.totals });
    const start = mondayOf(toDay(snap.asOfDate)) + 7 * q.week;
    const fields = pageFields(q, p, { next: page.next === null ? null : [String(page.next), snap.id], totalCount: page.totalCount, redactedItemCount: page.redactedItemCount, totals: page.totals });
    const body = {
      scenarioId: snap.scenarioId,
      computedAt: snap.computedAt.toISOString(),
      asOfDate: snap.asOfDate,
      currency: callerOrg(c).baseCurrency,
      week: { index: q.week, weekStart: fromDay(start), weekEnd: fromDay(start + 6) },
      items: page.items,
      ...fields,
    };
    return c.json(withAlerts(c, body), 200);
  });
}
