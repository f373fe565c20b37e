/**
 * Schemas of GET /api/agent/portfolio (issue 19; docs/portfolio.md): a
 * partner key's client organisations, one row each, most at risk of running
 * out of cash first, with the figures each organisation's own endpoints give.
 */
import { z } from '@hono/zod-openapi';
import { alertFields, DateOnly, DateTime, LedgerAlert, Money } from './common.js';
import { intParam, textParam } from './query.js';

const PORTFOLIO_DEFAULT_LIMIT = 25;
const PORTFOLIO_MAX_LIMIT = 100;

export const PortfolioQuery = z
  .object({
    cursor: textParam({
      name: 'cursor',
      description:
        'Opaque value from a prior nextCursor. Signed and bound to the partner practice and this endpoint; any other use is 400 invalid_cursor.',
    }),
    limit: intParam({
      name: 'limit',
      min: 1,
      cap: PORTFOLIO_MAX_LIMIT,
      default: PORTFOLIO_DEFAULT_LIMIT,
      description: `Organisations per page (each costs one query credit): default ${PORTFOLIO_DEFAULT_LIMIT}; values above ${PORTFOLIO_MAX_LIMIT} are capped at ${PORTFOLIO_MAX_LIMIT}; below 1 or not an integer is 400.`,
      example: 10,
    }),
  })
  // The lists' paging parameters (src/api/lists.ts): no autoPaginate (every row is charged), no totals.
  .transform((q) => ({ ignored: [], cursor: q.cursor, limit: q.limit, autoPaginate: false, totals: false }));

export const PortfolioRow = z
  .object({
    orgId: z.string().openapi({ description: 'The client organisation: pass it as orgId (or X-Service-Org-Id) to any other endpoint to drill into it.' }),
    name: z.string().openapi({ description: "The organisation's name (never a contact's)." }),
    currency: z.string().openapi({ description: "The organisation's base currency: the currency of every amount of the row." }),
    cashToday: Money.openapi({ description: "Cash today: the organisation's /cash-position effectiveStartingCash (the latest BASE forecast's opening cash; before any forecast, computed now)." }),
    forecastAsOfDate: DateOnly.nullable().openapi({ description: "The as-of date of the organisation's latest BASE forecast; null when none is computed yet." }),
    forecastComputedAt: DateTime.nullable().openapi({ description: 'When that forecast was computed; null when none is.' }),
    minClosingCash: Money.nullable().openapi({ description: "The lowest weekly closing cash of that forecast: /forecast's minClosingCash. Null without a forecast." }),
    minClosingCashWeekIndex: z.number().int().nullable().openapi({ description: "Its week, 0-based: /forecast's minClosingCashWeekIndex. Null without a forecast." }),
    minClosingCashWeekStart: DateOnly.nullable().openapi({ description: 'The Monday that week starts on. Null without a forecast.' }),
    shortfallProbability: z.number().min(0).max(1).nullable().openapi({
      description: "/forecast's shortfall.probability: the chance closing cash goes below the shortfall threshold in the 13 weeks. Null without a forecast, or when the forecast has no bands (before engine version 3).",
    }),
    shortfallThreshold: Money.nullable().openapi({ description: "Closing cash below this is a shortfall: the forecast's shortfall.threshold (the cash buffer, else 0). Null without a forecast." }),
    headroom: Money.nullable().openapi({ description: 'minClosingCash - shortfallThreshold: negative when the forecast goes below the threshold. Null without a forecast.' }),
    overdueReceivables: Money.nullable().openapi({
      description: "Receivables past due today (the organisation's time zone): /receivables/aged totals.overdue, the daily summary's ar less current. Null when the key holds neither READ_INVOICES nor READ_SUMMARY.",
    }),
    // A union, not .nullable(): the OpenAPI generator turns a nullable $ref into an allOf that no value satisfies.
    ledgerAlert: z.union([LedgerAlert, z.null()]).openapi({
      description: "The organisation's ledgerAlert, the one its own answers carry (/status, /forecast, ...); null when its ledger connection is healthy. Tell the user: that client's figures may be stale.",
    }),
  })
  .openapi('PortfolioRow');

export const PortfolioResponse = z
  .object({
    orgs: z.array(PortfolioRow).openapi({
      description:
        'Most at risk first: shortfallProbability (highest first; a forecast without bands after every probability), then headroom (lowest first), then overdueReceivables (largest first), then name and id; organisations without a forecast last.',
    }),
    nextCursor: z.string().nullable().openapi({ description: 'Opaque cursor for the next page; null on the last page.' }),
    totalCount: z.number().int().openapi({ description: 'Client organisations linked to the practice.' }),
    charged: z.number().int().openapi({
      description: 'Query credits this answer spent: one per organisation of the page, each from that organisation\'s own allowance (an organisation without a billing account is not metered).',
    }),
    stoppedEarly: z
      .object({
        reason: z.literal('quota_exhausted').openapi({ description: 'Why the page stopped: that organisation\'s query credits for this practice are used up.' }),
        orgId: z.string().openapi({ description: 'The first organisation left out: its credits for this practice are used up.' }),
        retryAfterSeconds: z.number().int().openapi({ description: 'Seconds until a credit of that organisation frees.' }),
        message: z.string().openapi({ description: 'The same, for people.' }),
      })
      .optional()
      .openapi({ description: 'Present when the page stops before `limit` rows because an organisation\'s credits ran out: nextCursor resumes at that organisation. Absent otherwise.' }),
    ...alertFields,
  })
  .openapi('PortfolioResponse');
