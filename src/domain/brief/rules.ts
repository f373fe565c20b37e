/**
 * The daily brief's free tier (docs/brief.md): deterministic rules over the
 * facts the job gathers (the latest BASE forecast, overdue receivables, the
 * insight engine's notes). Pure: the same facts give the same brief.
 */
import { dec, type Dec } from '../money.js';
import { money } from '../insights/format.js';
import { TIGHT_WEEKS_OF_OUTFLOWS } from '../insights/engine.js';
import type { AgentNote } from '../forecast/types.js';
import { type BriefRef, type BriefSection, type DailyBriefPayload, HEADLINE_MAX } from './types.js';

export interface BriefCategory {
  key: string;
  name: string;
  sensitive: boolean;
  /** 13-week totals (decimal strings, base currency). */
  inflow: string;
  outflow: string;
}

export interface BriefWeek {
  /** 1-indexed in the 13-week window. */
  n: number;
  weekStart: string;
  inflow: string;
  outflow: string;
  net: string;
  closing: string;
  /** The lower end of closing cash's 80% band (P10; engine version 3 snapshots on): the week as 1 future in 10 has it. */
  closingP10?: string;
}

export interface BriefDebtor {
  key: string;
  name: string;
  sensitive: boolean;
  amount: string;
  invoices: number;
  oldestDueDate: string;
  daysOverdue: number;
  /** How much collecting its open invoices on their due dates lifts the lowest forecast week (the collections ranking); absent when unknown. */
  lift?: string;
}

export interface BriefCollect {
  key: string;
  name: string;
  sensitive: boolean;
  number: string | null;
  amount: string;
  dueDate: string | null;
  daysOverdue: number;
  /** How much the lowest closing cash rises (positive). */
  lift: string;
}

export interface BriefFacts {
  orgName: string;
  currency: string;
  asOfDate: string;
  forecast: {
    startingCash: string;
    endingCash: string;
    minClosingCash: string;
    /** 1-indexed week of the lowest closing cash. */
    minWeek: number;
    weeks: BriefWeek[];
    /** Categories (accounts) by size, at most 8. */
    categories: BriefCategory[];
    /** The chance of running short in the 13 weeks (engine version 3 snapshots on): the threshold, the probability, the likeliest first week (1-indexed). */
    shortfall?: {
      threshold: string;
      probability: number;
      firstWeek: number | null;
      /** The cash that keeps 9 futures in 10 at or above the threshold in every week (session 23 snapshots on: the forecast's shortfall.cushion90). */
      cushion90?: string;
    };
  } | null;
  /** The largest overdue customer balances, at most 5. */
  overdue: BriefDebtor[];
  /**
   * The first of the collections ranking (GET /collections): the open invoice
   * whose collection on its due date lifts the lowest forecast week most;
   * absent when none lifts it. Recommended when no customer is overdue.
   */
  collect?: BriefCollect;
  overdueTotal: string;
  overdueCustomers: number;
  notes: AgentNote[];
}

/**
 * Weeks of outflows the forecast's low point covers, when it is a tight week:
 * under TIGHT_WEEKS_OF_OUTFLOWS of the window's average weekly outflows (the
 * same rule as the forecast's note) and below today's cash; else null.
 */
export function tightCover(fc: NonNullable<BriefFacts['forecast']>): Dec | null {
  if (!fc.weeks.length) return null;
  const weekly = fc.weeks.reduce((a, w) => a.plus(dec(w.outflow).abs()), dec(0)).div(fc.weeks.length);
  const min = dec(fc.minClosingCash);
  if (!weekly.gt(0) || min.isNeg() || !min.lt(dec(fc.startingCash))) return null;
  const cover = min.div(weekly);
  return cover.lt(TIGHT_WEEKS_OF_OUTFLOWS) ? cover : null;
}

/** A name as it may appear in a headline or body: no markdown or markup characters. */
export function cleanName(name: string): string {
  const c = name.replace(/[\r\n\t]+/g, ' ').replace(/[*_`#<>[\]]/g, '').replace(/\s+/g, ' ').trim();
  return c || 'Unnamed';
}

/** At most HEADLINE_MAX characters (an ellipsis marks a cut). */
export function fitHeadline(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= HEADLINE_MAX ? one : `${one.slice(0, HEADLINE_MAX - 1).trimEnd()}…`;
}

const section = (headline: string, bodyMarkdown: string, refs: BriefRef[]): BriefSection => ({
  headline: fitHeadline(headline),
  bodyMarkdown,
  refs,
});

/** Formats an amount in the brief's currency. */
type Money = (v: string) => string;
type Forecast = NonNullable<BriefFacts['forecast']>;

/** The main driver with a forecast: the category moving the most cash over the 13 weeks, and the biggest weekly swing. */
function forecastDriver(fc: Forecast, m: Money): BriefSection {
  const net = dec(fc.endingCash).minus(fc.startingCash).toString();
  const driver = [...fc.categories].sort((a, b) => dec(b.inflow).abs().plus(dec(b.outflow).abs()).cmp(dec(a.inflow).abs().plus(dec(a.outflow).abs())))[0];
  const busiest = [...fc.weeks].sort((a, b) => dec(b.net).abs().cmp(dec(a.net).abs()) || a.n - b.n)[0];
  const refs: BriefRef[] = [];
  let headline: string;
  let detail: string;
  if (driver) {
    const name = cleanName(driver.name);
    const inflowLed = dec(driver.inflow).abs().gte(dec(driver.outflow).abs());
    headline = inflowLed ? `${name} brings in ${m(driver.inflow)} over the next 13 weeks` : `${name} is the largest outflow: ${m(driver.outflow)} in 13 weeks`;
    detail = ` **${name}** is the biggest mover: ${inflowLed ? `${m(driver.inflow)} in` : `${m(driver.outflow)} out`}.`;
    refs.push({ kind: 'category', key: driver.key, displayName: name });
  } else {
    headline = `Cash moves from ${m(fc.startingCash)} to ${m(fc.endingCash)} over 13 weeks`;
    detail = '';
  }
  if (busiest) refs.push({ kind: 'week', weekNumber: busiest.n });
  return section(
    headline,
    `Cash goes from **${m(fc.startingCash)}** today to **${m(fc.endingCash)}** by week 13 (net *${m(net)}*).${detail}` +
      (busiest ? ` The biggest swing is week ${busiest.n} (from ${busiest.weekStart}): net *${m(busiest.net)}*.` : ''),
    refs,
  );
}

/** The main driver: the forecast's, else a note that there is no forecast yet. */
function mainDriverSection(f: BriefFacts, m: Money): BriefSection {
  if (f.forecast) return forecastDriver(f.forecast, m);
  const note = f.notes[0];
  return section(
    'No cash forecast yet',
    note ? `The 13-week forecast has not been computed yet. ${note.text.replace(/[`<>[\]#]/g, '')}` : 'The 13-week forecast has not been computed yet; the next nightly run will produce one.',
    [],
  );
}

/** What the brief measures a shortfall against: 'zero', or 'the AUD 5,000 buffer'. */
const belowWords = (s: { threshold: string }, m: Money) => (s.threshold === '0' ? 'zero' : `the ${m(s.threshold)} buffer`);

/** "There is a **23%** chance ..." when the forecast states its shortfall, else ''. */
function shortfallSentence(fc: NonNullable<BriefFacts['forecast']>, m: Money): string {
  const s = fc.shortfall;
  if (!s) return '';
  const below = belowWords(s, m);
  const when = s.firstWeek !== null ? `, most likely first in week ${s.firstWeek}` : '';
  return ` There is a **${Math.round(s.probability * 100)}%** chance cash goes below ${below} in the next 13 weeks${when}.`;
}

/** A shortfall this likely is the risk signal even when the expected low point stays above zero. */
const SHORTFALL_SIGNAL = 0.2;

/** The risk signal: negative cash first, then a tight week, then a likely shortfall, then overdue receivables, then the low point; each states the chance of running short when the forecast has it. */
function riskSignalSection(f: BriefFacts, m: Money): BriefSection {
  const fc = f.forecast;
  const top = f.overdue[0];
  if (fc && dec(fc.minClosingCash).isNeg()) {
    return section(
      `Cash falls below zero in week ${fc.minWeek} (${m(fc.minClosingCash)})`,
      `On the current forecast the balance reaches **${m(fc.minClosingCash)}** in week ${fc.minWeek}.${shortfallSentence(fc, m)} *Act before then.*`,
      [{ kind: 'week', weekNumber: fc.minWeek }],
    );
  }
  if (fc && tightCover(fc) !== null) {
    const cover = tightCover(fc)!;
    return section(
      `Cash is tight in week ${fc.minWeek} (${m(fc.minClosingCash)})`,
      `The forecast's low point is **${m(fc.minClosingCash)}** in week ${fc.minWeek}, about ${cover.toFixed(1)} weeks of outflows, down from ${m(fc.startingCash)} today.${shortfallSentence(fc, m)} *Plan the bills and collections around it.*`,
      [{ kind: 'week', weekNumber: fc.minWeek }],
    );
  }
  if (fc?.shortfall && fc.shortfall.probability >= SHORTFALL_SIGNAL) {
    const week = fc.shortfall.firstWeek ?? fc.minWeek;
    return section(
      `A ${Math.round(fc.shortfall.probability * 100)}% chance of running short by week ${week}`,
      `The expected low point is **${m(fc.minClosingCash)}** in week ${fc.minWeek}, but the forecast's range is wide.${shortfallSentence(fc, m)} *Keep a buffer or bring collections forward.*`,
      [{ kind: 'week', weekNumber: week }],
    );
  }
  if (top) {
    const name = cleanName(top.name);
    return section(
      `${name} has ${m(top.amount)} overdue`,
      `**${name}** owes **${m(top.amount)}** on ${top.invoices} overdue invoice${top.invoices === 1 ? '' : 's'}, the oldest due ${top.oldestDueDate} (*${top.daysOverdue} days late*). ` +
        `Overdue receivables total **${m(f.overdueTotal)}** across ${f.overdueCustomers} customer${f.overdueCustomers === 1 ? '' : 's'}.`,
      f.overdue.slice(0, 3).map((d) => ({ kind: 'customer' as const, key: d.key, displayName: cleanName(d.name) })),
    );
  }
  if (fc) {
    return section(
      `Lowest cash point: ${m(fc.minClosingCash)} in week ${fc.minWeek}`,
      `No receivables are overdue. The forecast's low point is **${m(fc.minClosingCash)}** in week ${fc.minWeek}.${shortfallSentence(fc, m)}`,
      [{ kind: 'week', weekNumber: fc.minWeek }],
    );
  }
  return section('No risk signal today', 'No receivables are overdue and no forecast is available yet.', []);
}

/**
 * What a likely shortfall (SHORTFALL_SIGNAL or more) asks to have ready: the
 * most that any week's 80% band reaches below the threshold at its lower end
 * (closing P10: the week as 1 future in 10 has it) and that week, and the
 * first week whose band reaches below it (by when to have it); and, where the
 * forecast states it (`pathwise`), the cash that keeps 9 futures in 10 above
 * the threshold in every week, which is more when the futures run short in
 * different weeks (it is then the amount; by when: the first week a band
 * reaches below, else the likeliest first week of a shortfall). Null without
 * a likely shortfall or anything to line up.
 */
export function cushion(fc: NonNullable<BriefFacts['forecast']>): { amount: Dec; worstWeek: number; firstWeek: number; weekGap: Dec | null; pathwise: boolean } | null {
  const s = fc.shortfall;
  if (!s || s.probability < SHORTFALL_SIGNAL) return null;
  let weekGap: Dec | null = null;
  let worstWeek = 0;
  let firstWeek = 0;
  for (const w of fc.weeks) {
    if (w.closingP10 === undefined) continue;
    const gap = dec(s.threshold).minus(w.closingP10);
    if (!gap.gt(0)) continue;
    if (weekGap === null) firstWeek = w.n;
    if (weekGap === null || gap.gt(weekGap)) [weekGap, worstWeek] = [gap, w.n];
  }
  const pathwise = s.cushion90 !== undefined && dec(s.cushion90).gt(weekGap ?? 0);
  if (pathwise) {
    const by = firstWeek || (s.firstWeek ?? fc.minWeek);
    return { amount: dec(s.cushion90!), worstWeek: worstWeek || by, firstWeek: by, weekGap, pathwise };
  }
  return weekGap === null ? null : { amount: weekGap, worstWeek, firstWeek, weekGap, pathwise };
}

/**
 * The recommended action: when a shortfall is likely and chasing or
 * collecting would lift the lowest week by less than the cushion it asks
 * for, line that cushion up (and chase the largest overdue customer too);
 * else chase the largest overdue customer (with
 * the lift of collecting its invoices on time, from the collections
 * ranking), else collect the invoice at the top of the collections ranking,
 * else cover a shortfall, else prepare for the heaviest week.
 */
function recommendedActionSection(f: BriefFacts, m: Money): BriefSection {
  const fc = f.forecast;
  const top = f.overdue[0];
  const need = fc ? cushion(fc) : null;
  const lifts = [top?.lift, f.collect?.lift].filter((x): x is string => x !== undefined).map((x) => dec(x));
  if (fc && need && lifts.every((l) => l.lt(need.amount))) {
    const s = fc.shortfall!;
    const below = belowWords(s, m);
    const amount = m(need.amount.toFixed(2));
    const most = lifts.reduce((a, b) => (b.gt(a) ? b : a), dec(0));
    // The largest overdue customer is still worth a call: named after the cushion.
    const chase = top ? ` Chase **${cleanName(top.name)}** for its ${m(top.amount)} overdue too.` : '';
    const by = need.worstWeek === need.firstWeek ? `in week ${need.worstWeek}` : `by week ${need.worstWeek}`;
    const why = !need.pathwise
      ? `in 1 future in 10 it is **${amount}** short of it ${by} (the lower end of the forecast's 80% band)`
      : `**${amount}** lined up before week ${need.firstWeek} keeps it above in 9 futures of 10 (each future's lowest week` +
        (need.weekGap ? `; one week at a time, the forecast's 80% band reaches ${m(need.weekGap.toFixed(2))} below it ${by})` : ')');
    return section(
      `Line up ${amount} before week ${need.firstWeek}`,
      `There is a **${Math.round(s.probability * 100)}%** chance cash goes below ${below} in the next 13 weeks; ${why}. ` +
        `*Arrange a facility or move bills* to cover that before week ${need.firstWeek}` +
        (most.gt(0) ? `; collecting on time lifts the lowest week by ${m(most.toFixed(2))} at most.` : '.') +
        chase,
      [{ kind: 'week', weekNumber: need.firstWeek }, ...(top ? [{ kind: 'customer' as const, key: top.key, displayName: cleanName(top.name) }] : [])],
    );
  }
  if (top) {
    const name = cleanName(top.name);
    const lift = fc && top.lift !== undefined && dec(top.lift).gt(0) ? top.lift : null;
    return section(
      `Chase ${name} for ${m(top.amount)} overdue`,
      `Contact **${name}** about ${top.invoices === 1 ? 'the overdue invoice' : `the ${top.invoices} overdue invoices`} (oldest due ${top.oldestDueDate}). ` +
        (lift && fc ? `*Collecting its invoices on their due dates lifts the lowest week, week ${fc.minWeek}, by ${m(lift)}.*` : '*Collecting it lifts cash today.*'),
      [{ kind: 'customer', key: top.key, displayName: name }],
    );
  }
  const c = f.collect;
  if (c && fc && dec(c.lift).gt(0)) {
    const name = cleanName(c.name);
    const what = c.number ? `invoice ${cleanName(c.number)}` : 'its invoice';
    return section(
      `Collect ${m(c.amount)} from ${name} to lift week ${fc.minWeek}`,
      `Getting **${name}** to pay ${what} (${m(c.amount)}, due ${c.dueDate ?? 'soon'}) on its due date lifts the lowest week, week ${fc.minWeek}, by **${m(c.lift)}**. *The collections list ranks the rest.*`,
      [{ kind: 'customer', key: c.key, displayName: name }, { kind: 'week', weekNumber: fc.minWeek }],
    );
  }
  if (fc && dec(fc.minClosingCash).isNeg()) {
    return section(
      `Arrange funding or defer payments before week ${fc.minWeek}`,
      `The shortfall is **${m(fc.minClosingCash)}**. *Review which bills can move* or line up funding before week ${fc.minWeek}.`,
      [{ kind: 'week', weekNumber: fc.minWeek }],
    );
  }
  if (fc && fc.weeks.length) {
    const heaviest = [...fc.weeks].sort((a, b) => dec(b.outflow).abs().cmp(dec(a.outflow).abs()) || a.n - b.n)[0]!;
    return section(
      `Prepare for ${m(heaviest.outflow)} going out in week ${heaviest.n}`,
      `Week ${heaviest.n} (from ${heaviest.weekStart}) has the largest outflow of the window: **${m(heaviest.outflow)}**. *Check the bills due then.*`,
      [{ kind: 'week', weekNumber: heaviest.n }],
    );
  }
  return section('Sync or import the ledger to get a full brief', 'With ledger data and a forecast the brief names its *drivers*, *risks* and **actions**.', []);
}

export function rulesBrief(f: BriefFacts): DailyBriefPayload {
  const m: Money = (v) => money(f.currency, v);
  return { mainDriver: mainDriverSection(f, m), riskSignal: riskSignalSection(f, m), recommendedAction: recommendedActionSection(f, m) };
}
