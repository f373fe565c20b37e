/**
 * The insight engine (docs/forecast.md#notes-for-agents): notes for agents
 * about seasonality, trend, pipeline, receivables and concentration over the
 * windows this_month, next_4w and this_quarter, each with a stable
 * sourceInsightId (kind, window and day). Deterministic: the same inputs give
 * the same notes in the same order. When no insight clears its threshold the
 * fallback detectors speak instead. Notes never name a contact (they are not
 * subject to sensitive-data rewriting).
 *
 * Thresholds:
 * - seasonality (this_month): this calendar month's seasonal index (two years
 *   of history needed) at least 10% from an average month; warn at -15% or less.
 * - trend (next_4w): receipts expected in the next 4 weeks differ from the
 *   last 28 days' receipts by 20% or more; warn when lower.
 * - trend (this_quarter): the lowest forecast closing cash is below zero (warn),
 *   else under TIGHT_WEEKS_OF_OUTFLOWS weeks of the forecast's average weekly
 *   outflows and below today's cash (warn: a tight week),
 *   or ending cash is 25% or more below starting cash (warn).
 * - pipeline (next_4w): draft and submitted invoices are worth at least 5% of
 *   the next 4 weeks' expected inflow.
 * - ar (this_month): overdue receivables are at least 10% of open
 *   receivables; warn at 30%.
 * - concentration (this_quarter): one customer holds at least 25% of open
 *   receivables (with at least AUD/GBP/... 1,000 open); warn at 40%.
 */
import type { AgentNote, ForecastPayload, NoteKind, NoteWindow } from '../forecast/types.js';
import type { PreparedForecast } from '../forecast/prepared.js';
import { dec } from '../money.js';
import { monthOf } from '../forecast/days.js';
import { fallbackNotes } from './fallback.js';
import { longDate, money, MONTHS, pct } from './format.js';

export const MAX_NOTES = 5;
/** A low point under this many weeks of the forecast's own average outflows is a tight week (a warn note, the brief's risk signal). */
export const TIGHT_WEEKS_OF_OUTFLOWS = 2;
const KIND_ORDER: NoteKind[] = ['trend', 'ar', 'concentration', 'pipeline', 'seasonality'];

export function insightId(kind: NoteKind, window: NoteWindow, asOf: string): string {
  return `ins_${kind}_${window}_${asOf.replace(/-/g, '')}`;
}

/** A note of a kind and window (its id derives from them and the forecast's date). */
type Note = (kind: NoteKind, window: NoteWindow, severity: 'info' | 'warn', text: string) => void;

/** This month against an average month, from two years of history or more. */
function seasonalityNote(p: PreparedForecast, note: Note): void {
  if (p.facts.seasonalityMonths < 24) return;
  const m = monthOf(p.asOf);
  const idx = p.season[m]!;
  if (Math.abs(idx - 1) < 0.1) return;
  note(
    'seasonality',
    'this_month',
    idx - 1 <= -0.15 ? 'warn' : 'info',
    `Invoiced sales in ${MONTHS[m]} typically run ${pct(Math.abs(idx - 1))} ${idx > 1 ? 'above' : 'below'} an average month (from ${p.facts.seasonalityMonths} months of history).`,
  );
}

/** The next 4 weeks' receipts against the last 28 days'; returns the next 4 weeks' receipts. */
function receiptsTrendNote(p: PreparedForecast, payload: ForecastPayload, note: Note): number {
  const ccy = payload.currency;
  const next4 = payload.weeks.slice(0, 4).reduce((a, w) => a + dec(w.inflow).toNumber(), 0);
  const last = p.facts.receiptsLast28;
  if (last > 0) {
    const change = next4 / last - 1;
    if (Math.abs(change) >= 0.2) {
      note(
        'trend',
        'next_4w',
        change < 0 ? 'warn' : 'info',
        `Receipts expected over the next 4 weeks (${money(ccy, next4.toFixed(2))}) are ${pct(Math.abs(change))} ${change > 0 ? 'higher' : 'lower'} than in the last 4 weeks (${money(ccy, last.toFixed(2))}).`,
      );
    }
  }
  return next4;
}

/** The quarter's low point: below zero, tight (under TIGHT_WEEKS_OF_OUTFLOWS of outflows), or a fall of a quarter or more. */
function lowPointNote(payload: ForecastPayload, note: Note): void {
  const ccy = payload.currency;
  const minClosing = dec(payload.minClosingCash);
  const start = dec(payload.startingCash);
  const endCash = dec(payload.endingCash);
  const weeklyOut = payload.weeks.length ? dec(payload.totalOutflow).div(payload.weeks.length) : dec(0);
  const cover = weeklyOut.gt(0) ? minClosing.div(weeklyOut) : null;
  if (minClosing.isNeg()) {
    const w = payload.weeks[payload.minClosingCashWeekIndex]!;
    note('trend', 'this_quarter', 'warn', `Cash is forecast to fall below zero, to ${money(ccy, minClosing)} in the week of ${longDate(w.weekStart)}.`);
  } else if (cover !== null && cover.lt(TIGHT_WEEKS_OF_OUTFLOWS) && minClosing.lt(start)) {
    const w = payload.weeks[payload.minClosingCashWeekIndex]!;
    note(
      'trend',
      'this_quarter',
      'warn',
      `Cash is tightest in the week of ${longDate(w.weekStart)}: ${money(ccy, minClosing)}, about ${cover.toFixed(1)} weeks of the forecast's average outflows (${money(ccy, weeklyOut.toFixed(2))} a week), down from ${money(ccy, start)} today.`,
    );
  } else if (start.gt(0) && endCash.lt(start.times(0.75))) {
    note(
      'trend',
      'this_quarter',
      'warn',
      `Cash is forecast to fall ${pct(1 - endCash.div(start).toNumber())} over 13 weeks, from ${money(ccy, start)} to ${money(ccy, endCash)}.`,
    );
  }
}

/** Overdue receivables, when they are a tenth of what is owed or more. */
function receivablesNote(p: PreparedForecast, ccy: string, openTotal: number, note: Note): void {
  const overdue = p.facts.openReceivables.filter((r) => r.due < p.asOf);
  const overdueTotal = overdue.reduce((a, r) => a + r.amountDue, 0);
  if (!(openTotal > 0 && overdueTotal / openTotal >= 0.1)) return;
  const old = overdue.filter((r) => p.asOf - r.due > 60).reduce((a, r) => a + r.amountDue, 0);
  note(
    'ar',
    'this_month',
    overdueTotal / openTotal >= 0.3 ? 'warn' : 'info',
    `${overdue.length} overdue invoice${overdue.length === 1 ? '' : 's'} worth ${money(ccy, overdueTotal.toFixed(2))} (${pct(overdueTotal / openTotal)} of receivables)` +
      (old > 0 ? `; ${money(ccy, old.toFixed(2))} of it is more than 60 days overdue.` : '.'),
  );
}

/** One customer holding a quarter or more of open receivables. */
function concentrationNote(p: PreparedForecast, ccy: string, openTotal: number, note: Note): void {
  if (openTotal < 1000) return;
  const byCustomer = new Map<string, number>();
  for (const r of p.facts.openReceivables) if (r.contactId) byCustomer.set(r.contactId, (byCustomer.get(r.contactId) ?? 0) + r.amountDue);
  if (byCustomer.size < 2) return;
  const top = Math.max(...byCustomer.values());
  const share = top / openTotal;
  if (share < 0.25) return;
  note(
    'concentration',
    'this_quarter',
    share >= 0.4 ? 'warn' : 'info',
    `One customer accounts for ${pct(share)} of open receivables (${money(ccy, top.toFixed(2))}); a late payment there would move the quarter.`,
  );
}

export function buildNotes(p: PreparedForecast, payload: ForecastPayload): AgentNote[] {
  const ccy = payload.currency;
  const asOfDate = payload.asOfDate;
  const notes: AgentNote[] = [];
  const note: Note = (kind, window, severity, text) => notes.push({ kind, window, severity, text, sourceInsightId: insightId(kind, window, asOfDate) });

  seasonalityNote(p, note);
  const next4 = receiptsTrendNote(p, payload, note);
  lowPointNote(payload, note);
  // pipeline
  if (p.facts.pipelineTotal > 0 && next4 > 0 && p.facts.pipelineTotal >= 0.05 * next4) {
    note(
      'pipeline',
      'next_4w',
      'info',
      `Draft and submitted invoices worth ${money(ccy, p.facts.pipelineTotal.toFixed(2))} are in the pipeline; the forecast counts them probability-weighted.`,
    );
  }
  const open = p.facts.openReceivables;
  const openTotal = open.reduce((a, r) => a + r.amountDue, 0);
  receivablesNote(p, ccy, openTotal, note);
  concentrationNote(p, ccy, openTotal, note);

  if (notes.length === 0) {
    return fallbackNotes(
      { currency: ccy, openReceivables: open.map((r) => ({ amountDue: r.amountDue, overdue: r.due < p.asOf })) },
      payload,
    );
  }
  return rankNotes(notes);
}

/** Warnings first, then by kind (KIND_ORDER) and window; at most MAX_NOTES. */
export function rankNotes(notes: readonly AgentNote[]): AgentNote[] {
  return [...notes]
    .sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'warn' ? -1 : 1) || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.window < b.window ? -1 : a.window > b.window ? 1 : 0))
    .slice(0, MAX_NOTES);
}

