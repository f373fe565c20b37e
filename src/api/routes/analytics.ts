/**
 * The summaries and cohorts (spec 2.8, 2.9, 4.6; READ_SUMMARY):
 * GET /api/agent/revenue/summary, /expenses/summary, /contacts/summary,
 * /cohorts/summary, /cohorts/retention. docs/analytics.md has the rules.
 *
 * - revenue/expenses: aggregates computed in the store over the requested
 *   window (cheap, indexed by organisation), plus the trailing gross-profit
 *   reading on the revenue summary;
 * - contacts summary and cohorts: read from the snapshots the nightly
 *   baseline job stored (src/jobs/baselines.ts); before its first run they
 *   are computed in memory for the request (never stored by a GET);
 * - names in top lists are read now, so a contact flagged sensitive after
 *   the nightly run is masked at once. Without READ_SENSITIVE a sensitive
 *   contact's row keeps its count and amount, its name becomes
 *   `Sensitive contact` and its contactId blank (redactedItemCount).
 *
 * Registered before the contacts drill (/contacts/{id}), so that
 * /contacts/summary is this endpoint (and its scope READ_SUMMARY).
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { dateIn } from '../../domain/calendar.js';
import { lastFullMonths, summaryWindow } from '../../domain/fiscal.js';
import { periodLabels, retentionValues } from '../../domain/analytics/cohorts.js';
import { analyseOrganisation, type CohortsData, type ContactsSummaryData, type TopEntry } from '../../domain/analytics/organisation.js';
import { GROSS_PROFIT_MONTHS, grossProfitReading, type GrossProfitReading, MARGIN_MONTHS, maskTopContacts, monthBuckets, type NamedEntry, statusBuckets } from '../../domain/analytics/summary.js';
import {
  CohortRetentionResponse,
  CohortSummaryResponse,
  ContactsSummaryQuery,
  ContactsSummaryResponse,
  ExpensesSummaryResponse,
  RetentionQuery,
  RevenueSummaryResponse,
  SummaryQuery,
} from '../../schemas/analytics.js';
import {
  contactLabels,
  loadAnalyticsInput,
  marginMonths,
  type OrgSettings,
  readSnapshot,
  SNAPSHOT_KINDS,
  summaryAggregates,
} from '../../store/queries/analytics.js';
import type { ApiApp, AppEnv } from '../context.js';
import { ApiError } from '../errors.js';
import { agentRoute, withAlerts } from '../route.js';
import { json } from '../lists.js';

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

const SENSITIVE_NOTE =
  'Without READ_SENSITIVE, a sensitive contact in a top list keeps its count and amount but its name is `Sensitive contact` and its contactId blank; redactedItemCount counts those rows.';

export const revenueSummaryRoute = agentRoute('READ_SUMMARY', {
  path: '/api/agent/revenue/summary',
  summary: 'Receivables aggregate: paid revenue by month and by customer, outstanding, gross profit',
  description:
    "Sales invoices over a window of the organisation's calendar dates (default: the current financial year to date). PAID on a cash basis (by payment date, ex-tax); " +
    'other statuses by issue date (gross outstanding). grandTotal is PAID only. byMonth buckets months of the organisation time zone. ' +
    `grossProfit is a trailing reading over the last three full months (it ignores the range). ${SENSITIVE_NOTE}`,
  request: { query: SummaryQuery },
  responses: { 200: json(RevenueSummaryResponse, 'The revenue summary') },
});

export const expensesSummaryRoute = agentRoute('READ_SUMMARY', {
  path: '/api/agent/expenses/summary',
  summary: 'Payables aggregate: paid spend by month and by supplier, outstanding',
  description: `The payables mirror of /revenue/summary over bills (ex-tax PAID by payment date, gross outstanding), without grossProfit. ${SENSITIVE_NOTE}`,
  request: { query: SummaryQuery },
  responses: { 200: json(ExpensesSummaryResponse, 'The expenses summary') },
});

export const contactsSummaryRoute = agentRoute('READ_SUMMARY', {
  path: '/api/agent/contacts/summary',
  summary: 'Contacts by type, ABC tiers, top customers by lifetime value and top suppliers by spend',
  description: `From the nightly baseline (asOfDate is its date). byType and abcDistribution are population counts, never masked. ${SENSITIVE_NOTE}`,
  request: { query: ContactsSummaryQuery },
  responses: { 200: json(ContactsSummaryResponse, 'The contacts summary') },
});

export const cohortsSummaryRoute = agentRoute('READ_SUMMARY', {
  path: '/api/agent/cohorts/summary',
  summary: 'Acquisition cohorts: KPIs (latest 6 months against the prior 6) and the best cohorts by M3 retention',
  description: 'From the nightly baseline: customers grouped by the month of their first invoice, up to 24 acquisition months.',
  responses: { 200: json(CohortSummaryResponse, 'The cohorts summary') },
});

export const cohortsRetentionRoute = agentRoute('READ_SUMMARY', {
  path: '/api/agent/cohorts/retention',
  summary: 'Cohort retention matrix',
  description:
    'One row per acquisition month (up to 24), one column per month offset M0..M(periods-1): the fraction of the cohort buying that month (retention), how many bought (customers) or their ex-tax revenue (revenue). ' +
    'null marks months not yet elapsed, distinct from a real 0.',
  request: { query: RetentionQuery },
  responses: { 200: json(CohortRetentionResponse, 'The retention matrix') },
});

// ---------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------

interface Caller {
  orgId: string;
  gate: boolean;
  org: OrgSettings;
  today: string;
}

function caller(c: Context<AppEnv>): Caller {
  const auth = c.get('auth');
  if (!auth.orgId || !auth.org) throw new ApiError(400, 'org_required', 'This endpoint needs an organisation.');
  const o = auth.org;
  const org: OrgSettings = {
    id: o.id,
    timezone: o.timezone,
    baseCurrency: o.baseCurrency,
    fyEndDay: o.fyEndDay,
    fyEndMonth: o.fyEndMonth,
    grossMarginOverride: o.grossMarginOverride,
  };
  return { orgId: auth.orgId, gate: !auth.canSeeSensitive, org, today: dateIn(o.timezone, c.get('deps').clock.now()) };
}

/** The stored snapshot; before the first baseline run, the same analysis computed for this request. */
async function analysisOf<K extends 'contactsSummary' | 'cohorts'>(
  c: Context<AppEnv>,
  who: Caller,
  kind: K,
): Promise<K extends 'cohorts' ? CohortsData : ContactsSummaryData> {
  type Out = K extends 'cohorts' ? CohortsData : ContactsSummaryData;
  const db = c.get('db');
  const stored = await readSnapshot<Out>(db, who.orgId, SNAPSHOT_KINDS[kind]);
  if (stored) return stored;
  const input = await loadAnalyticsInput(db, who.org, who.today, lastFullMonths(who.today, MARGIN_MONTHS));
  const result = analyseOrganisation(input);
  return (kind === 'cohorts' ? result.cohorts : result.contactsSummary) as Out;
}

async function summaryBody(c: Context<AppEnv>, kind: 'revenue' | 'expenses', q: z.output<typeof SummaryQuery>) {
  const who = caller(c);
  const params = { window: summaryWindow(q, who.today, who.org.fyEndDay, who.org.fyEndMonth), topN: q.topN };
  const db = c.get('db');
  const agg = await summaryAggregates(db, {
    orgId: who.orgId,
    kind,
    window: params.window,
    topN: params.topN,
    baseCurrency: who.org.baseCurrency,
  });
  const byStatus = statusBuckets([
    ...agg.paidDays.map((d) => ({ status: 'PAID', count: d.count, amount: d.amount })),
    ...agg.statuses,
  ]);
  const top = maskTopContacts(agg.top, who.gate);
  return {
    who,
    body: {
      asOfDate: who.today,
      currency: who.org.baseCurrency,
      window: params.window,
      grandTotal: byStatus.PAID!,
      byStatus,
      byMonth: monthBuckets(params.window, agg.paidDays),
      topContacts: top.rows,
      redactedItemCount: top.redacted,
    },
  };
}

async function named(c: Context<AppEnv>, who: Caller, entries: readonly TopEntry[]): Promise<NamedEntry[]> {
  const labels = await contactLabels(c.get('db'), who.orgId, entries.map((e) => e.contactId));
  const out: NamedEntry[] = [];
  for (const e of entries) {
    const l = labels.get(e.contactId);
    if (l) out.push({ ...e, name: l.name, isSensitive: l.isSensitive });
  }
  return out;
}

export function registerAnalytics(app: ApiApp) {
  return app
    .openapi(revenueSummaryRoute, async (c) => {
      const { who, body } = await summaryBody(c, 'revenue', c.req.valid('query'));
      // The stored reading when the nightly run saw the same three months (it is
      // stable within a month), else computed now (before the first run, or when
      // the month has turned since).
      const gpWindow = lastFullMonths(who.today, GROSS_PROFIT_MONTHS);
      const db = c.get('db');
      const stored = (await readSnapshot<{ grossProfit?: GrossProfitReading }>(db, who.orgId, SNAPSHOT_KINDS.organisation))?.grossProfit;
      const grossProfit =
        stored && stored.window.from === gpWindow.from && stored.window.to === gpWindow.to
          ? stored
          : grossProfitReading(gpWindow, await marginMonths(db, who.orgId, gpWindow, who.org.baseCurrency));
      return c.json(withAlerts(c, { ...body, grossProfit }), 200);
    })
    .openapi(expensesSummaryRoute, async (c) => {
      const { body } = await summaryBody(c, 'expenses', c.req.valid('query'));
      return c.json(withAlerts(c, body), 200);
    })
    .openapi(contactsSummaryRoute, async (c) => {
      const who = caller(c);
      const { topN } = c.req.valid('query');
      const s = await analysisOf(c, who, 'contactsSummary');
      const [rev, spend] = await Promise.all([named(c, who, s.topByRevenue.slice(0, topN)), named(c, who, s.topBySpend.slice(0, topN))]);
      const a = maskTopContacts(rev, who.gate);
      const b = maskTopContacts(spend, who.gate);
      return c.json(
        withAlerts(c, {
          asOfDate: s.asOfDate,
          currency: s.currency,
          byType: s.byType,
          abcDistribution: s.abcDistribution,
          topByRevenue: a.rows,
          topByRevenueBasis: s.topByRevenueBasis,
          topBySpend: b.rows,
          redactedItemCount: a.redacted + b.redacted,
        }),
        200,
      );
    })
    .openapi(cohortsSummaryRoute, async (c) => {
      const who = caller(c);
      const s = await analysisOf(c, who, 'cohorts');
      return c.json(
        withAlerts(c, {
          asOfDate: s.asOfDate,
          currency: s.currency,
          window: s.window,
          kpis: s.kpis,
          topCohorts: s.topCohorts,
          redactedItemCount: 0,
          notesForAgent: s.notesForAgent,
        }),
        200,
      );
    })
    .openapi(cohortsRetentionRoute, async (c) => {
      const who = caller(c);
      const { metric, periods } = c.req.valid('query');
      const s = await analysisOf(c, who, 'cohorts');
      return c.json(
        withAlerts(c, {
          asOfDate: s.asOfDate,
          currency: s.currency,
          metric,
          periodLabels: periodLabels(periods),
          cohorts: s.cohorts.map((r) => ({
            cohort: r.cohort,
            customers: r.customers,
            revenue: r.revenue,
            activeNow: r.activeNow,
            values: retentionValues(r, metric, periods),
          })),
          redactedItemCount: 0,
          notesForAgent: [],
        }),
        200,
      );
    });
}
