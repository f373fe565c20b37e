/**
 * The forecast's track record (docs/forecast.md#accuracy; issue 18): what
 * earlier forecasts said of each week that has now happened, against what
 * actually moved, scored per horizon (1-13 weeks ahead) with the backtest's
 * own measures (metrics.ts: WAPE and coverage80) and actuals (actuals.ts).
 *
 * A forecast is kept as a track entry: its as-of date, opening cash and, per
 * week, the point forecast with P10, P50 and P90 of inflow, outflow and
 * closing cash. Stored entries are the first BASE snapshot of each week;
 * replayed ones the cut-offs of the nightly calibration's replay.
 */
import { canonical, D, dec, type Dec } from '../money.js';
import { actualWeeks, cashAtStartOf, type Movement } from './actuals.js';
import type { Figure, Quantiles } from './calibrate.js';
import { fromDay, mondayOf, toDay } from './days.js';
import { Scorer } from './metrics.js';
import { cmpStr } from './compare.js';
import type { ForecastPayload } from './types.js';

export const HORIZON_WEEKS = 13;
/** Stored forecasts needed (each with a week that has happened) before the track record is theirs rather than the replay's. */
export const MIN_STORED_FORECASTS = 4;

/** A figure of a week as forecast: the point and its P10, P50, P90 (canonical decimal strings). */
export type TrackFigure = [point: string, p10: string, p50: string, p90: string];

export interface TrackWeek {
  weekStart: string;
  weekEnd: string;
  inflow: TrackFigure;
  outflow: TrackFigure;
  closing: TrackFigure;
}

export type TrackKind = 'stored' | 'replayed';

export interface TrackEntry {
  kind: TrackKind;
  asOfDate: string;
  snapshotId: string | null;
  computedAt: Date;
  /** A stored entry written from the replay (the demo's first six months), not by a recompute. */
  seeded: boolean;
  startingCash: string;
  weeks: TrackWeek[];
}

const money2 = (x: number) => canonical(new D(x).toDecimalPlaces(2));
const figureOf = (point: string, q: Quantiles | undefined): TrackFigure =>
  q ? [point, money2(q.p10), money2(q.p50), money2(q.p90)] : [point, point, point, point];

/** The track weeks of a forecast payload (its bands; a payload without bands: P10 = P50 = P90 = the point). */
export function trackWeeksOfPayload(p: ForecastPayload): TrackWeek[] {
  const fig = (point: string, b: { p10: string; p50: string; p90: string } | undefined): TrackFigure => (b ? [point, b.p10, b.p50, b.p90] : [point, point, point, point]);
  return p.weeks.map((w) => ({
    weekStart: w.weekStart,
    weekEnd: w.weekEnd,
    inflow: fig(w.inflow, w.bands?.inflow),
    outflow: fig(w.outflow, w.bands?.outflow),
    closing: fig(w.closing, w.bands?.closing),
  }));
}

/** The track weeks of a replayed cut-off: its point forecast and the bands it had then (numbers; none: the point). */
export function trackWeeksOfReplay(p: Pick<ForecastPayload, 'weeks'>, bands: readonly (Record<Figure, Quantiles> | null)[]): TrackWeek[] {
  return p.weeks.map((w, k) => ({
    weekStart: w.weekStart,
    weekEnd: w.weekEnd,
    inflow: figureOf(w.inflow, bands[k]?.inflow),
    outflow: figureOf(w.outflow, bands[k]?.outflow),
    closing: figureOf(w.closing, bands[k]?.closing),
  }));
}

/** The measures of the track record: receipts are the forecast's inflow, payments its outflow. */
export const TRACK_MEASURES = { receipts: 'inflow', payments: 'outflow', closing: 'closing' } as const;
type Measure = keyof typeof TRACK_MEASURES;
const MEASURES = Object.keys(TRACK_MEASURES) as Measure[];

export interface MeasureScore {
  wape: number;
  coverage80: number;
}

export interface HorizonAccuracy {
  weeksAhead: number;
  weeksMeasured: number;
  receipts: MeasureScore;
  payments: MeasureScore;
  closing: MeasureScore;
}

export interface CellFigure {
  forecast: string;
  p10: string;
  p90: string;
  actual: string;
}

/** One forecast of one week that has happened. */
export interface AccuracyCell {
  asOfDate: string;
  weeksAhead: number;
  seeded: boolean;
  /** The first day measured: the week's Monday, or the as-of date when the forecast was made within the week. */
  measuredFrom: string;
  receipts: CellFigure;
  payments: CellFigure;
  closing: CellFigure;
}

export interface AccuracyWeek {
  weekStart: string;
  weekEnd: string;
  /** What moved in the whole week (Monday to Sunday), and the cash at its end. */
  actual: { receipts: string; payments: string; closing: string };
  forecasts: AccuracyCell[];
}

export interface AccuracyResult {
  /** Forecasts with at least one week measured. */
  forecastsMeasured: number;
  horizons: HorizonAccuracy[];
  overall: { weeksMeasured: number; receipts: MeasureScore; payments: MeasureScore; closing: MeasureScore };
  weeks: AccuracyWeek[];
}

export interface AccuracyOptions {
  /** Today (the organisation's): a week has happened when it ended before today. */
  today: string;
  /** Weeks ending on or after `from` and on or before `to`. */
  from: string;
  to: string;
  /** Only this many weeks ahead (1-13); undefined: every horizon. */
  horizon?: number | undefined;
}

/** The earliest as-of date whose forecast can reach a week ending on or after `from`. */
export function earliestAsOf(from: string): string {
  return fromDay(toDay(from) - 7 * HORIZON_WEEKS);
}

/** Whether an entry has a week that has happened by `today`. */
export const hasHappened = (e: TrackEntry, today: string) => e.weeks.length > 0 && e.weeks[0]!.weekEnd < today;

/**
 * Scores the entries' weeks that have happened against the movements
 * (every one from the earliest entry's as-of date on) and today's book
 * balances.
 */
export function trackAccuracy(
  entries: readonly TrackEntry[],
  movements: readonly Movement[],
  bankAccounts: readonly { id: string; book: string }[],
  opts: AccuracyOptions,
): AccuracyResult {
  const byHorizon = Array.from({ length: HORIZON_WEEKS }, () => ({ n: 0, s: { receipts: new Scorer(), payments: new Scorer(), closing: new Scorer() } }));
  const overall = { n: 0, s: { receipts: new Scorer(), payments: new Scorer(), closing: new Scorer() } };
  const weeks = new Map<string, AccuracyWeek>();
  let measured = 0;
  for (const e of [...entries].sort((a, b) => cmpStr(a.asOfDate, b.asOfDate))) {
    const actual = actualWeeks(movements, e.asOfDate, cashAtStartOf(movements, bankAccounts, toDay(e.asOfDate)), e.weeks.length);
    let any = false;
    e.weeks.forEach((w, k) => {
      if (w.weekEnd >= opts.today || w.weekEnd < opts.from || w.weekEnd > opts.to) return;
      if (opts.horizon !== undefined && k + 1 !== opts.horizon) return;
      any = true;
      const a = actual[k]!;
      const ys: Record<Measure, Dec> = { receipts: a.receipts, payments: a.payments, closing: a.closing };
      const cell = { asOfDate: e.asOfDate, weeksAhead: k + 1, seeded: e.seeded, measuredFrom: k === 0 && e.asOfDate > w.weekStart ? e.asOfDate : w.weekStart } as AccuracyCell;
      for (const m of MEASURES) {
        const [point, p10, p50, p90] = w[TRACK_MEASURES[m]];
        const band = { p10: Number(p10), p50: Number(p50), p90: Number(p90) };
        byHorizon[k]!.s[m].add(dec(point), ys[m], band);
        overall.s[m].add(dec(point), ys[m], band);
        cell[m] = { forecast: point, p10, p90, actual: canonical(ys[m]) };
      }
      byHorizon[k]!.n++;
      overall.n++;
      let week = weeks.get(w.weekStart);
      if (!week) weeks.set(w.weekStart, (week = { weekStart: w.weekStart, weekEnd: w.weekEnd, actual: wholeWeek(movements, bankAccounts, w.weekStart), forecasts: [] }));
      week.forecasts.push(cell);
    });
    if (any) measured++;
  }
  const score = (s: Scorer): MeasureScore => {
    const m = s.metric();
    return { wape: m.wape, coverage80: m.coverage80 };
  };
  return {
    forecastsMeasured: measured,
    horizons: byHorizon.flatMap((h, k) =>
      opts.horizon !== undefined && k + 1 !== opts.horizon
        ? []
        : [{ weeksAhead: k + 1, weeksMeasured: h.n, receipts: score(h.s.receipts), payments: score(h.s.payments), closing: score(h.s.closing) }],
    ),
    overall: { weeksMeasured: overall.n, receipts: score(overall.s.receipts), payments: score(overall.s.payments), closing: score(overall.s.closing) },
    weeks: [...weeks.values()]
      .sort((a, b) => cmpStr(a.weekStart, b.weekStart))
      .map((w) => ({ ...w, forecasts: w.forecasts.sort((a, b) => a.weeksAhead - b.weeksAhead) })),
  };
}

/** What moved in the calendar week starting on Monday `weekStart`, and the cash at its end. */
function wholeWeek(movements: readonly Movement[], bankAccounts: readonly { id: string; book: string }[], weekStart: string): AccuracyWeek['actual'] {
  const monday = mondayOf(toDay(weekStart));
  const [a] = actualWeeks(movements, fromDay(monday), cashAtStartOf(movements, bankAccounts, monday), 1);
  return { receipts: canonical(a!.receipts), payments: canonical(a!.payments), closing: canonical(a!.closing) };
}
