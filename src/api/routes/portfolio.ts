/**
 * GET /api/agent/portfolio (READ_FORECAST; partner keys only; issue 19,
 * docs/portfolio.md): one row per client organisation of the practice, most
 * at risk of running out of cash first (src/domain/portfolio.ts), each with
 * the figures its own endpoints give: /cash-position's effectiveStartingCash,
 * /forecast's lowest week and shortfall probability, /receivables/aged's
 * overdue total and its ledgerAlert. Two queries over all the linked
 * organisations (src/store/queries/portfolio.ts, overdueReceivables), plus a
 * live cash position for a row without a forecast yet.
 *
 * Metering: the pipeline reserves nothing here (HANDLER_METERED); once the
 * page is shaped, one credit per row is reserved from that organisation's
 * allowance (the partner's seat on its billing account, as a read naming it
 * would spend), in the risk order. When an organisation's credits are used
 * up the page stops before it (`stoppedEarly`, nextCursor resumes there);
 * when not even the first row fits, 429 quota_exhausted.
 */
import type { Context } from 'hono';
import { dateIn } from '../../domain/calendar.js';
import { InvalidCursorError } from '../../domain/cursor.js';
import type { PagingParams } from '../../domain/list-params.js';
import { canonical } from '../../domain/money.js';
import { headroomOf, portfolioPage } from '../../domain/portfolio.js';
import { planCredits, type CreditSubject } from '../../domain/plans.js';
import { PortfolioQuery, PortfolioResponse } from '../../schemas/portfolio.js';
import { liveCashPosition } from '../../store/queries/cash-position.js';
import { overdueReceivables } from '../../store/queries/daily-summary.js';
import { type PortfolioOrg, portfolioOrgs } from '../../store/queries/portfolio.js';
import type { ApiApp, AppEnv } from '../context.js';
import { connectUrl, ledgerAlertFrom } from '../envelope.js';
import { ApiError, forbidden } from '../errors.js';
import { invalidCursor, json, paging } from '../lists.js';
import { agentRoute, warn, withAlerts } from '../route.js';

export const portfolioRoute = agentRoute('READ_FORECAST', {
  path: '/api/agent/portfolio',
  summary: 'Partner keys: every client organisation, most at risk of running out of cash first',
  description:
    "Partner (advisor) keys only (a user key is 403 forbidden); no organisation needs to be named (one named is checked like everywhere, but the portfolio still covers every linked organisation: a warning says so). " +
    "One row per client organisation: cash today (its /cash-position effectiveStartingCash), the lowest closing cash of its latest BASE forecast and that week, the shortfall probability, overdue receivables (its /receivables/aged totals.overdue; null without READ_INVOICES or READ_SUMMARY) and its ledgerAlert. " +
    'Sorted by risk: organisations with a forecast first; shortfall probability, highest first (none: after every probability); headroom (minClosingCash - shortfallThreshold), lowest first; overdue receivables, largest first; then name and id. ' +
    "Costs one query credit per organisation in the page, from that organisation's allowance (`charged`); the page stops before an organisation whose credits are used up (`stoppedEarly`; nextCursor resumes there), and is 429 quota_exhausted when not even the first fits.",
  request: { query: PortfolioQuery },
  responses: { 200: json(PortfolioResponse, 'Portfolio') },
});

const PARTNER_ONLY_MESSAGE = 'The portfolio is for partner (advisor) keys.';

interface Shaped {
  org: PortfolioOrg;
  row: ReturnType<typeof rowOf>;
}

/** Closing cash below this is a shortfall: the forecast's own threshold, else the cash buffer, else 0. */
const thresholdOf = (o: PortfolioOrg) => canonical(o.forecast?.shortfall?.threshold ?? o.cashBuffer ?? '0');

/** A signed cursor whose position does not parse is still a 400 invalid_cursor. */
function pageOf<T extends Parameters<typeof portfolioPage>[0][number]>(rows: T[], after: Parameters<typeof portfolioPage>[1], limit: number) {
  try {
    return portfolioPage(rows, after, limit);
  } catch (err) {
    if (err instanceof InvalidCursorError) throw invalidCursor();
    throw err;
  }
}

function rowOf(o: PortfolioOrg, cashToday: string, overdue: string | null, now: Date, publicUrl: string) {
  const f = o.forecast;
  const threshold = f ? thresholdOf(o) : null;
  return {
    orgId: o.orgId,
    name: o.name,
    currency: o.baseCurrency,
    cashToday,
    forecastAsOfDate: f?.asOfDate ?? null,
    forecastComputedAt: f ? f.computedAt.toISOString() : null,
    minClosingCash: f?.minClosingCash ?? null,
    minClosingCashWeekIndex: f?.minClosingCashWeekIndex ?? null,
    minClosingCashWeekStart: f?.minClosingCashWeekStart ?? null,
    shortfallProbability: f?.shortfall?.probability ?? null,
    shortfallThreshold: threshold,
    headroom: f && threshold !== null ? headroomOf(f.minClosingCash, threshold) : null,
    overdueReceivables: overdue,
    ledgerAlert: ledgerAlertFrom(o.connection, now, connectUrl(publicUrl, o.orgId)) ?? null,
  };
}

/**
 * Reserves one credit per row, in order, from each organisation's allowance
 * (rows without a billing account are free); stops at the first refusal.
 * A store failure returns what was reserved and rethrows.
 */
async function charge(c: Context<AppEnv>, orgs: readonly PortfolioOrg[]) {
  const deps = c.get('deps');
  const now = deps.clock.now();
  const meterId = c.get('auth').meterId;
  const reserved: { subject: CreditSubject; reservation: string }[] = [];
  try {
    for (const [i, o] of orgs.entries()) {
      if (!o.billing) continue;
      const subject: CreditSubject = { billingAccountId: o.billing.id, meterId, orgId: o.orgId, limit: planCredits(o.billing.plan) };
      const r = await deps.limiter.reserveCredit(subject, now);
      if (!r.allowed) return { kept: i, charged: reserved.length, refused: { orgId: o.orgId, limit: subject.limit, retryAfterSeconds: r.retryAfterSeconds } };
      reserved.push({ subject, reservation: r.reservation });
    }
  } catch (err) {
    await Promise.allSettled(reserved.map((x) => deps.limiter.releaseCredit(x.subject, x.reservation)));
    throw err;
  }
  return { kept: orgs.length, charged: reserved.length, refused: null };
}

async function portfolioAnswer(c: Context<AppEnv>, q: PagingParams) {
  const auth = c.get('auth');
  // Tenancy refuses user keys (PARTNER_ONLY); this only guards the handler.
  if (auth.kind !== 'PARTNER' || !auth.partnerId) throw forbidden(PARTNER_ONLY_MESSAGE);
  if (auth.orgId) {
    const header = c.req.header('x-service-org-id')?.trim();
    warn(c, [{ parameter: header ? 'X-Service-Org-Id' : 'orgId', value: header || auth.orgId, message: 'ignored: the portfolio covers every organisation linked to the practice' }]);
  }
  const db = c.get('db');
  const now = c.get('deps').clock.now();
  const seesOverdue = auth.scopes.includes('READ_INVOICES') || auth.scopes.includes('READ_SUMMARY');

  const orgs = await portfolioOrgs(db, auth.partnerId);
  const today = new Map(orgs.map((o) => [o.orgId, dateIn(o.timezone, now)]));
  const overdue = seesOverdue ? await overdueReceivables(db, orgs.map((o) => ({ orgId: o.orgId, asOf: today.get(o.orgId)! }))) : null;
  const overdueOf = (o: PortfolioOrg) => (overdue ? (overdue.get(o.orgId) ?? '0') : null);
  const ranked = orgs.map((o) => ({
    org: o,
    orgId: o.orgId,
    name: o.name,
    forecast: o.forecast
      ? { shortfallProbability: o.forecast.shortfall?.probability ?? null, headroom: headroomOf(o.forecast.minClosingCash, thresholdOf(o)) }
      : null,
    overdue: overdueOf(o),
  }));

  // Cursors are bound to the practice and to whether overdue receivables rank the rows.
  const p = paging(c, `partner:${auth.partnerId}`, 'portfolio', { overdue: seesOverdue }, q);
  const page = pageOf(ranked, p.after, q.limit);

  // Shape every row first (a live cash position where no forecast has one), then charge: a failure spends nothing.
  const shaped: Shaped[] = [];
  for (const { org } of page.rows) {
    const cash =
      org.forecast?.effectiveStartingCash ??
      (await liveCashPosition(db, { id: org.orgId, name: org.name, timezone: org.timezone, baseCurrency: org.baseCurrency }, today.get(org.orgId)!)).effectiveStartingCash;
    shaped.push({ org, row: rowOf(org, cash, overdueOf(org), now, c.get('deps').publicUrl()) });
  }
  const paid = await charge(c, shaped.map((s) => s.org));
  if (paid.refused && paid.kept === 0) {
    const r = paid.refused;
    throw new ApiError(
      429,
      'quota_exhausted',
      `All ${r.limit} query credits of the rolling 5-hour window of organisation ${r.orgId} (the first of this page) are used; the next frees in ${r.retryAfterSeconds} seconds.`,
      { retryAfterSeconds: r.retryAfterSeconds },
    );
  }
  const next = paid.kept < shaped.length ? page.positions[paid.kept - 1]! : page.next;
  return {
    orgs: shaped.slice(0, paid.kept).map((s) => s.row),
    nextCursor: p.nextCursor(next),
    totalCount: page.totalCount,
    charged: paid.charged,
    ...(paid.refused
      ? {
          stoppedEarly: {
            reason: 'quota_exhausted' as const,
            orgId: paid.refused.orgId,
            retryAfterSeconds: paid.refused.retryAfterSeconds,
            message: `The query credits of organisation ${paid.refused.orgId} are used up: the page stops before it; pass nextCursor after ${paid.refused.retryAfterSeconds} seconds to resume there.`,
          },
        }
      : {}),
  };
}

export function registerPortfolio(app: ApiApp) {
  return app.openapi(portfolioRoute, async (c) => c.json(withAlerts(c, await portfolioAnswer(c, c.req.valid('query'))), 200));
}
