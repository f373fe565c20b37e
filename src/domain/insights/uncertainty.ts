/**
 * Notes about the forecast's uncertainty (docs/forecast.md#bands), added once
 * the bands are known (forecast/engine.ts withBands):
 * - the shortfall (trend, this_quarter): "There is a 23% chance cash goes
 *   below zero in the next 13 weeks, most likely first in the week of ...",
 *   from 5%; warn from 20%. Joined to the low-point note when there is one
 *   (one note per kind and window).
 * - what drives the width of the band (ar, this_quarter): in the week that
 *   matters (the likeliest first week of a shortfall, else the low point), the
 *   source that adds the most to the uncertainty of closing cash, when it is
 *   at least 40% of it and on the receipts side: "Most of the uncertainty
 *   about cash in the week of ... is 3 open invoices of Acme Ltd, who has
 *   paid between 20 and 60 days after the due date". The customer is named
 *   when the input has its name (the note's `contact` says which, so that a
 *   read without READ_SENSITIVE rewrites a sensitive one: redactNotes in
 *   domain/sensitive.ts); "one customer" otherwise.
 * - when a shortfall is stated and no one source is the driver, where that
 *   week's uncertainty comes from, by kind (joined to the shortfall's note):
 *   "The uncertainty about cash in the week of 18 January 2027 is spread over
 *   many sources: the next orders of 40 repeat customers (46%), open invoices
 *   of 21 customers (31%), bills and purchase orders of 9 suppliers (15%)."
 */
import type { AgentNote, ForecastPayload } from '../forecast/types.js';
import type { PreparedForecast } from '../forecast/prepared.js';
import type { Simulation } from '../forecast/simulate.js';
import { customerDist } from '../forecast/project.js';
import { delayQuantiles } from '../forecast/behaviour.js';
import { insightId, rankNotes } from './engine.js';
import { longDate, pct, shortfallBelow } from './format.js';

/** A shortfall at least this likely gets a note; from WARN_SHORTFALL it is a warning. */
export const NOTE_SHORTFALL = 0.05;
const WARN_SHORTFALL = 0.2;
/** A source this large a share of a week's uncertainty is named as its driver. */
const DRIVER_SHARE = 0.4;

export function uncertaintyNotes(p: PreparedForecast, payload: ForecastPayload, sim: Simulation): AgentNote[] {
  const notes = [...payload.notesForAgent];
  const driver = driverNote(p, payload, sim);
  const stated = shortfallText(payload);
  const spread = stated && !driver ? spreadText(payload, sim) : null;
  const shortfall = stated && spread ? `${stated} ${spread}` : stated;
  if (shortfall) {
    const severity = payload.shortfall!.probability >= WARN_SHORTFALL ? 'warn' : 'info';
    const i = notes.findIndex((n) => n.kind === 'trend' && n.window === 'this_quarter');
    if (i >= 0) notes[i] = { ...notes[i]!, text: `${notes[i]!.text} ${shortfall}`, severity: notes[i]!.severity === 'warn' ? 'warn' : severity };
    else notes.push({ kind: 'trend', window: 'this_quarter', severity, text: shortfall, sourceInsightId: insightId('trend', 'this_quarter', payload.asOfDate) });
  }
  if (driver && !notes.some((n) => n.kind === 'ar' && n.window === 'this_quarter')) {
    notes.push({ kind: 'ar', window: 'this_quarter', severity: 'info', sourceInsightId: insightId('ar', 'this_quarter', payload.asOfDate), ...driver });
  }
  return rankNotes(notes);
}

function shortfallText(payload: ForecastPayload): string | null {
  const s = payload.shortfall;
  if (!s || s.probability < NOTE_SHORTFALL) return null;
  const below = shortfallBelow(payload.currency, s.threshold);
  const week = s.firstLikelyWeekIndex !== null ? payload.weeks[s.firstLikelyWeekIndex] : undefined;
  return `There is a ${pct(s.probability)} chance cash goes below ${below} in the next 13 weeks${week ? `, most likely first in the week of ${longDate(week.weekStart)}` : ''}.`;
}

/** The week whose uncertainty matters (the likeliest first week of a shortfall, else the low point) and its sources' variances. */
function weekThatMatters(payload: ForecastPayload, sim: Simulation): { week: ForecastPayload['weeks'][number]; variance: Map<string, number> } | null {
  const first = payload.shortfall?.firstLikelyWeekIndex;
  const k = first !== null && first !== undefined ? first : payload.minClosingCashWeekIndex;
  const week = payload.weeks[k];
  const variance = sim.variance[k];
  return week && variance ? { week, variance } : null;
}

function driverNote(p: PreparedForecast, payload: ForecastPayload, sim: Simulation): Pick<AgentNote, 'text' | 'contact'> | null {
  const matters = weekThatMatters(payload, sim);
  if (!matters) return null;
  const { week, variance } = matters;
  let total = 0;
  let top: [string, number] | null = null;
  for (const e of [...variance].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    total += e[1];
    if (!top || e[1] > top[1]) top = e;
  }
  if (!top || !(total > 0) || top[1] / total < DRIVER_SHARE) return null;
  const share = top[1] / total;
  const lead = `${share >= 0.5 ? 'Most' : `About ${pct(share)}`} of the uncertainty about cash in the week of ${longDate(week.weekStart)}`;
  const [kind, ...rest] = top[0].split(':');
  const id = rest.join(':');
  if (kind === 'customer') {
    const open = p.openItems.filter((it) => it.ar && it.src.contactId === (id || null) && ['AUTHORISED', 'DRAFT', 'SUBMITTED'].includes(it.src.status)).length;
    const [lo, hi] = delayQuantiles(customerDist(p, id || null), [0.1, 0.9]) as [number, number];
    const name = id ? p.input.contactNames?.[id]?.trim() : undefined;
    const who = name ? `${name}, who` : 'one customer, who';
    const habit = hi <= 0 ? 'usually pays by the due date' : `has paid between ${describeDelay(lo)} and ${describeDelay(hi)}`;
    const text = `${lead} is ${open} open invoice${open === 1 ? '' : 's'} of ${who} ${habit}.`;
    return name ? { text, contact: { id, name } } : { text };
  }
  if (kind === 'series' && id === 'predicted:new-customers') return { text: `${lead} is sales to new customers, which vary from week to week.` };
  if (kind === 'series' && id.startsWith('predicted:')) return { text: `${lead} is the next purchases of one repeat customer, predicted from its ordering habit.` };
  return null;
}

/** The kinds of source a week's uncertainty is told by, in the order a tie is told in. */
const SOURCE_KINDS = [
  { of: (key: string) => key === 'series:predicted:new-customers', words: () => 'sales to new customers' },
  { of: (key: string) => key.startsWith('series:predicted:'), words: (n: number) => `the next orders of ${n} repeat customer${n === 1 ? '' : 's'}` },
  { of: (key: string) => key.startsWith('customer:'), words: (n: number) => `open invoices of ${n} customer${n === 1 ? '' : 's'}` },
  { of: (key: string) => key.startsWith('supplier:'), words: (n: number) => `bills and purchase orders of ${n} supplier${n === 1 ? '' : 's'}` },
  { of: (key: string) => key.startsWith('series:'), words: (n: number) => `${n} recurring receipt${n === 1 ? '' : 's'} and payment${n === 1 ? '' : 's'} that vary` },
];
/** A kind of source this large a share of the week's uncertainty is told; at most SPREAD_KINDS of them. */
const SPREAD_SHARE = 0.1;
const SPREAD_KINDS = 3;

/** Where the uncertainty of the week that matters comes from, by kind of source, when no one source drives it: null when nothing adds to it. */
function spreadText(payload: ForecastPayload, sim: Simulation): string | null {
  const matters = weekThatMatters(payload, sim);
  if (!matters) return null;
  const { week, variance } = matters;
  const kinds = SOURCE_KINDS.map(() => ({ v: 0, n: 0 }));
  let total = 0;
  for (const [key, v] of variance) {
    total += v;
    const i = SOURCE_KINDS.findIndex((x) => x.of(key));
    if (i < 0) continue;
    kinds[i]!.v += v;
    kinds[i]!.n++;
  }
  if (!(total > 0)) return null;
  const told = kinds
    .map((x, i) => ({ ...x, i }))
    .filter((x) => x.v / total >= SPREAD_SHARE)
    .sort((a, b) => b.v - a.v || a.i - b.i)
    .slice(0, SPREAD_KINDS)
    .map((x) => `${SOURCE_KINDS[x.i]!.words(x.n)} (${pct(x.v / total)})`);
  return told.length ? `The uncertainty about cash in the week of ${longDate(week.weekStart)} is spread over many sources: ${told.join(', ')}.` : null;
}

const describeDelay = (days: number) => (days < 0 ? `${-days} days before` : `${days} days after the due date`);
