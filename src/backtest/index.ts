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
import { canonical, D, dec, type Dec } from '../domain/money.js';
import { addDays, dateIn } from '../domain/calendar.js';
import { prepareForecast } from '../domain/forecast/engine.js';
import { forEachOpenReceivable, projectForecast } from '../domain/forecast/project.js';
import { toDec } from '../domain/forecast/cents.js';
import type { ForecastInput } from '../domain/forecast/types.js';
import { fromDay, mondayOf, toDay } from '../domain/forecast/days.js';
import { actualsFrom, horizonEnd, indexLedger, inputAt, type ReplayIndex } from './replay.js';
import { baselineWeeks } from './baselines.js';

export const METHODS = ['cashline', 'due_date', 'median_delay'] as const;
export type Method = (typeof METHODS)[number];

export interface Metric {
  mae: string;
  wape: number;
}

export interface MethodMetrics {
  receipts: Metric;
  payments: Metric;
  closing: Metric;
}

export interface BacktestResult {
  cutoffs: number;
  weeks: 13;
  methods: Record<Method, MethodMetrics>;
  /**
   * Only with `diagnostics: true`: receipts of the invoices open at each
   * cut-off alone, per method - how well each one times what is already
   * invoiced, apart from predicting new sales.
   */
  diagnostics?: { openReceivables: Record<Method, Metric> };
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

class Errors {
  private abs = new D(0);
  private actual = new D(0);
  private n = 0;
  add(forecast: Dec, actual: Dec): void {
    this.abs = this.abs.plus(forecast.minus(actual).abs());
    this.actual = this.actual.plus(actual.abs());
    this.n++;
  }
  metric(): Metric {
    return {
      mae: canonical(this.n ? this.abs.div(this.n).toDecimalPlaces(2) : 0),
      wape: this.actual.isZero() ? (this.abs.isZero() ? 0 : 1) : Number(this.abs.div(this.actual).toDecimalPlaces(4)),
    };
  }
}

export function backtestLedger(raw: RawLedger, opts: BacktestOptions & { today: string }): BacktestResult {
  const ix: ReplayIndex = indexLedger(raw);
  const limit = Math.min(toDay(opts.today), ix.lastDay);
  // A cut-off with data: some history known on it (the ledger's first day is on or before it),
  // 13 complete weeks after it that have happened, and money that moved in them. Others would
  // score a perfect 0 on nothing, so they are left out; none left is an error that says why.
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
  const errs = Object.fromEntries(METHODS.map((m) => [m, { receipts: new Errors(), payments: new Errors(), closing: new Errors() }])) as Record<
    Method,
    { receipts: Errors; payments: Errors; closing: Errors }
  >;
  const open = Object.fromEntries(METHODS.map((m) => [m, new Errors()])) as Record<Method, Errors>;
  const computedAt = new Date(0);
  cutoffs.forEach((cutoff, i) => {
    const input = inputAt(ix, cutoff);
    const prepared = prepareForecast(input);
    const payload = projectForecast(prepared, { id: 'backtest', name: 'Backtest', kind: 'BASE', adjustments: {} }, computedAt);
    const opening = dec(payload.startingCash);
    const actual = actualsFrom(ix, cutoff, opening);
    payload.weeks.forEach((w, k) => {
      const a = actual[k]!;
      errs.cashline.receipts.add(dec(w.inflow), a.receipts);
      errs.cashline.payments.add(dec(w.outflow), a.payments);
      errs.cashline.closing.add(dec(w.closing), a.closing);
    });
    for (const method of ['due_date', 'median_delay'] as const) {
      let closing = opening;
      baselineWeeks(input, method).forEach((w, k) => {
        const a = actual[k]!;
        closing = closing.plus(w.receipts).minus(w.payments);
        errs[method].receipts.add(w.receipts, a.receipts);
        errs[method].payments.add(w.payments, a.payments);
        errs[method].closing.add(closing, a.closing);
      });
    }
    if (opts.diagnostics) {
      const actualOpen = actualOpenReceipts(ix, input, cutoff);
      const cash = Array.from({ length: 13 }, () => new D(0));
      forEachOpenReceivable(prepared, 0, (_it, k, a) => (cash[k] = cash[k]!.plus(toDec(a))));
      cash.forEach((f, k) => open.cashline.add(f, actualOpen[k]!));
      for (const method of ['due_date', 'median_delay'] as const) {
        baselineWeeks({ ...input, items: input.items.filter((it) => it.kind === 'AR') }, method).forEach((w, k) => open[method].add(w.receipts, actualOpen[k]!));
      }
    }
    opts.onProgress?.({ done: i + 1, total: cutoffs.length, cutoff });
  });
  const methods = Object.fromEntries(
    METHODS.map((m) => [m, { receipts: errs[m].receipts.metric(), payments: errs[m].payments.metric(), closing: errs[m].closing.metric() }]),
  ) as Record<Method, MethodMetrics>;
  const result: BacktestResult = { cutoffs: cutoffs.length, weeks: 13, methods };
  if (opts.diagnostics) {
    result.diagnostics = { openReceivables: Object.fromEntries(METHODS.map((m) => [m, open[m].metric()])) as Record<Method, Metric> };
  }
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
