/**
 * Request and response schemas of the summaries and cohorts (spec 2.8, 2.9,
 * 4.6; decisions.md): /revenue/summary, /expenses/summary,
 * /contacts/summary, /cohorts/summary, /cohorts/retention.
 * The query schemas parse the parameters (src/schemas/query.ts): a
 * malformed one is a 400 naming it.
 * docs/analytics.md explains every figure.
 */
import { z } from '@hono/zod-openapi';
import { DEFAULT_PERIODS, MAX_PERIODS, RETENTION_METRICS } from '../domain/analytics/cohorts.js';
import { DEFAULT_TOP_N, MAX_TOP_N } from '../domain/analytics/summary.js';
import { AgentNote, DateOnly, Money, alertFields } from './common.js';
import { dateParam, enumParam, intParam } from './query.js';

const YearMonth = z.string().regex(/^\d{4}-\d{2}$/).openapi({ example: '2026-11' });

// ---------------------------------------------------------------------------
// Query parameters
// ---------------------------------------------------------------------------

const topN = intParam({
  name: 'topN',
  min: 1,
  max: MAX_TOP_N,
  default: DEFAULT_TOP_N,
  description: `Length of the top-contact lists: an integer from 1 to ${MAX_TOP_N} (default ${DEFAULT_TOP_N}); anything else is 400.`,
  example: DEFAULT_TOP_N,
});

/** The dates a summary window may use (its financial years must have four-digit years). */
export const SUMMARY_DATE_RANGE = { min: '1900-01-01', max: '9998-12-31' } as const;

export const SummaryQuery = z
  .object({
    dateFrom: dateParam({
      name: 'dateFrom',
      range: SUMMARY_DATE_RANGE,
      description:
        "First day (YYYY-MM-DD, the organisation's calendar), inclusive. Default: the first day of the financial year containing dateTo (so, with neither, the current financial year to date). Dates run from 1900-01-01 to 9998-12-31; a window spans at most 20 years.",
      example: '2026-07-01',
    }),
    dateTo: dateParam({
      name: 'dateTo',
      range: SUMMARY_DATE_RANGE,
      description: "Last day (YYYY-MM-DD), inclusive to the end of that day in the organisation's time zone. Default: today there. From 1900-01-01 to 9998-12-31.",
      example: '2026-11-23',
    }),
    topN,
  });

export const ContactsSummaryQuery = z.object({ topN });

export const RetentionQuery = z.object({
  metric: enumParam({
    name: 'metric',
    values: RETENTION_METRICS,
    default: 'retention',
    description: 'retention (default: fraction of the cohort buying in each month), customers (how many bought), revenue (their ex-tax revenue).',
    example: 'retention',
  }),
  periods: intParam({
    name: 'periods',
    min: 1,
    max: MAX_PERIODS,
    default: DEFAULT_PERIODS,
    description: `Offset columns M0..M(periods-1): an integer from 1 to ${MAX_PERIODS} (default ${DEFAULT_PERIODS}); anything else is 400.`,
    example: DEFAULT_PERIODS,
  }),
});

// ---------------------------------------------------------------------------
// Summaries (spec 2.8)
// ---------------------------------------------------------------------------

export const SummaryBucket = z
  .object({
    count: z.number().int().openapi({ description: 'Documents in the bucket.' }),
    amount: Money.openapi({ description: 'Their amount, in the base currency (ex-tax for PAID, gross for the others).' }),
  })
  .openapi('SummaryBucket', { description: 'A count of documents and their amount.' });

export const SummaryMonthBucket = z
  .object({
    month: YearMonth.openapi({ description: "Calendar month in the organisation's IANA time zone (not UTC)." }),
    count: z.number().int().openapi({ description: 'Documents paid that month.' }),
    amount: Money.openapi({ description: 'Ex-tax PAID amount received that month, in the base currency.' }),
  })
  .openapi('SummaryMonthBucket', { description: 'One calendar month of the window.' });

export const SummaryTopContact = z
  .object({
    contactId: z.string().openapi({ description: 'Blank when the contact is sensitive and the key lacks READ_SENSITIVE.' }),
    name: z.string().openapi({ description: '`Sensitive contact` in that case.' }),
    count: z.number().int().openapi({ description: 'Documents of the contact counted in amount.' }),
    amount: Money.openapi({ description: 'The amount the list is ranked by, in the base currency. Never masked.' }),
  })
  .openapi('SummaryTopContact', { description: 'A contact of a top list; amount and count are kept when the name is rewritten.' });

export const SummaryWindow = z
  .object({
    from: DateOnly.openapi({ description: 'First day, inclusive.' }),
    to: DateOnly.openapi({ description: 'Last day, inclusive (to the end of the day).' }),
  })
  .openapi('SummaryWindow', { description: "A range of calendar dates in the organisation's time zone." });

const byStatus = z.record(z.string(), SummaryBucket).openapi({
  description:
    'Every ledger status (DRAFT, SUBMITTED, AUTHORISED, PAID, VOIDED, DELETED), zero-filled. PAID: items paid in the window (by payment date), ex-tax (cash basis). ' +
    'DRAFT, SUBMITTED, AUTHORISED: items issued in the window, gross amount still outstanding. VOIDED, DELETED: items issued in the window, gross total. ' +
    'The buckets do not sum to grandTotal.',
});

export const GrossProfit = z
  .object({
    window: SummaryWindow.openapi({ description: 'The last three full calendar months before the current one (the current month is the buffer); ignores dateFrom/dateTo.' }),
    revenue: Money.openapi({ description: 'Ex-tax sales: AUTHORISED and PAID sales invoices issued in the window less receivable credit notes.' }),
    costOfSales: Money.openapi({
      description: 'Ex-tax bill lines coded to cost-of-sales accounts (type DIRECTCOSTS, or named cost of goods / cost of sales / COGS) of AUTHORISED and PAID bills issued in the window, less supplier credit notes so coded.',
    }),
    amount: Money.openapi({ description: 'Gross profit: revenue minus costOfSales.' }),
    marginPercent: z
      .number()
      .nullable()
      .openapi({ description: 'amount / revenue as a fraction (4 places); null when revenue is not positive or no cost-of-sales line was seen in the window.' }),
  })
  .openapi('GrossProfit', {
    description: 'Organisation-wide gross profit from cost-of-sales account coding on bill lines: a stable trailing reading that ignores the request range.',
  });

const summaryFields = {
  asOfDate: DateOnly.openapi({ description: "Today in the organisation's time zone." }),
  currency: z.string().openapi({ description: 'The base currency of every amount (foreign items converted at their ledger rate).' }),
  window: SummaryWindow,
  grandTotal: SummaryBucket.openapi({ description: 'PAID only (equals byStatus.PAID).' }),
  byStatus,
  byMonth: z.array(SummaryMonthBucket).openapi({ description: 'Every month the window touches, in order, zero-filled: PAID ex-tax by payment month.' }),
  topContacts: z.array(SummaryTopContact).openapi({ description: 'Up to topN contacts by PAID ex-tax amount in the window (ties by contact id).' }),
  redactedItemCount: z.number().int().openapi({ description: 'topContacts rows renamed; 0 with READ_SENSITIVE. Other aggregates are never masked.' }),
};

export const RevenueSummaryResponse = z
  .object({ ...summaryFields, grossProfit: GrossProfit, ...alertFields })
  .openapi('RevenueSummaryResponse');
export type RevenueSummaryResponse = z.infer<typeof RevenueSummaryResponse>;

export const ExpensesSummaryResponse = z.object({ ...summaryFields, ...alertFields }).openapi('ExpensesSummaryResponse');
export type ExpensesSummaryResponse = z.infer<typeof ExpensesSummaryResponse>;

export const ContactsSummaryResponse = z
  .object({
    asOfDate: DateOnly.openapi({ description: 'The date of the nightly baseline these figures come from.' }),
    currency: z.string().openapi({ description: 'The base currency of every amount.' }),
    byType: z
      .object({
        customer: z.number().int().openapi({ description: 'Contacts that are customers only.' }),
        supplier: z.number().int().openapi({ description: 'Contacts that are suppliers only.' }),
        both: z.number().int().openapi({ description: 'Contacts that are customers and suppliers.' }),
        neither: z.number().int().openapi({ description: 'Contacts that are neither.' }),
      })
      .openapi({ description: 'Every contact: customer only, supplier only, both, neither. Never masked.' }),
    abcDistribution: z
      .object({
        A: z.number().int().openapi({ description: 'Class A customers: the top ones making about 80% of revenue.' }),
        B: z.number().int().openapi({ description: 'Class B customers: the next ones, to about 95% of revenue.' }),
        C: z.number().int().openapi({ description: 'Class C customers: the rest.' }),
        unclassified: z.number().int().openapi({ description: 'Customers without realised revenue.' }),
      })
      .openapi({ description: 'Customers per ABC tier; unclassified: customers without realised revenue. Never masked.' }),
    topByRevenue: z.array(SummaryTopContact).openapi({
      description:
        'Top customers by cumulative gross-profit lifetime value (amount = ltv; count = paid invoices). Without a gross margin (topByRevenueBasis revenue), amount is the realised revenue: the same order.',
    }),
    topByRevenueBasis: z.enum(['ltv', 'revenue']).openapi({ description: 'What topByRevenue amounts are.' }),
    topBySpend: z.array(SummaryTopContact).openapi({ description: 'Top suppliers by aggregate gross of AUTHORISED and PAID bills (count = those bills).' }),
    redactedItemCount: z.number().int().openapi({ description: 'Rows renamed across both top lists; 0 with READ_SENSITIVE.' }),
    ...alertFields,
  })
  .openapi('ContactsSummaryResponse');
export type ContactsSummaryResponse = z.infer<typeof ContactsSummaryResponse>;

// ---------------------------------------------------------------------------
// Cohorts (spec 2.9)
// ---------------------------------------------------------------------------

export const CohortKpi = z
  .object({
    value: z.number().openapi({
      description: 'The KPI: a count for newCustomers, a fraction in [0,1] for repeatOrderRate and retention90d, an amount in the base currency for avgRevenuePerCustomer (a JSON number here).',
    }),
    delta: z.number().nullable().openapi({ description: 'Latest 6 acquisition months against the 6 before; null with no prior base.' }),
    deltaKind: z.enum(['pct', 'rate']).openapi({
      description: 'rate: relative change (0.15 is +15%), for counts and amounts. pct: change of a fraction in fraction units (0.05 is +5 percentage points).',
    }),
  })
  .openapi('CohortKpi', { description: 'A cohort KPI and its change against the previous 6 months.' });

export const CohortTopEntry = z
  .object({
    acquisitionMonth: YearMonth.openapi({ description: "The cohort: the month (YYYY-MM) its customers first bought, in the organisation's time zone." }),
    cohortSize: z.number().int().openapi({ description: 'Distinct customers first seen that month.' }),
    retention3: z.number().openapi({ description: 'Fraction of the cohort buying in the third month after acquisition (M3).' }),
  })
  .openapi('CohortTopEntry', { description: 'One of the best-retaining cohorts.' });

export const CohortSummaryResponse = z
  .object({
    asOfDate: DateOnly.openapi({ description: "Today in the organisation's time zone." }),
    currency: z.string().openapi({ description: 'The base currency of avgRevenuePerCustomer.' }),
    window: z
      .object({
        from: z.string().openapi({ description: 'YYYY-MM of the first cohort loaded; empty when there is none.' }),
        to: z.string().openapi({ description: 'YYYY-MM of the last cohort loaded; empty when there is none.' }),
      })
      .openapi({ description: 'YYYY-MM of the first and last cohorts loaded (up to 24 acquisition months); empty strings when there are no cohorts.' }),
    kpis: z
      .object({ newCustomers: CohortKpi, repeatOrderRate: CohortKpi, avgRevenuePerCustomer: CohortKpi, retention90d: CohortKpi })
      .openapi({
        description:
          'Over the customers acquired in the latest 6 months (asOfDate month and the 5 before), deltas against the 6 before: newCustomers (count, rate); repeatOrderRate (fraction with a second purchase day, pct); avgRevenuePerCustomer (ex-tax revenue to date per customer, rate); retention90d (fraction buying in month M3, over cohorts whose M3 has elapsed, pct).',
      }),
    topCohorts: z.array(CohortTopEntry).openapi({ description: 'Up to 3 cohorts whose M3 has elapsed, by retention3 (then size, then month).' }),
    redactedItemCount: z.number().int().openapi({ description: 'Always 0: cohorts name no contact.' }),
    notesForAgent: z.array(AgentNote).openapi({ description: 'Notes for the agent about the cohorts; pass them on when relevant.' }),
    ...alertFields,
  })
  .openapi('CohortSummaryResponse');
export type CohortSummaryResponse = z.infer<typeof CohortSummaryResponse>;

export const CohortRetentionRow = z
  .object({
    cohort: YearMonth.openapi({ description: "The acquisition month (YYYY-MM) of the row's customers." }),
    customers: z.number().int().openapi({ description: 'Customers in the cohort (first bought that month).' }),
    revenue: Money.openapi({ description: 'Ex-tax revenue of the cohort from acquisition to asOfDate (all elapsed offsets).' }),
    activeNow: z.number().int().openapi({ description: 'Customers of the cohort whose churn state is Active at asOfDate.' }),
    values: z
      .array(z.union([z.number(), z.string(), z.null()]))
      .openapi({ description: 'Aligned to periodLabels: number (retention), integer (customers) or decimal string (revenue); null for months not yet elapsed, distinct from a real 0.' }),
  })
  .openapi('CohortRetentionRow', { description: 'One acquisition month of the grid.' });

export const CohortRetentionResponse = z
  .object({
    asOfDate: DateOnly.openapi({ description: "Today in the organisation's time zone." }),
    currency: z.string().openapi({ description: 'The base currency of revenue values.' }),
    metric: z.enum(['retention', 'customers', 'revenue']).openapi({ description: 'What values hold (the metric parameter).' }),
    periodLabels: z.array(z.string()).openapi({ description: 'M0, M1, …: as many as periods.' }),
    cohorts: z.array(CohortRetentionRow).openapi({ description: 'One row per acquisition month, oldest first (up to 24).' }),
    redactedItemCount: z.number().int().openapi({ description: 'Always 0.' }),
    notesForAgent: z.array(AgentNote).openapi({ description: 'Always empty.' }),
    ...alertFields,
  })
  .openapi('CohortRetentionResponse');
export type CohortRetentionResponse = z.infer<typeof CohortRetentionResponse>;
