/**
 * The backtest (docs/forecast.md#backtest): at each cut-off from `from` to
 * `to`, every `everyDays` days, forecast the 13 weeks with only what was
 * known then, and compare each week's receipts, payments and closing cash
 * with what actually moved. Reported per method - cashline (the engine's
 * BASE scenario) and the baselines due_date and median_delay - as the weekly
 * mean absolute error (MAE, exact decimal string, in the base currency) and
 * the weighted absolute percentage error (WAPE = sum |forecast - actual| /
 * sum |actual|, a number rounded to 4 decimals) over every (cut-off, week).
 * Cut-offs whose 13 weeks run past the last day money moved (or past `now`)
 * are skipped: their actuals are not complete.
 */
import type { Db } from '../store/db.js';
import { orgMeta } from '../store/queries/organisation.js';
import { loadRawLedger, type RawLedger } from '../store/queries/raw-ledger.js';
import { D, dec, type Dec } from '../domain/money.js';
import { addDays, dateIn } from '../domain/calendar.js';
import { CALIBRATION_DAYS, calibrationEvery, MIN_HISTORY_DAYS, observeLowest } from './calibrate.js';
import { forEachOpenReceivable } from '../domain/forecast/project.js';
import { toDec } from '../domain/forecast/cents.js';
import type { ForecastInput, Scenario } from '../domain/forecast/types.js';
import type { PreparedForecast } from '../domain/forecast/prepared.js';
import { type Simulation } from '../domain/forecast/simulate.js';
import { forecastBands, probabilityBelow, simulatedBands } from '../domain/forecast/bands.js';
import { OnlineCalibrator, scaleFor } from '../domain/forecast/calibrate.js';
import { WEEKS } from '../domain/forecast/project.js';
import { CushionCounter, ErrorBands, Reliability, Scorer, type CushionCoverage, type HorizonMetric, type Metric, type ReliabilityTable } from '../domain/forecast/metrics.js';
import { fromDay, mondayOf, toDay } from '../domain/forecast/days.js';
import { FIGURE_OF, forecastAt, horizonEnd, indexLedger, MEASURES, type Measure, type ReplayIndex } from './replay.js';
import { baselineWeeks, naiveRunRate, type BaselineWeek } from './baselines.js';

export const METHODS = ['cashline', 'due_date', 'median_delay', 'naive_run_rate'] as const;
export type Method = (typeof METHODS)[number];
const BASELINES = ['due_date', 'median_delay', 'naive_run_rate'] as const;
type Baseline = (typeof BASELINES)[number];

export type { Metric, HorizonMetric } from '../domain/forecast/metrics.js';

export interface MethodMetrics {
  receipts: Metric;
  payments: Metric;
  closing: Metric;
}

export interface CashlineMetrics extends MethodMetrics {
  /** Per horizon week 1-13: WAPE and coverage of the 80% band. */
  byHorizon: { receipts: HorizonMetric[]; payments: HorizonMetric[]; closing: HorizonMetric[] };
}

export interface BacktestResult {
  cutoffs: number;
  weeks: 13;
  methods: { cashline: CashlineMetrics } & Record<Baseline, MethodMetrics>;
  /**
   * Only with `diagnostics: true`: receipts of the invoices open at each
   * cut-off alone, per method - how well each one times what is already
   * invoiced, apart from predicting new sales.
   */
  diagnostics?: { openReceivables: Record<Method, Metric> };
  /**
   * How true Cashline's stated probabilities are: at every (cut-off, week),
   * the probability it gave that closing cash would be below the cut-off's
   * opening cash (a fall in cash, the shortfall probability with today's cash
   * as the threshold), against whether it was.
   */
  shortfall: ReliabilityTable;
  /**
   * The same event in any of the 13 weeks, per cut-off: the probability the
   * forecast's `shortfall` states (the threshold the cut-off's opening cash),
   * against whether closing cash fell below it in some week.
   */
  shortfallAnyWeek: ReliabilityTable;
  /** The forecast's cushion (`shortfall.cushion90`, the threshold the cut-off's opening cash) against the largest fall below it that then happened. */
  cushion: CushionCoverage;
}

export interface BacktestOptions {
  from: string;
  to: string;
  everyDays: number;
  /** Cut-offs whose horizon ends after this day are skipped (default: the organisation's today). */
  now?: Date;
  onProgress?: (e: { done: number; total: number; cutoff: string }) => void;
  diagnostics?: boolean;
}

export class BacktestError extends Error {}

export async function runBacktest(db: Db, orgId: string, opts: BacktestOptions): Promise<BacktestResult> {
  const org = await orgMeta(db, orgId);
  if (!org) throw new BacktestError(`no organisation ${orgId}`);
  const raw = await loadRawLedger(db, org);
  const today = dateIn(org.timezone, opts.now ?? new Date());
  return backtestLedger(raw, { ...opts, today });
}

/** The cut-off dates from `from` to `to` every `everyDays` days. */
export function cutoffDates(from: string, to: string, everyDays: number): string[] {
  if (!Number.isInteger(everyDays) || everyDays < 1) throw new BacktestError('everyDays must be a positive integer');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) throw new BacktestError('from and to must be YYYY-MM-DD');
  if (to < from) throw new BacktestError('to is before from');
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, everyDays)) out.push(d);
  return out;
}

/** The cut-offs with data; none is an error that says why. */
function usableCutoffs(ix: ReplayIndex, opts: BacktestOptions & { today: string }): string[] {
  const limit = Math.min(toDay(opts.today), ix.lastDay);
  // A cut-off with data: some history known on it (the ledger's first day is on or before it),
  // 13 complete weeks after it that have happened, and money that moved in them. Others would
  // score a perfect 0 on nothing, so they are left out.
  const candidates = cutoffDates(opts.from, opts.to, opts.everyDays);
  const cutoffs = candidates.filter((c) => {
    const day = toDay(c);
    const end = horizonEnd(c);
    return day >= ix.firstDay && end <= limit && ix.movements.some((m) => m.day >= day && m.day <= end);
  });
  if (cutoffs.length === 0) {
    const span = Number.isFinite(ix.firstDay) ? `the ledger's history runs from ${fromDay(ix.firstDay)} to ${fromDay(ix.lastDay)}` : 'the ledger has no history';
    throw new BacktestError(
      `no cut-off between ${opts.from} and ${opts.to} has data (${candidates.length} tried): ${span}, and a cut-off needs history on or before it and 13 complete weeks after it, up to today, in which money moved`,
    );
  }
  return cutoffs;
}

const BASE: Scenario = { id: 'backtest', name: 'Backtest', kind: 'BASE', adjustments: {} };

/** One method's scorers per measure (and per horizon week). */
function scorers() {
  const by = () => Object.fromEntries(MEASURES.map((m) => [m, new Scorer()])) as Record<Measure, Scorer>;
  return { all: by(), byHorizon: Array.from({ length: WEEKS }, by), open: new Scorer() };
}

/** What a replay carries from cut-off to cut-off: the scores, and what each method has learnt of its own errors so far. */
interface Replay {
  ix: ReplayIndex;
  diagnostics: boolean;
  score: Record<Method, ReturnType<typeof scorers>>;
  calibrator: OnlineCalibrator;
  openCalibrator: OnlineCalibrator;
  reliability: Reliability;
  anyWeek: Reliability;
  cushion: CushionCounter;
  errorBands: Record<Baseline, Record<Measure, ErrorBands>>;
  openBands: Record<Baseline, ErrorBands>;
}

export function backtestLedger(raw: RawLedger, opts: BacktestOptions & { today: string }): BacktestResult {
  const ix: ReplayIndex = indexLedger(raw);
  const cutoffs = usableCutoffs(ix, opts);
  const r: Replay = {
    ix,
    diagnostics: Boolean(opts.diagnostics),
    score: Object.fromEntries(METHODS.map((m) => [m, scorers()])) as Replay['score'],
    calibrator: new OnlineCalibrator(WEEKS),
    openCalibrator: new OnlineCalibrator(WEEKS),
    reliability: new Reliability('closing cash below the opening cash of the cut-off'),
    anyWeek: new Reliability('closing cash below the opening cash of the cut-off in some week of the 13'),
    cushion: new CushionCounter(0.9),
    errorBands: Object.fromEntries(BASELINES.map((m) => [m, Object.fromEntries(MEASURES.map((x) => [x, new ErrorBands(WEEKS)]))])) as Replay['errorBands'],
    openBands: Object.fromEntries(BASELINES.map((m) => [m, new ErrorBands(WEEKS)])) as Replay['openBands'],
  };
  // What the nightly calibration would have known at each cut-off: the cut-offs it replays (every calibrationEvery days,
  // from two years before the first), learnt from and not scored, with the scored ones.
  const scored = new Set(cutoffs);
  let done = 0;
  for (const cutoff of learningCutoffs(ix, cutoffs, calibrationEvery(raw.items.length))) {
    const scoring = scored.has(cutoff);
    replayCutoff(r, cutoff, scoring);
    if (scoring) opts.onProgress?.({ done: ++done, total: cutoffs.length, cutoff });
  }
  return { ...resultOf(cutoffs.length, r.score, r.diagnostics), shortfall: r.reliability.table(), shortfallAnyWeek: r.anyWeek.table(), cushion: r.cushion.table() };
}

/**
 * Every cut-off a replay forecasts, in order: the scored ones, and those the
 * nightly calibration would have replayed by then (every `every` days back
 * from the last scored one, to CALIBRATION_DAYS before the first, with history
 * on them), learnt from by Cashline's calibration and the baselines' error
 * bands alike.
 */
function learningCutoffs(ix: ReplayIndex, scored: readonly string[], every: number): string[] {
  const out = new Set(scored);
  const last = scored[scored.length - 1]!;
  const earliest = Math.max(toDay(scored[0]!) - CALIBRATION_DAYS, ix.firstDay + MIN_HISTORY_DAYS);
  for (let c = addDays(last, -every); toDay(c) >= earliest; c = addDays(c, -every)) out.add(c);
  return [...out].sort();
}

/** Forecasts one cut-off with every method; scores it when `scoring`; lets every method learn from its outcomes as they arrive. */
function replayCutoff(r: Replay, cutoff: string, scoring: boolean): void {
  const C = toDay(cutoff);
  // Cashline: the point forecast, and the simulated bands calibrated on what was known by the cut-off.
  const replayed = forecastAt(r.ix, cutoff, BASE);
  const { input, prepared, payload, opening, actual, sim, raw, known, level, levelSim } = replayed;
  r.calibrator.advance(C);
  if (scoring) {
    r.calibrator.countCutoff();
    // The forecast's own shortfall and cushion over the 13 weeks (the threshold today's cash), as the calibration then stood.
    const { shortfall } = forecastBands(sim, r.calibrator.state(cutoff), opening.toNumber(), levelSim);
    const lowest = Math.min(...actual.map((a) => a.closing.toNumber()));
    r.anyWeek.add(shortfall.probability, lowest < opening.toNumber());
    r.cushion.add(Number(shortfall.cushion90), Math.max(0, opening.toNumber() - lowest));
  }
  payload.weeks.forEach((w, k) => {
    const points = { receipts: dec(w.inflow), payments: dec(w.outflow), closing: dec(w.closing) };
    for (const m of MEASURES) {
      const f = FIGURE_OF[m];
      const y = actual[k]![m];
      if (scoring) {
        const band = r.calibrator.band(k, f, raw[k]![f], level?.[k]![f]);
        r.score.cashline.all[m].add(points[m], y, band);
        r.score.cashline.byHorizon[k]![m].add(points[m], y, band);
        if (f === 'closing') {
          const p = probabilityBelow(levelSim ?? sim, k, raw[k]!.closing, scaleFor(r.calibrator.horizons, k, 'closing'), opening.toNumber(), level?.[k]!.closing);
          r.reliability.add(p, actual[k]!.closing.lt(opening));
        }
      }
      r.calibrator.observe(known(k), k, f, raw[k]![f], y.toNumber(), level?.[k]![f]);
    }
  });
  observeLowest(r.calibrator, replayed);
  for (const method of BASELINES) {
    let closing = opening;
    baselinePoints(r.ix, input, method).forEach((w, k) => {
      closing = closing.plus(w.receipts).minus(w.payments);
      const points = { receipts: w.receipts, payments: w.payments, closing };
      for (const m of MEASURES) {
        const p = points[m].toNumber();
        const y = actual[k]![m];
        if (scoring) r.score[method].all[m].add(points[m], y, r.errorBands[method][m].band(k, p, C));
        r.errorBands[method][m].observe(k, known(k), p, y.toNumber());
      }
    });
  }
  if (r.diagnostics) diagnose(r.ix, input, prepared, sim, { C, known, score: r.score, openCalibrator: r.openCalibrator, openBands: r.openBands, scoring });
}

/** The weeks of a baseline. */
function baselinePoints(ix: ReplayIndex, input: ForecastInput, method: Baseline): BaselineWeek[] {
  return method === 'naive_run_rate' ? naiveRunRate(ix, input.asOf) : baselineWeeks(input, method);
}

interface DiagnoseContext {
  C: number;
  scoring: boolean;
  known: (k: number) => number;
  score: Record<Method, ReturnType<typeof scorers>>;
  openCalibrator: OnlineCalibrator;
  openBands: Record<Baseline, ErrorBands>;
}

/** The open-receivables split: each method's receipts of the invoices open at the cut-off alone. */
function diagnose(ix: ReplayIndex, input: ForecastInput, prepared: PreparedForecast, sim: Simulation, x: DiagnoseContext): void {
  const actualOpen = actualOpenReceipts(ix, input, input.asOf);
  const cash = Array.from({ length: WEEKS }, () => new D(0));
  forEachOpenReceivable(prepared, 0, (_it, k, a) => (cash[k] = cash[k]!.plus(toDec(a))));
  const raw = simulatedBands({ ...sim, inflow: sim.receivables });
  x.openCalibrator.advance(x.C);
  cash.forEach((f, k) => {
    const band = x.openCalibrator.band(k, 'inflow', raw[k]!.inflow);
    if (x.scoring) x.score.cashline.open.add(f, actualOpen[k]!, band);
    x.openCalibrator.observe(x.known(k), k, 'inflow', raw[k]!.inflow, actualOpen[k]!.toNumber());
  });
  const arOnly = { ...input, items: input.items.filter((it) => it.kind === 'AR') };
  for (const method of BASELINES) {
    const weeks = method === 'naive_run_rate' ? naiveRunRate(ix, input.asOf) : baselineWeeks(arOnly, method);
    weeks.forEach((w, k) => {
      const p = w.receipts.toNumber();
      if (x.scoring) x.score[method].open.add(w.receipts, actualOpen[k]!, x.openBands[method].band(k, p, x.C));
      x.openBands[method].observe(k, x.known(k), p, actualOpen[k]!.toNumber());
    });
  }
}

function resultOf(cutoffs: number, score: Record<Method, ReturnType<typeof scorers>>, diagnostics: boolean): Omit<BacktestResult, 'shortfall' | 'shortfallAnyWeek' | 'cushion'> {
  const metricsOf = (m: Method): MethodMetrics => ({
    receipts: score[m].all.receipts.metric(),
    payments: score[m].all.payments.metric(),
    closing: score[m].all.closing.metric(),
  });
  const byHorizon = Object.fromEntries(MEASURES.map((m) => [m, score.cashline.byHorizon.map((s, k) => s[m].horizon(k + 1))])) as CashlineMetrics['byHorizon'];
  const methods = {
    cashline: { ...metricsOf('cashline'), byHorizon },
    ...(Object.fromEntries(BASELINES.map((m) => [m, metricsOf(m)])) as Record<Baseline, MethodMetrics>),
  };
  const result: Omit<BacktestResult, 'shortfall' | 'shortfallAnyWeek' | 'cushion'> = { cutoffs, weeks: 13, methods };
  if (diagnostics) result.diagnostics = { openReceivables: Object.fromEntries(METHODS.map((m) => [m, score[m].open.metric()])) as Record<Method, Metric> };
  return result;
}

/** Receipts per forecast week of the invoices open at the cut-off. */
function actualOpenReceipts(ix: ReplayIndex, input: ForecastInput, cutoff: string): Dec[] {
  const C = toDay(cutoff);
  const w0 = mondayOf(C);
  const out = Array.from({ length: 13 }, () => new D(0));
  for (const it of input.items) {
    if (it.kind !== 'AR' || it.status !== 'AUTHORISED') continue;
    for (const p of ix.paymentsByItem.get(it.id) ?? []) {
      if (p.day < C || p.day > w0 + 90) continue;
      const k = Math.floor((p.day - w0) / 7);
      out[k] = out[k]!.plus(p.amount);
    }
  }
  return out;
}
