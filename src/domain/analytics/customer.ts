/**
 * Per-customer analytics (pure): revenue, payment delay, purchase cadence,
 * churn state, lifetime values, ABC tiers, available credit.
 * docs/analytics.md states every rule and threshold.
 */
import { addDays } from '../calendar.js';
import { canonical, D, dec, type Dec } from '../money.js';
import { clamp, dayDiff as daysBetween, mad, median, round } from './stats.js';

export type Cadence = 'WEEKLY' | 'FORTNIGHTLY' | 'MONTHLY' | 'QUARTERLY' | 'ANNUAL' | 'NONE';
export type ChurnState = 'Active' | 'At-risk' | 'Churned';
export type AbcClass = 'A' | 'B' | 'C';

/** A sales invoice as the analytics read it (amounts already in the organisation's base currency). */
export interface SalesInvoice {
  contactId: string;
  /** DRAFT, SUBMITTED, AUTHORISED, PAID, VOIDED, DELETED */
  ledgerStatus: string;
  /** FORECAST, ACTUAL, CANCELLED (ACTUAL = PAID: money received). */
  status: string;
  /** Issue date, else due date (YYYY-MM-DD). */
  date: string;
  dueDate: string | null;
  /** The date it was fully paid (YYYY-MM-DD), when known. */
  paidDate: string | null;
  /** Gross total in base currency; null when it cannot be converted (no rate). */
  total: string | null;
  /** Ex-tax total in base currency; null when it cannot be converted. */
  subTotal: string | null;
}

/** Statuses of an invoice that is a real sale (a purchase by the customer). */
export const SALE_STATUSES: ReadonlySet<string> = new Set(['AUTHORISED', 'PAID']);

const isActual = (i: SalesInvoice) => i.status === 'ACTUAL';
/** The day money came in for an ACTUAL invoice. */
export const receivedOn = (i: SalesInvoice): string => i.paidDate ?? i.date;

// ---------------------------------------------------------------------------
// Revenue and payment delay
// ---------------------------------------------------------------------------

/** Every ACTUAL inflow to date (gross, base currency): '0' when none. */
export function revenueAllTime(invoices: readonly SalesInvoice[]): string {
  let s = new D(0);
  for (const i of invoices) if (isActual(i) && i.total !== null) s = s.plus(i.total);
  return canonical(s);
}

/** ACTUAL inflows received in the last 365 days: (today - 365, today]. '0' when none. */
export function revenueTrailing12m(invoices: readonly SalesInvoice[], today: string): string {
  const start = addDays(today, -365);
  let s = new D(0);
  for (const i of invoices) {
    if (!isActual(i) || i.total === null) continue;
    const d = receivedOn(i);
    if (d > start && d <= today) s = s.plus(i.total);
  }
  return canonical(s);
}

/**
 * Median days late on paid invoices (paid date minus due date; negative when
 * early), as a canonical decimal string ('2.5' for an even count); null
 * without a paid invoice that has a due date and a paid date.
 */
export function paymentDelayMedianDays(invoices: readonly SalesInvoice[]): string | null {
  const delays: number[] = [];
  for (const i of invoices) if (i.ledgerStatus === 'PAID' && i.dueDate && i.paidDate) delays.push(daysBetween(i.dueDate, i.paidDate));
  const m = median(delays);
  return m === null ? null : canonical(m);
}

/** The distinct days on which the customer bought (AUTHORISED or PAID invoices), ascending. */
export function purchaseDays(invoices: readonly SalesInvoice[]): string[] {
  const days = new Set<string>();
  for (const i of invoices) if (SALE_STATUSES.has(i.ledgerStatus)) days.add(i.date);
  return [...days].sort();
}

// ---------------------------------------------------------------------------
// Cadence
// ---------------------------------------------------------------------------

/** Fewest distinct purchase days (so at least two gaps) for a cadence other than NONE. */
export const MIN_PURCHASES_FOR_CADENCE = 3;
/** Robust dispersion (MAD / median gap) above which purchases are irregular: NONE. */
export const MAX_IRREGULARITY = 0.6;
/** Upper bounds (inclusive, days) of the median gap of each cadence. */
export const CADENCE_BANDS: readonly { cadence: Exclude<Cadence, 'NONE'>; maxGap: number }[] = [
  { cadence: 'WEEKLY', maxGap: 10 },
  { cadence: 'FORTNIGHTLY', maxGap: 21 },
  { cadence: 'MONTHLY', maxGap: 45 },
  { cadence: 'QUARTERLY', maxGap: 135 },
  { cadence: 'ANNUAL', maxGap: 500 },
];

export interface CadenceResult {
  cadence: Cadence;
  /** 0-100: how regular and how well supported the pattern is; 0 for NONE. */
  confidence: number;
  /** Median gap between purchase days (null with fewer than two purchase days). */
  medianGapDays: number | null;
  /** Number of gaps seen. */
  gaps: number;
}

/** The gaps (days) between consecutive distinct purchase days. */
export function gapsOf(days: readonly string[]): number[] {
  const sorted = [...new Set(days)].sort();
  const out: number[] = [];
  for (let k = 1; k < sorted.length; k++) out.push(daysBetween(sorted[k - 1]!, sorted[k]!));
  return out;
}

/** The cadence band of a median gap (NONE beyond the annual band). */
export function cadenceOfGap(medianGap: number): Cadence {
  for (const b of CADENCE_BANDS) if (medianGap <= b.maxGap) return b.cadence;
  return 'NONE';
}

/**
 * Cadence from the gaps between distinct purchase days: the median gap picks
 * the band; the robust dispersion r = MAD/median says how regular it is.
 * confidence = round(100 x (1 - r) x n/(n+2)) with n gaps (the second factor
 * grows with the evidence: 2 gaps 0.5, 6 gaps 0.75, 18 gaps 0.9). NONE (with
 * confidence 0) with fewer than 3 purchase days, r above 0.6, or a median gap
 * above 500 days. Median and MAD ignore a minority of outliers (a holiday
 * break, a one-off top-up order).
 */
export function detectCadence(days: readonly string[]): CadenceResult {
  const gaps = gapsOf(days);
  const m = median(gaps);
  if (m === null) return { cadence: 'NONE', confidence: 0, medianGapDays: null, gaps: 0 };
  const none = { cadence: 'NONE' as const, confidence: 0, medianGapDays: m, gaps: gaps.length };
  if (gaps.length + 1 < MIN_PURCHASES_FOR_CADENCE) return none;
  const cadence = cadenceOfGap(m);
  const r = mad(gaps)! / m;
  if (cadence === 'NONE' || r > MAX_IRREGULARITY) return none;
  const n = gaps.length;
  const confidence = Math.round(100 * clamp(1 - r, 0, 1) * (n / (n + 2)));
  return { cadence, confidence, medianGapDays: m, gaps: n };
}

// ---------------------------------------------------------------------------
// Churn
// ---------------------------------------------------------------------------

/** Expected gap of a customer bought from once (or not regularly enough to tell). */
export const ONE_OFF_EXPECTED_GAP = 180;

/**
 * The gap after which the next purchase is expected: the cadence's median
 * gap; for NONE with two or more purchase days, their median gap clamped to
 * [30, 365]; for a single purchase, 180 days.
 */
export function expectedGapDays(c: CadenceResult): number {
  if (c.cadence !== 'NONE' && c.medianGapDays !== null) return c.medianGapDays;
  if (c.medianGapDays !== null) return clamp(c.medianGapDays, 30, 365);
  return ONE_OFF_EXPECTED_GAP;
}

/**
 * Churn state from how overdue the next expected purchase is:
 * overdue = days since the last purchase - expected gap g;
 * Active when overdue <= max(g, 14); At-risk when overdue <= max(3g, 60);
 * Churned beyond. Null without any purchase.
 */
export function churnState(lastPurchase: string | null, c: CadenceResult, today: string): ChurnState | null {
  if (!lastPurchase) return null;
  const g = expectedGapDays(c);
  const overdue = daysBetween(lastPurchase, today) - g;
  if (overdue <= Math.max(g, 14)) return 'Active';
  if (overdue <= Math.max(3 * g, 60)) return 'At-risk';
  return 'Churned';
}

export const CHURN_FACTOR: Record<ChurnState, number> = { Active: 1, 'At-risk': 0.5, Churned: 0 };

// ---------------------------------------------------------------------------
// Margin, lifetime, lifetime values
// ---------------------------------------------------------------------------

/** One month of organisation-wide sales and cost of sales (ex-tax, base currency). */
export interface MarginMonth {
  month: string;
  revenue: string;
  costOfSales: string;
  /** Cost-of-sales lines seen that month. */
  costLines: number;
}

/** Months with cost-of-sales lines needed for a margin from cost history. */
export const MIN_COST_MONTHS = 3;

/**
 * Gross margin as a fraction in [0,1] rounded to 4 places: the operator's
 * override when set; else (revenue - cost of sales) / revenue over the given
 * months when at least 3 of them have cost-of-sales lines and revenue is
 * positive; else null.
 */
export function grossMarginPercent(override: string | number | null, months: readonly MarginMonth[]): number | null {
  if (override !== null && override !== '') {
    const o = Number(override);
    if (Number.isFinite(o)) return round(clamp(o, 0, 1), 4);
  }
  let revenue = new D(0);
  let cost = new D(0);
  let costMonths = 0;
  for (const m of months) {
    revenue = revenue.plus(m.revenue);
    cost = cost.plus(m.costOfSales);
    if (m.costLines > 0) costMonths++;
  }
  if (costMonths < MIN_COST_MONTHS || revenue.lte(0)) return null;
  return round(clamp(revenue.minus(cost).div(revenue).toNumber(), 0, 1), 4);
}

export const LIFETIME_MIN_YEARS = 1;
export const LIFETIME_MAX_YEARS = 5;

/**
 * Median lifetime (years, first to last purchase day / 365.25) of engaged
 * customers (cadence not NONE), clamped to [1,5] and rounded to 2 places; 1
 * when there are none.
 */
export function expectedLifetimeYears(engaged: readonly { firstPurchase: string; lastPurchase: string }[]): number {
  const m = median(engaged.map((c) => daysBetween(c.firstPurchase, c.lastPurchase) / 365.25));
  return round(clamp(m ?? LIFETIME_MIN_YEARS, LIFETIME_MIN_YEARS, LIFETIME_MAX_YEARS), 2);
}

const cents = (d: Dec) => canonical(d.toDecimalPlaces(2, D.ROUND_HALF_UP));

/**
 * run-rate (revenueTrailing12m) x margin x lifetime x churn factor (Active
 * 1, At-risk 0.5, Churned 0), to the cent; null when the margin is null;
 * '0' for a churned customer.
 */
export function projectedLtv(runRate: string, margin: number | null, lifetimeYears: number, state: ChurnState | null): string | null {
  if (margin === null) return null;
  if (state === 'Churned') return '0';
  const factor = state === null ? 0 : CHURN_FACTOR[state];
  return cents(dec(runRate).times(margin).times(lifetimeYears).times(factor));
}

/** revenueAllTime x margin, to the cent; null when the margin is null. Also the baseline `ltv`. */
export function historicalLtv(revenueAll: string, margin: number | null): string | null {
  if (margin === null) return null;
  return cents(dec(revenueAll).times(margin));
}

// ---------------------------------------------------------------------------
// ABC tiers
// ---------------------------------------------------------------------------

/** Cumulative value shares that close tiers A and B. */
export const ABC_CUTS = { A: 0.8, B: 0.95 } as const;

/**
 * 80/20 tiers by value: customers sorted by value (descending; equal values
 * form one group, listed by id). A group is A while the value of everything
 * before it is under 80% of the total (so the group that crosses 80% is A),
 * B while under 95%, C after. Equal values always share a tier. Customers
 * with no positive value get no tier (they are "unclassified").
 */
export function abcClasses(values: readonly { id: string; value: string }[]): Map<string, AbcClass> {
  const positive = values
    .map((v) => ({ id: v.id, value: dec(v.value) }))
    .filter((v) => v.value.gt(0))
    .sort((a, b) => b.value.comparedTo(a.value) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const total = positive.reduce((s, v) => s.plus(v.value), new D(0));
  const out = new Map<string, AbcClass>();
  let before = new D(0);
  let k = 0;
  while (k < positive.length) {
    let j = k;
    let group = new D(0);
    while (j < positive.length && positive[j]!.value.eq(positive[k]!.value)) group = group.plus(positive[j++]!.value);
    const share = before.div(total);
    const cls: AbcClass = share.lt(ABC_CUTS.A) ? 'A' : share.lt(ABC_CUTS.B) ? 'B' : 'C';
    for (let i = k; i < j; i++) out.set(positive[i]!.id, cls);
    before = before.plus(group);
    k = j;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Credit
// ---------------------------------------------------------------------------

export interface CreditNote {
  /** ACCRECCREDIT (receivable) or ACCPAYCREDIT. */
  ledgerType: string;
  ledgerStatus: string;
  currency: string;
  remainingCredit: string | null;
}

/** Remaining credit of AUTHORISED receivable credit notes in the base currency; '0' when none. Foreign credits are left out. */
export function availableCredit(notes: readonly CreditNote[], baseCurrency: string): string {
  let s = new D(0);
  for (const n of notes) {
    if (n.ledgerType === 'ACCRECCREDIT' && n.ledgerStatus === 'AUTHORISED' && n.currency === baseCurrency && n.remainingCredit !== null) {
      s = s.plus(n.remainingCredit);
    }
  }
  return canonical(s);
}
