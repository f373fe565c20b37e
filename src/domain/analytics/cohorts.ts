/**
 * Acquisition cohorts (pure): the customers first seen in each month, what
 * they bought in each later month, and the KPIs of the cohorts summary
 * (spec 2.9). docs/analytics.md states the rules.
 */
import { canonical, D } from '../money.js';
import { addMonths, monthOf, monthsBetween } from '../fiscal.js';
import type { ChurnState } from './customer.js';
import { round } from './stats.js';

/** Most acquisition months kept (spec 8), and most offset columns. */
export const COHORT_MONTHS = 24;
export const MAX_PERIODS = 24;
export const DEFAULT_PERIODS = 12;
/** The months of each KPI half (the latest 6 months against the prior 6). */
export const KPI_HALF_MONTHS = 6;
/** The offset whose retention ranks cohorts (M3: about 90 days after acquisition). */
export const RETENTION_OFFSET = 3;
export const TOP_COHORTS = 3;

/** One purchase: a sales invoice (AUTHORISED or PAID) of a customer. */
export interface Purchase {
  contactId: string;
  /** Issue date (YYYY-MM-DD). */
  date: string;
  /** Ex-tax amount in base currency. */
  amount: string;
}

export interface CohortRow {
  /** Acquisition month (YYYY-MM). */
  cohort: string;
  customers: number;
  /** Customers of the cohort whose churn state is Active at asOfDate. */
  activeNow: number;
  /** Ex-tax revenue of the cohort's customers from acquisition to asOfDate. */
  revenue: string;
  /** Per offset 0..23: customers who bought in month cohort+k; null when that month is after asOfDate's. */
  active: (number | null)[];
  /** Per offset 0..23: their ex-tax revenue that month (decimal string); null when not yet elapsed. */
  revenueByOffset: (string | null)[];
}

export interface CohortKpi {
  value: number;
  delta: number | null;
  deltaKind: 'pct' | 'rate';
}

export interface CohortKpis {
  newCustomers: CohortKpi;
  repeatOrderRate: CohortKpi;
  avgRevenuePerCustomer: CohortKpi;
  retention90d: CohortKpi;
}

export interface CohortTopEntry {
  acquisitionMonth: string;
  cohortSize: number;
  retention3: number;
}

export interface CohortAnalysis {
  asOfDate: string;
  window: { from: string; to: string };
  cohorts: CohortRow[];
  kpis: CohortKpis;
  topCohorts: CohortTopEntry[];
}

interface CustomerHistory {
  first: string;
  days: Set<string>;
  /** month -> ex-tax amount */
  byMonth: Map<string, InstanceType<typeof D>>;
  total: InstanceType<typeof D>;
}

/** Each customer's purchase history up to `asOfDate`, by contact id. */
function histories(purchases: readonly Purchase[], asOfDate: string): Map<string, CustomerHistory> {
  const out = new Map<string, CustomerHistory>();
  for (const p of purchases) {
    if (p.date > asOfDate) continue;
    let h = out.get(p.contactId);
    if (!h) {
      h = { first: p.date, days: new Set(), byMonth: new Map(), total: new D(0) };
      out.set(p.contactId, h);
    }
    if (p.date < h.first) h.first = p.date;
    h.days.add(p.date);
    const m = monthOf(p.date);
    h.byMonth.set(m, (h.byMonth.get(m) ?? new D(0)).plus(p.amount));
    h.total = h.total.plus(p.amount);
  }
  return out;
}

/** Relative change (0.15 = +15%), 4 places; null without a prior base. */
const rateDelta = (cur: number, prior: number, base: number): number | null => (base > 0 && prior !== 0 ? round((cur - prior) / prior, 4) : null);
/** Change in fraction units (0.05 = +5 percentage points), 4 places; null without a prior base. */
const pctDelta = (cur: number, prior: number, base: number): number | null => (base > 0 ? round(cur - prior, 4) : null);

/** The customers acquired in each month from `firstMonth` on (acquisition month -> contact ids). */
function cohortMembers(hist: ReadonlyMap<string, CustomerHistory>, firstMonth: string): Map<string, string[]> {
  const members = new Map<string, string[]>();
  for (const [id, h] of hist) {
    const m = monthOf(h.first);
    if (m < firstMonth) continue;
    let list = members.get(m);
    if (!list) members.set(m, (list = []));
    list.push(id);
  }
  return members;
}

/** One cohort's row: its customers active and their revenue at each elapsed offset, and the totals. */
function cohortRow(
  cohort: string,
  ids: readonly string[],
  hist: ReadonlyMap<string, CustomerHistory>,
  asOfMonth: string,
  churn: ReadonlyMap<string, ChurnState | null>,
): CohortRow {
  const elapsed = monthsBetween(cohort, asOfMonth); // last elapsed offset
  const active: (number | null)[] = [];
  const revenueByOffset: (string | null)[] = [];
  let revenue = new D(0);
  for (let k = 0; k < MAX_PERIODS; k++) {
    if (k > elapsed) {
      active.push(null);
      revenueByOffset.push(null);
      continue;
    }
    const m = addMonths(cohort, k);
    let n = 0;
    let r = new D(0);
    for (const id of ids) {
      const amt = hist.get(id)!.byMonth.get(m);
      if (amt !== undefined) {
        n++;
        r = r.plus(amt);
      }
    }
    active.push(n);
    revenueByOffset.push(canonical(r));
    revenue = revenue.plus(r);
  }
  return {
    cohort,
    customers: ids.length,
    activeNow: ids.filter((id) => churn.get(id) === 'Active').length,
    revenue: canonical(revenue),
    active,
    revenueByOffset,
  };
}

/** The KPI inputs of one half: the acquisition months asOfMonth+from..asOfMonth+to. */
interface HalfStats {
  n: number;
  repeatRate: number;
  avgRevenue: number;
  eligible: number;
  retention: number;
}

/** What the KPI halves are computed from. */
interface KpiBasis {
  asOfMonth: string;
  members: ReadonlyMap<string, string[]>;
  hist: ReadonlyMap<string, CustomerHistory>;
  cohorts: readonly CohortRow[];
}

/** New customers, repeat rate, average revenue and M3 retention of the cohorts acquired in asOfMonth+from..asOfMonth+to. */
function halfStats({ asOfMonth, members, hist, cohorts }: KpiBasis, from: number, to: number): HalfStats {
  const lo = addMonths(asOfMonth, from);
  const hi = addMonths(asOfMonth, to);
  const ids: string[] = [];
  for (const [m, list] of members) if (m >= lo && m <= hi) ids.push(...list);
  const n = ids.length;
  const repeat = ids.filter((id) => hist.get(id)!.days.size >= 2).length;
  const revenue = ids.reduce((s, id) => s.plus(hist.get(id)!.total), new D(0));
  let eligible = 0;
  let retained = 0;
  for (const c of cohorts) {
    if (c.cohort < lo || c.cohort > hi) continue;
    const a = c.active[RETENTION_OFFSET];
    if (a === null || a === undefined) continue;
    eligible += c.customers;
    retained += a;
  }
  return {
    n,
    repeatRate: n ? round(repeat / n, 4) : 0,
    avgRevenue: n ? round(revenue.div(n).toNumber(), 2) : 0,
    eligible,
    retention: eligible ? round(retained / eligible, 4) : 0,
  };
}

/** The KPIs: the latest KPI_HALF_MONTHS acquisition months against the ones before. */
function cohortKpis(basis: KpiBasis): CohortKpis {
  const cur = halfStats(basis, -(KPI_HALF_MONTHS - 1), 0);
  const prior = halfStats(basis, -(2 * KPI_HALF_MONTHS - 1), -KPI_HALF_MONTHS);
  return {
    newCustomers: { value: cur.n, delta: rateDelta(cur.n, prior.n, prior.n), deltaKind: 'rate' },
    repeatOrderRate: { value: cur.repeatRate, delta: pctDelta(cur.repeatRate, prior.repeatRate, prior.n), deltaKind: 'pct' },
    avgRevenuePerCustomer: { value: cur.avgRevenue, delta: rateDelta(cur.avgRevenue, prior.avgRevenue, prior.n), deltaKind: 'rate' },
    retention90d: { value: cur.retention, delta: pctDelta(cur.retention, prior.retention, prior.eligible), deltaKind: 'pct' },
  };
}

/** The TOP_COHORTS cohorts with the best M3 retention (larger, then earlier, first on ties). */
function topCohortsOf(cohorts: readonly CohortRow[]): CohortTopEntry[] {
  return cohorts
    .filter((c) => c.active[RETENTION_OFFSET] !== null)
    .map((c) => ({ acquisitionMonth: c.cohort, cohortSize: c.customers, retention3: round(c.active[RETENTION_OFFSET]! / c.customers, 4) }))
    .sort((a, b) => b.retention3 - a.retention3 || b.cohortSize - a.cohortSize || (a.acquisitionMonth < b.acquisitionMonth ? -1 : 1))
    .slice(0, TOP_COHORTS);
}

/**
 * The cohort analysis at `asOfDate`:
 * - a customer's acquisition month is the month of their first purchase;
 * - cohorts are the acquisition months among the 24 months ending with
 *   asOfDate's month that acquired at least one customer;
 * - offset k of a cohort is the calendar month cohort+k; it has elapsed when
 *   it is not after asOfDate's month (the current month counts, so far);
 * - a customer is active at offset k when they bought that month;
 * - KPIs compare the latest 6 acquisition months (asOfDate's month and the
 *   5 before) with the 6 before those.
 */
export function analyseCohorts(
  purchases: readonly Purchase[],
  asOfDate: string,
  churn: ReadonlyMap<string, ChurnState | null> = new Map(),
): CohortAnalysis {
  const hist = histories(purchases, asOfDate);
  const asOfMonth = monthOf(asOfDate);
  const members = cohortMembers(hist, addMonths(asOfMonth, -(COHORT_MONTHS - 1)));
  const months = [...members.keys()].sort();
  const cohorts = months.map((cohort) => cohortRow(cohort, members.get(cohort)!, hist, asOfMonth, churn));
  return {
    asOfDate,
    window: months.length ? { from: months[0]!, to: months[months.length - 1]! } : { from: '', to: '' },
    cohorts,
    kpis: cohortKpis({ asOfMonth, members, hist, cohorts }),
    topCohorts: topCohortsOf(cohorts),
  };
}

export const RETENTION_METRICS = ['retention', 'customers', 'revenue'] as const;
export type RetentionMetric = (typeof RETENTION_METRICS)[number];

/** A cohort row of the retention matrix for one metric and `periods` offsets (M0..M{periods-1}). */
export function retentionValues(row: CohortRow, metric: RetentionMetric, periods: number): (number | string | null)[] {
  const out: (number | string | null)[] = [];
  for (let k = 0; k < periods; k++) {
    const a = row.active[k] ?? null;
    if (a === null) {
      out.push(null);
      continue;
    }
    if (metric === 'customers') out.push(a);
    else if (metric === 'revenue') out.push(row.revenueByOffset[k] ?? '0');
    else out.push(row.customers ? round(a / row.customers, 4) : 0);
  }
  return out;
}

export const periodLabels = (periods: number): string[] => Array.from({ length: periods }, (_, k) => `M${k}`);

/** Threshold of a change worth a note: new customers +/-20%, retention down 10 points. */
export const NOTE_NEW_CUSTOMERS_CHANGE = 0.2;
export const NOTE_RETENTION_DROP = 0.1;

export interface CohortNote {
  kind: 'trend';
  window: 'this_quarter';
  severity: 'info' | 'warn';
  text: string;
}

const pct = (x: number) => `${Math.round(Math.abs(x) * 100)}%`;

/** Deterministic notes for the agent about the KPIs' trends (none when nothing moved much). */
export function cohortNotes(k: CohortKpis): CohortNote[] {
  const notes: CohortNote[] = [];
  const d = k.newCustomers.delta;
  if (d !== null && d <= -NOTE_NEW_CUSTOMERS_CHANGE) {
    notes.push({ kind: 'trend', window: 'this_quarter', severity: 'warn', text: `New customers in the last 6 months are down ${pct(d)} on the 6 months before (${k.newCustomers.value}).` });
  } else if (d !== null && d >= NOTE_NEW_CUSTOMERS_CHANGE) {
    notes.push({ kind: 'trend', window: 'this_quarter', severity: 'info', text: `New customers in the last 6 months are up ${pct(d)} on the 6 months before (${k.newCustomers.value}).` });
  }
  const r = k.retention90d.delta;
  if (r !== null && r <= -NOTE_RETENTION_DROP) {
    notes.push({
      kind: 'trend',
      window: 'this_quarter',
      severity: 'warn',
      text: `Third-month retention of recent cohorts fell ${Math.round(Math.abs(r) * 100)} points to ${pct(k.retention90d.value)}.`,
    });
  }
  return notes;
}
