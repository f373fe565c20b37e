/**
 * GET /api/agent/forecast/accuracy (READ_FORECAST; issue 18,
 * docs/forecast.md#accuracy): the forecast's track record. The kept
 * forecasts (store/queries/track-record.ts) against what moved since
 * (store/queries/raw-ledger.ts), scored by domain/forecast/accuracy.ts with
 * the backtest's measures; the replayed record while too few are stored.
 */
import { addDays, dateIn } from '../../domain/calendar.js';
import { earliestAsOf, hasHappened, MIN_STORED_FORECASTS, trackAccuracy, type TrackEntry } from '../../domain/forecast/accuracy.js';
import { movementsOf } from '../../domain/forecast/actuals.js';
import { fromDay, mondayOf, toDay } from '../../domain/forecast/days.js';
import { ParamError } from '../../domain/list-params.js';
import { ForecastAccuracyQuery, ForecastAccuracyResponse } from '../../schemas/accuracy.js';
import { loadMovementsSince } from '../../store/queries/raw-ledger.js';
import { trackEntries } from '../../store/queries/track-record.js';
import type { ApiApp } from '../context.js';
import { callerOrg, json } from '../lists.js';
import { agentRoute, withAlerts } from '../route.js';

/** The default range: the 13 weeks before today. */
const DEFAULT_DAYS = 91;

export const forecastAccuracyRoute = agentRoute('READ_FORECAST', {
  path: '/api/agent/forecast/accuracy',
  summary: "The forecast's track record: what earlier forecasts said of each past week against what happened, per horizon",
  description:
    'For every week in the range that has happened: what each earlier BASE forecast said of it (point, P10, P90 of receipts, payments and closing cash) and what actually moved; per horizon (1-13 weeks ahead) the weeks measured, WAPE and coverage80 with the backtest\'s definitions. ' +
    `The forecasts are the ones this service stored (the first BASE forecast of each week, kept after the snapshot is pruned); with fewer than ${MIN_STORED_FORECASTS} of them measurable, the nightly calibration's replay of the organisation's own history, labelled source=replayed.`,
  request: { query: ForecastAccuracyQuery },
  responses: { 200: json(ForecastAccuracyResponse, 'Forecast accuracy') },
});

export function registerForecastAccuracy(app: ApiApp) {
  return app.openapi(forecastAccuracyRoute, async (c) => {
    const q = c.req.valid('query');
    const org = callerOrg(c);
    const db = c.get('db');
    const today = dateIn(org.timezone, c.get('deps').clock.now());
    const to = q.to ?? today;
    const from = q.from ?? addDays(to < today ? to : today, -DEFAULT_DAYS);
    if (to < from) throw q.to === undefined ? new ParamError('from', `must not be after to (default: today, ${to})`) : new ParamError('to', `must not be before from (${from})`);
    const since = earliestAsOf(from);
    const stored = await trackEntries(db, org.id, 'stored', '0001-01-01', to);
    const measurable = stored.filter((e) => hasHappened(e, today));
    const source = measurable.length >= MIN_STORED_FORECASTS ? 'stored' : 'replayed';
    const entries: TrackEntry[] = source === 'stored' ? stored.filter((e) => e.asOfDate >= since) : await trackEntries(db, org.id, 'replayed', since, to);
    // From the Monday of the earliest forecast: its week is reported whole (Monday to Sunday).
    const first = fromDay(mondayOf(toDay(entries[0]?.asOfDate ?? today)));
    const m = await loadMovementsSince(db, org.id, first);
    const r = trackAccuracy(entries, movementsOf(m.payments, m.bankTxns), m.bankAccounts, { today, from, to, horizon: q.horizon });
    return c.json(
      withAlerts(c, {
        asOfDate: today,
        currency: org.baseCurrency,
        from,
        to,
        source,
        storedForecasts: measurable.length,
        ...r,
        weeks: r.weeks.map((w) => ({ weekStart: w.weekStart, weekEnd: w.weekEnd, actual: w.actual, forecastCount: w.forecasts.length, ...(q.detail === 'full' ? { forecasts: w.forecasts } : {}) })),
        note: noteOf(source, measurable.length, r.forecastsMeasured, r.overall.weeksMeasured),
      }),
      200,
    );
  });
}

function noteOf(source: 'stored' | 'replayed', stored: number, forecasts: number, weeks: number): string {
  if (source === 'stored') return `${weeks} weeks measured from ${forecasts} stored forecasts.`;
  const why = `Only ${stored} stored forecast${stored === 1 ? ' has' : 's have'} a week that has happened (${MIN_STORED_FORECASTS} are needed)`;
  if (weeks === 0) return `${why}, and the replay of the organisation's history has no week in this range yet (it needs 13 weeks of history before its first forecast).`;
  return `${why}: these ${weeks} weeks are replayed, forecasts made as of past dates with only what was known then (${forecasts} replayed forecasts).`;
}
