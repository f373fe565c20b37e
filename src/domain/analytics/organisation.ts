/**
 * The whole analysis of one organisation (pure): what the nightly baseline
 * job (src/jobs/baselines.ts) stores per contact and in the organisation's
 * summaries. Input amounts are already in the base currency.
 */
import { canonical, D, dec } from '../money.js';
import {
  abcClasses,
  type AbcClass,
  availableCredit,
  type CadenceResult,
  type Cadence,
  churnState,
  type ChurnState,
  type CreditNote,
  detectCadence,
  expectedLifetimeYears,
  grossMarginPercent,
  historicalLtv,
  type MarginMonth,
  paymentDelayMedianDays,
  projectedLtv,
  purchaseDays,
  revenueAllTime,
  revenueTrailing12m,
  SALE_STATUSES,
  type SalesInvoice,
} from './customer.js';
import { analyseCohorts, type CohortAnalysis, cohortNotes, type CohortNote, type Purchase } from './cohorts.js';
import { GROSS_PROFIT_MONTHS, grossProfitReading, type GrossProfitReading } from './summary.js';
import { lastFullMonths } from '../fiscal.js';

/** Most rows kept in each stored top list (topN is at most 100). */
export const TOP_KEPT = 100;

export interface ContactInfo {
  id: string;
  isCustomer: boolean;
  isSupplier: boolean;
}

/** A supplier's bills (gross, base currency). */
export interface SupplierBills {
  contactId: string;
  /** ACTUAL (paid) bills: all-time spend. */
  spendAllTime: string;
  /** AUTHORISED and PAID bills: aggregate bill gross (topBySpend). */
  billGross: string;
  bills: number;
}

export interface AnalyticsInput {
  /** Today in the organisation's time zone (YYYY-MM-DD). */
  today: string;
  baseCurrency: string;
  /** organisations.gross_margin_override (a fraction), or null. */
  grossMarginOverride: string | null;
  contacts: readonly ContactInfo[];
  /** Every sales invoice (ACCREC), any status. */
  invoices: readonly SalesInvoice[];
  /** Credit notes with their contact. */
  creditNotes: readonly (CreditNote & { contactId: string })[];
  supplierBills: readonly SupplierBills[];
  /** Organisation-wide sales and cost of sales per month over the margin window (the last 12 full months). */
  marginMonths: readonly MarginMonth[];
}

export interface ContactAnalytics {
  contactId: string;
  /** Flagged a customer, or has sales invoices. */
  isCustomer: boolean;
  revenueAllTime: string;
  revenueTrailing12m: string;
  spendAllTime: string;
  paidInvoices: number;
  paymentDelayMedianDays: string | null;
  cadence: Cadence | null;
  cadenceConfidence: number | null;
  medianGapDays: number | null;
  purchaseDays: number;
  firstPurchase: string | null;
  lastPurchase: string | null;
  churnState: ChurnState | null;
  grossMarginPercent: number | null;
  expectedLifetimeYears: number;
  projectedLtv: string | null;
  historicalLtv: string | null;
  /** The baseline ltv: cumulative gross-profit lifetime value (= historicalLtv); null for non-customers. */
  ltv: string | null;
  abcClass: AbcClass | null;
  availableCredit: string;
}

export interface TopEntry {
  contactId: string;
  count: number;
  amount: string;
}

export interface ContactsSummaryData {
  asOfDate: string;
  currency: string;
  byType: { customer: number; supplier: number; both: number; neither: number };
  abcDistribution: { A: number; B: number; C: number; unclassified: number };
  /** 'ltv' when the organisation has a gross margin; else 'revenue' (amount is revenueAllTime, same order). */
  topByRevenueBasis: 'ltv' | 'revenue';
  topByRevenue: TopEntry[];
  topBySpend: TopEntry[];
}

export interface CohortsData extends CohortAnalysis {
  currency: string;
  notesForAgent: CohortNote[];
}

export interface OrganisationAnalytics {
  contacts: ContactAnalytics[];
  grossMarginPercent: number | null;
  expectedLifetimeYears: number;
  contactsSummary: ContactsSummaryData;
  cohorts: CohortsData;
  /** The revenue summary's trailing gross-profit reading (the last three full months of the margin window). */
  grossProfit: GrossProfitReading;
}

const byValueDesc = (a: { v: InstanceType<typeof D>; id: string }, b: { v: InstanceType<typeof D>; id: string }) =>
  b.v.comparedTo(a.v) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Items grouped by their contact, in input order. */
function byContact<T extends { contactId: string }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const i of items) {
    let list = out.get(i.contactId);
    if (!list) out.set(i.contactId, (list = []));
    list.push(i);
  }
  return out;
}

/** What depends on the contact alone (the first pass). */
interface ContactBasis {
  id: string;
  isCustomer: boolean;
  invoices: SalesInvoice[];
  days: string[];
  cadence: CadenceResult | null;
}

/** The first pass over every contact (listed or with invoices), by id: customer flag, purchase days and cadence. */
function contactBases(input: AnalyticsInput, invoicesOf: ReadonlyMap<string, SalesInvoice[]>): ContactBasis[] {
  const info = new Map(input.contacts.map((c) => [c.id, c]));
  const ids = [...new Set([...info.keys(), ...invoicesOf.keys()])].sort();
  return ids.map((id) => {
    const invoices = invoicesOf.get(id) ?? [];
    const isCustomer = (info.get(id)?.isCustomer ?? false) || invoices.length > 0;
    const days = purchaseDays(invoices);
    return { id, isCustomer, invoices, days, cadence: isCustomer ? detectCadence(days) : null };
  });
}

/** The expected customer lifetime from the contacts with a purchase cadence. */
function lifetimeOf(bases: readonly ContactBasis[]): number {
  return expectedLifetimeYears(
    bases
      .filter((p) => p.cadence && p.cadence.cadence !== 'NONE')
      .map((p) => ({ firstPurchase: p.days[0]!, lastPurchase: p.days[p.days.length - 1]! })),
  );
}

/** What every contact's analytics share: the organisation's figures and the per-contact lookups. */
interface OrgContext {
  today: string;
  baseCurrency: string;
  margin: number | null;
  lifetime: number;
  billsOf: ReadonlyMap<string, SupplierBills>;
  creditOf: ReadonlyMap<string, CreditNote[]>;
}

/** One contact's analytics (abcClass is set later, over all customers). */
function contactAnalytics(p: ContactBasis, ctx: OrgContext): ContactAnalytics {
  const { today, margin, lifetime } = ctx;
  const revAll = revenueAllTime(p.invoices);
  const rev12 = revenueTrailing12m(p.invoices, today);
  const last = p.days.length ? p.days[p.days.length - 1]! : null;
  const state = p.cadence ? churnState(last, p.cadence, today) : null;
  const hist = p.isCustomer ? historicalLtv(revAll, margin) : null;
  return {
    contactId: p.id,
    isCustomer: p.isCustomer,
    revenueAllTime: revAll,
    revenueTrailing12m: rev12,
    spendAllTime: canonical(ctx.billsOf.get(p.id)?.spendAllTime ?? '0'),
    paidInvoices: p.invoices.filter((i) => i.status === 'ACTUAL').length,
    paymentDelayMedianDays: p.isCustomer ? paymentDelayMedianDays(p.invoices) : null,
    cadence: p.cadence?.cadence ?? null,
    cadenceConfidence: p.cadence?.confidence ?? null,
    medianGapDays: p.cadence?.medianGapDays ?? null,
    purchaseDays: p.days.length,
    firstPurchase: p.days[0] ?? null,
    lastPurchase: last,
    churnState: state,
    grossMarginPercent: p.isCustomer ? margin : null,
    expectedLifetimeYears: lifetime,
    projectedLtv: p.isCustomer ? projectedLtv(rev12, margin, lifetime, state) : null,
    historicalLtv: hist,
    ltv: hist,
    abcClass: null,
    availableCredit: availableCredit(ctx.creditOf.get(p.id) ?? [], ctx.baseCurrency),
  };
}

/** Sets the customers' ABC classes by realised revenue and returns the customers. */
function classifyCustomers(contacts: readonly ContactAnalytics[]): ContactAnalytics[] {
  // The same order as the gross-profit LTV: the margin is organisation-wide.
  const customers = contacts.filter((c) => c.isCustomer);
  const abc = abcClasses(customers.map((c) => ({ id: c.contactId, value: c.revenueAllTime })));
  for (const c of customers) c.abcClass = abc.get(c.contactId) ?? null;
  return customers;
}

/** Contacts counted by their customer and supplier flags. */
function countByType(contacts: readonly ContactInfo[]): ContactsSummaryData['byType'] {
  const byType = { customer: 0, supplier: 0, both: 0, neither: 0 };
  for (const c of contacts) {
    if (c.isCustomer && c.isSupplier) byType.both++;
    else if (c.isCustomer) byType.customer++;
    else if (c.isSupplier) byType.supplier++;
    else byType.neither++;
  }
  return byType;
}

/** Customers counted by ABC class. */
function countByAbc(customers: readonly ContactAnalytics[]): ContactsSummaryData['abcDistribution'] {
  const abcDistribution = { A: 0, B: 0, C: 0, unclassified: 0 };
  for (const c of customers) abcDistribution[c.abcClass ?? 'unclassified']++;
  return abcDistribution;
}

/** The customers with revenue, largest LTV (or revenue, without a margin) first, at most TOP_KEPT. */
function topByRevenueOf(customers: readonly ContactAnalytics[], basis: 'ltv' | 'revenue'): TopEntry[] {
  return customers
    .map((c) => ({ c, id: c.contactId, v: dec(basis === 'ltv' ? c.ltv! : c.revenueAllTime) }))
    .filter((x) => dec(x.c.revenueAllTime).gt(0))
    .sort(byValueDesc)
    .slice(0, TOP_KEPT)
    .map((x) => ({ contactId: x.id, count: x.c.paidInvoices, amount: canonical(x.v) }));
}

/** The suppliers with bills, largest bill gross first, at most TOP_KEPT. */
function topBySpendOf(supplierBills: readonly SupplierBills[]): TopEntry[] {
  return supplierBills
    .map((b) => ({ b, id: b.contactId, v: dec(b.billGross) }))
    .filter((x) => x.b.bills > 0)
    .sort(byValueDesc)
    .slice(0, TOP_KEPT)
    .map((x) => ({ contactId: x.id, count: x.b.bills, amount: canonical(x.v) }));
}

/** The contacts summary: counts by type and ABC class, and the top lists. */
function contactsSummary(input: AnalyticsInput, customers: readonly ContactAnalytics[], margin: number | null): ContactsSummaryData {
  const basis = margin === null ? ('revenue' as const) : ('ltv' as const);
  return {
    asOfDate: input.today,
    currency: input.baseCurrency,
    byType: countByType(input.contacts),
    abcDistribution: countByAbc(customers),
    topByRevenueBasis: basis,
    topByRevenue: topByRevenueOf(customers, basis),
    topBySpend: topBySpendOf(input.supplierBills),
  };
}

/** The acquisition cohorts of the sales (AUTHORISED and PAID invoices), with the notes for the agent. */
function cohortsOf(input: AnalyticsInput, contacts: readonly ContactAnalytics[]): CohortsData {
  const purchases: Purchase[] = [];
  // A sale whose amount cannot be converted to the base currency still acquires and retains (amount 0).
  for (const i of input.invoices) if (SALE_STATUSES.has(i.ledgerStatus)) purchases.push({ contactId: i.contactId, date: i.date, amount: i.subTotal ?? '0' });
  const churn = new Map(contacts.map((c) => [c.contactId, c.churnState]));
  const cohortAnalysis = analyseCohorts(purchases, input.today, churn);
  return { ...cohortAnalysis, currency: input.baseCurrency, notesForAgent: cohortNotes(cohortAnalysis.kpis) };
}

export function analyseOrganisation(input: AnalyticsInput): OrganisationAnalytics {
  const margin = grossMarginPercent(input.grossMarginOverride, input.marginMonths);
  const bases = contactBases(input, byContact(input.invoices));
  const lifetime = lifetimeOf(bases);
  const ctx: OrgContext = {
    today: input.today,
    baseCurrency: input.baseCurrency,
    margin,
    lifetime,
    billsOf: new Map(input.supplierBills.map((b) => [b.contactId, b])),
    creditOf: byContact(input.creditNotes),
  };
  const contacts = bases.map((p) => contactAnalytics(p, ctx));
  const customers = classifyCustomers(contacts);
  return {
    contacts,
    grossMarginPercent: margin,
    expectedLifetimeYears: lifetime,
    contactsSummary: contactsSummary(input, customers, margin),
    cohorts: cohortsOf(input, contacts),
    grossProfit: grossProfitOf(input.today, input.marginMonths),
  };
}

/** The gross-profit reading of the last GROSS_PROFIT_MONTHS full months before `today`'s month, from the margin months. */
export function grossProfitOf(today: string, months: readonly MarginMonth[]): GrossProfitReading {
  const window = lastFullMonths(today, GROSS_PROFIT_MONTHS);
  return grossProfitReading(window, months.filter((m) => m.month >= window.from.slice(0, 7) && m.month <= window.to.slice(0, 7)));
}

