/**
 * GET /api/agent/forecast/changes (READ_FORECAST; issue 18,
 * docs/forecast.md#changes): what changed between the current BASE forecast
 * and an earlier kept one, by cause (domain/forecast/changes.ts over
 * store/queries/forecast-changes.ts). Contact names are read here (rewritten
 * for a key without READ_SENSITIVE).
 */
import type { z } from '@hono/zod-openapi';
import { explainChanges, CHANGE_CAUSES, type ChangeExplanation } from '../../domain/forecast/changes.js';
import { canonical, D } from '../../domain/money.js';
import { ForecastChangesQuery, ForecastChangesResponse } from '../../schemas/changes.js';
import {
  currentDocumentStates,
  earlierComparable,
  latestComparable,
  recomputeDocuments,
  snapshotHeadline,
  snapshotItemTotals,
  type ChangeSnapshot,
} from '../../store/queries/forecast-changes.js';
import type { Db } from '../../store/db.js';
import type { ApiApp } from '../context.js';
import { ApiError } from '../errors.js';
import { callerOrg, json, listCaller, notFoundResponse, rowNames } from '../lists.js';
import { agentRoute, withAlerts } from '../route.js';

export const forecastChangesRoute = agentRoute('READ_FORECAST', {
  path: '/api/agent/forecast/changes',
  summary: 'What changed in the forecast since an earlier one: ending cash and the lowest week, item by item, by cause',
  description:
    'Compares the current BASE forecast with an earlier kept one (default: the one before it; since=YYYY-MM-DD: the latest on or before that date) and explains the change in ending cash and in the lowest week\'s closing cash by cause (documents settled, new, voided, edited, approved, moved; series re-estimated; opening cash; override and manual lines), each with its total, count and largest items. ' +
    "The causes' totals add up exactly to endingCashChange (and their minClosingTotals to minClosingCashChange). 404 not_found naming since when no forecast on or before it is kept.",
  request: { query: ForecastChangesQuery },
  responses: { 200: json(ForecastChangesResponse, 'Forecast changes'), ...notFoundResponse },
});

/** Nothing to compare: every cause at 0. */
const nothing = (): Pick<z.infer<typeof ForecastChangesResponse>, 'endingCashChange' | 'minClosingCashChange' | 'causes'> => ({
  endingCashChange: '0',
  minClosingCashChange: '0',
  causes: CHANGE_CAUSES.map((cause) => ({ cause, total: '0', minClosingTotal: '0', count: 0, items: [] })),
});

async function sideOf(db: Db, orgId: string, snap: ChangeSnapshot) {
  const head = await snapshotHeadline(db, orgId, snap.id);
  if (!head) throw new ApiError(404, 'not_found', 'The forecast compared was pruned meanwhile: ask again.');
  const [items, documents] = await Promise.all([snapshotItemTotals(db, orgId, snap.id, head.lowestWeek), recomputeDocuments(db, orgId, snap.computedAt)]);
  return { ...head, items, documents };
}

export function registerForecastChanges(app: ApiApp) {
  return app.openapi(forecastChangesRoute, async (c) => {
    const q = c.req.valid('query');
    const { orgId, gate } = listCaller(c);
    const org = callerOrg(c);
    const db = c.get('db');
    const to = await latestComparable(db, orgId);
    const from = to && (await earlierComparable(db, orgId, to, q.since));
    if (to && !from && q.since !== undefined) {
      throw new ApiError(404, 'not_found', `No forecast made on or before ${q.since} is kept (the last of each of the 14 days before the latest, and the 10 latest, are).`, { parameter: 'since' });
    }
    if (!to || !from) {
      const only = to && (await snapshotHeadline(db, orgId, to.id));
      return c.json(
        withAlerts(c, {
          currency: org.baseCurrency,
          from: null,
          to: to && only ? sideJson(to, only) : null,
          ...nothing(),
          redactedItemCount: 0,
          note: to ? 'There is no earlier forecast to compare with yet (one recompute so far).' : 'No forecast has been computed for this organisation yet.',
        }),
        200,
      );
    }
    // Both sides as of one instant: a recompute committing meanwhile cannot prune one of them half-read.
    const [a, b] = await db.transaction(async (tx) => [await sideOf(tx, orgId, from), await sideOf(tx, orgId, to)] as const, { isolationLevel: 'repeatable read', accessMode: 'read only' });
    // What became of the documents the later forecast no longer has (without the earlier one's documents: those of its items).
    const earlier = a.documentsKnown ? [...a.documents.keys()] : a.items.flatMap((i) => (i.documentId ? [i.documentId] : []));
    const gone = [...new Set(earlier)].filter((id) => !b.documents.has(id));
    const r = explainChanges(a, b, await currentDocumentStates(db, orgId, gone), q.limit);
    const names = await rowNames(db, orgId, gate, r.causes.flatMap((x) => x.items));
    const causes = r.causes.map((x) => ({
      ...x,
      items: x.items.map((it) => ({ ...it, number: names.number(it.documentId) ?? null, contactName: names.contactName(it.contactId) })),
    }));
    return c.json(
      withAlerts(c, {
        currency: org.baseCurrency,
        from: sideJson(from, a),
        to: sideJson(to, b),
        endingCashChange: r.endingCashChange,
        minClosingCashChange: r.minClosingCashChange,
        causes,
        redactedItemCount: names.redacted(),
        note:
          noteOf(r, org.baseCurrency) +
          horizonNote(a.weekStarts, b.weekStarts) +
          (a.documentsKnown ? '' : ' The earlier forecast was stored before its documents were kept: documents are placed by whether each forecast has them, and payments since stay in opening_cash.'),
      }),
      200,
    );
  });
}

function sideJson(s: ChangeSnapshot, h: { startingCash: string; endingCash: string; minClosingCash: string; lowestWeek: number }) {
  return {
    snapshotId: s.id,
    computedAt: s.computedAt.toISOString(),
    asOfDate: s.asOfDate,
    startingCash: h.startingCash,
    endingCash: h.endingCash,
    minClosingCash: h.minClosingCash,
    minClosingCashWeekIndex: h.lowestWeek,
  };
}

/** The causes in words, for the note. */
const CAUSE_WORDS: Record<(typeof CHANGE_CAUSES)[number], string> = {
  settled: 'documents settled',
  new_document: 'new documents',
  voided_or_deleted: 'documents voided or deleted',
  amount_changed: 'amounts edited',
  status_changed: 'statuses changed',
  dates_moved: 'expected dates moved',
  re_estimated: 'recurring and statistical items re-estimated',
  opening_cash: 'other money that moved',
  scenario_or_override: 'override and manual lines',
};

/** "Ending cash down 11708.41 AUD; the largest causes: new documents -12103.77, ..." */
function noteOf(r: ChangeExplanation, currency: string): string {
  const change = new D(r.endingCashChange);
  if (change.isZero() && r.causes.every((x) => x.count === 0 && new D(x.total).isZero())) return 'Nothing changed between the two forecasts.';
  const top = [...r.causes]
    .filter((x) => !new D(x.total).isZero())
    .sort((a, b) => new D(b.total).abs().cmp(new D(a.total).abs()))
    .slice(0, 3)
    .map((x) => `${CAUSE_WORDS[x.cause]} ${new D(x.total).gt(0) ? '+' : ''}${canonical(x.total)}`);
  return `Ending cash ${change.gte(0) ? 'up' : 'down'} ${canonical(change.abs())} ${currency}; the largest causes: ${top.join(', ')}.`;
}

/** When the 13 weeks themselves moved (a new week began), the weeks gained and lost are part of the change. */
function horizonNote(from: readonly string[], to: readonly string[]): string {
  if (from[0] === to[0] || !from.length || !to.length) return '';
  return ` The 13 weeks moved on (they start ${to[0]} instead of ${from[0]}): what the weeks that ended and the new weeks hold is part of the change.`;
}
