/**
 * Replaying a ledger at a past cut-off (docs/forecast.md#backtest): what was
 * known on the morning of day C - invoices and bills issued before C, the
 * payments and credit allocations dated before C (so an invoice paid later
 * was open then, with what was still due), bank transactions before C, bank
 * balances at the start of C rebuilt from today's book balances minus every
 * movement dated C or later - and what actually happened from C on.
 *
 * Known limits: documents voided or deleted later are left out at every
 * cut-off (the ledger keeps no date for that change); draft and submitted
 * documents keep today's status; an order now BILLED is AUTHORISED at C
 * unless a bill before C matches it.
 */
import { canonical, D, dec, type Dec } from '../domain/money.js';
import { fromDay, mondayOf, toDay } from '../domain/forecast/days.js';
import { projectForecast, WEEKS } from '../domain/forecast/project.js';
import { prepareForecast } from '../domain/forecast/engine.js';
import { simulateForecast, withLevel, type Simulation } from '../domain/forecast/simulate.js';
import { simulatedBands } from '../domain/forecast/bands.js';
import type { Figure, Quantiles } from '../domain/forecast/calibrate.js';
import type { PreparedForecast } from '../domain/forecast/prepared.js';
import type { ForecastInput, ForecastPayload, LedgerItem, Scenario } from '../domain/forecast/types.js';
import type { RawLedger } from '../store/queries/raw-ledger.js';
import { actualWeeks, movedSince, movementsOf, type ActualWeek, type Movement } from '../domain/forecast/actuals.js';

export interface ReplayIndex {
  raw: RawLedger;
  paymentsByItem: Map<string, { day: number; amount: Dec }[]>;
  /** Per item of raw.items (same order): what inputAt reads of it at every cut-off, worked out once. */
  settled: SettledItem[];
  movements: Movement[];
  /** The first day any money moved or a document was issued. */
  firstDay: number;
  /** The last day any money moved. */
  lastDay: number;
}

/**
 * An item's settlement over time: the day it counts from (issued, else due; NaN
 * without either), and its payments and allocations together in day order
 * with what is still due after each (exact decimals: the sum up to a day is
 * the same whatever the order it is added in), worked out once for every
 * cut-off: `due[n]` is the amount due (canonical text) once the first n
 * records are in, `settledUp[n]` whether that is nothing (within half a cent).
 */
interface SettledItem {
  day: number;
  days: number[];
  due: string[];
  settledUp: boolean[];
}

function settledItem(it: LedgerItem, payments: { day: number; amount: Dec }[] | undefined, allocations: { day: number; amount: Dec }[] | undefined): SettledItem {
  const issued = it.issueDate ?? it.dueDate;
  const records = [...(payments ?? []), ...(allocations ?? [])].sort((a, b) => a.day - b.day);
  const total = dec(it.total);
  const days: number[] = [];
  const due = [canonical(total)];
  const settledUp = [total.lte(0.005)];
  let sum = new D(0);
  for (const r of records) {
    sum = sum.plus(r.amount);
    days.push(r.day);
    const left = total.minus(sum);
    due.push(canonical(left));
    settledUp.push(left.lte(0.005));
  }
  return { day: issued ? toDay(issued) : NaN, days, due, settledUp };
}

export function indexLedger(raw: RawLedger): ReplayIndex {
  const paymentsByItem = new Map<string, { day: number; amount: Dec }[]>();
  for (const p of raw.payments) {
    const e = { day: toDay(p.date), amount: dec(p.amount).abs() };
    const list = paymentsByItem.get(p.itemId);
    if (list) list.push(e);
    else paymentsByItem.set(p.itemId, [e]);
  }
  const allocationsByItem = new Map<string, { day: number; amount: Dec }[]>();
  for (const a of raw.allocations) {
    if (!a.date) continue;
    const e = { day: toDay(a.date), amount: dec(a.amount).abs() };
    const list = allocationsByItem.get(a.invoiceId);
    if (list) list.push(e);
    else allocationsByItem.set(a.invoiceId, [e]);
  }
  const movements = movementsOf(raw.payments, raw.bankTxns);
  const lastDay = movements.length ? movements[movements.length - 1]!.day : -Infinity;
  let firstDay = movements[0]?.day ?? Infinity;
  for (const it of raw.items) if (it.issueDate) firstDay = Math.min(firstDay, toDay(it.issueDate));
  const settled = raw.items.map((it) => settledItem(it, paymentsByItem.get(it.id), allocationsByItem.get(it.id)));
  return { raw, paymentsByItem, settled, movements, firstDay, lastDay };
}

/** The engine's input as known on the morning of `cutoff`. */
export function inputAt(ix: ReplayIndex, cutoff: string): ForecastInput {
  const C = toDay(cutoff);
  const raw = ix.raw;
  const items: LedgerItem[] = [];
  for (const [i, it] of raw.items.entries()) {
    if (it.status === 'VOIDED' || it.status === 'DELETED') continue;
    const s = ix.settled[i]!;
    // Issued (else due) before the cut-off; an item with neither date is left out.
    if (!(s.day < C)) continue;
    if (it.status === 'DRAFT' || it.status === 'SUBMITTED') {
      items.push(it);
      continue;
    }
    // The payments and allocations dated before the cut-off: a prefix of the day-ordered records.
    let n = 0;
    while (n < s.days.length && s.days[n]! < C) n++;
    if (s.days.length === 0 && it.status === 'PAID' && it.paidDate) {
      // Settled without a payment or allocation on record (written off, offset): its paid date is all we know.
      if (toDay(it.paidDate) < C) items.push({ ...it, amountDue: '0' });
      else items.push({ ...it, status: 'AUTHORISED', paidDate: null, amountDue: it.total });
      continue;
    }
    if (s.settledUp[n]) items.push({ ...it, status: 'PAID', paidDate: n > 0 ? fromDay(s.days[n - 1]!) : it.paidDate, amountDue: '0' });
    else items.push({ ...it, status: 'AUTHORISED', paidDate: null, amountDue: s.due[n]! });
  }
  const after = movedSince(ix.movements, C);
  return {
    orgId: raw.orgId,
    asOf: cutoff,
    currency: raw.currency,
    bankAccounts: raw.bankAccounts.map((b) => ({
      id: b.id,
      name: b.name,
      currency: b.currency,
      reconciledBalance: canonical(dec(b.book).minus(after.get(b.id) ?? 0)),
      statementBalance: null,
      unreconciledNet: '0',
    })),
    override: null,
    items,
    bankTxns: raw.bankTxns.filter((t) => !t.transfer && toDay(t.date) < C),
    purchaseOrders: raw.purchaseOrders
      .filter((p) => p.issueDate !== null && toDay(p.issueDate) < C && p.status !== 'DELETED')
      .map((p) => (p.status === 'BILLED' ? { ...p, status: 'AUTHORISED' } : p)),
    manualItems: [],
    accounts: raw.accounts,
    liabilityLines: raw.liabilityLines.filter((l) => toDay(l.date) < C),
  };
}

/** What actually moved in each forecast week from `cutoff` (week 1 from the cut-off to its Sunday). */
export function actualsFrom(ix: ReplayIndex, cutoff: string, opening: Dec): ActualWeek[] {
  return actualWeeks(ix.movements, cutoff, opening, WEEKS);
}

/** The horizon's last day for a cut-off. */
export function horizonEnd(cutoff: string): number {
  return mondayOf(toDay(cutoff)) + 7 * WEEKS - 1;
}


/** What each measured movement is in the forecast: receipts are its inflow, payments its outflow. */
export const FIGURE_OF = { receipts: 'inflow', payments: 'outflow', closing: 'closing' } as const satisfies Record<keyof ActualWeek, Figure>;
export type Measure = keyof typeof FIGURE_OF;
export const MEASURES = Object.keys(FIGURE_OF) as Measure[];

/** One replayed cut-off: what was known, the point forecast and its simulated bands, and what then happened. */
export interface ReplayedCutoff {
  input: ForecastInput;
  prepared: PreparedForecast;
  payload: ForecastPayload;
  opening: Dec;
  actual: ActualWeek[];
  sim: Simulation;
  /** The simulated (uncalibrated) quantiles of each week and figure. */
  raw: Record<Figure, Quantiles>[];
  /** The same futures in a common level (withLevel), else null; and their quantiles: the prior of the bands. */
  levelSim: Simulation | null;
  level: Record<Figure, Quantiles>[] | null;
  /** The day the outcome of week k is known: the day after it ends. */
  known(k: number): number;
}

/** The forecast of `scenario` as it would have been made on the morning of `cutoff`, with its futures, and the weeks that followed. */
export function forecastAt(ix: ReplayIndex, cutoff: string, scenario: Scenario): ReplayedCutoff {
  const input = inputAt(ix, cutoff);
  const prepared = prepareForecast(input);
  const payload = projectForecast(prepared, scenario, new Date(0));
  const opening = dec(payload.startingCash);
  const sim = simulateForecast(prepared, scenario);
  const levelSim = withLevel(prepared, scenario, sim);
  return {
    levelSim,
    level: levelSim ? simulatedBands(levelSim) : null,
    input,
    prepared,
    payload,
    opening,
    actual: actualsFrom(ix, cutoff, opening),
    sim,
    raw: simulatedBands(sim),
    known: (k) => prepared.ends[k]! + 1,
  };
}
