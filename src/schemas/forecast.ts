/**
 * Schemas of the forecast endpoints (spec 2.2 CashPositionResponse, 2.3
 * ForecastWeek / ForecastResponse, 2.8 DailySummaryResponse; decisions.md
 * for the sub-objects the spec leaves open): GET /api/agent/cash-position,
 * /api/agent/forecast, /api/agent/daily-summary. docs/forecast.md explains
 * every figure.
 */
import { z } from '@hono/zod-openapi';
import { AgentNote, alertFields, DateOnly, DateTime, Money } from './common.js';
import { intParam, textParam } from './query.js';

import { SENSITIVE_ACCOUNT, SENSITIVE_CONTACT } from '../domain/sensitive.js';

export { SENSITIVE_ACCOUNT, SENSITIVE_CONTACT };

// ---------------------------------------------------------------------------
// Query parameters
// ---------------------------------------------------------------------------

export const FORECAST_MAX_WEEKS = 13;

export const ForecastQuery = z.object({
  scenarioId: textParam({
    name: 'scenarioId',
    nonEmpty: true,
    maxLength: 100,
    description:
      "The scenario to read (default: the organisation's BASE scenario). Built-in ids: base, best, worst; operators add CUSTOM ones. " +
      'An empty or over-long value is 400 bad_request; an id that is not a scenario of this organisation is 404 not_found.',
    example: 'base',
  }),
  weeks: intParam({
    name: 'weeks',
    min: 1,
    max: FORECAST_MAX_WEEKS,
    default: FORECAST_MAX_WEEKS,
    description: `How many of the forecast weeks to return, from week 1: an integer 1-${FORECAST_MAX_WEEKS} (default ${FORECAST_MAX_WEEKS}); anything else is 400 bad_request naming weeks. endingCash, minClosingCash, totalInflow and totalOutflow cover the returned weeks.`,
    example: 13,
  }),
});

// ---------------------------------------------------------------------------
// Cash position (spec 2.2)
// ---------------------------------------------------------------------------

export const CashPositionAccount = z
  .object({
    id: z.string(),
    name: z.string().openapi({ description: '`Sensitive account` for a sensitive account without READ_SENSITIVE.' }),
    currency: z.string(),
    reconciledBalance: Money,
    statementBalance: Money,
    balanceSource: z.enum(['STATEMENT', 'RECONCILED']),
    effectiveBalance: Money.openapi({
      description:
        'What this account contributes to effectiveStartingCash without an override: its statementBalance (the feed statement with balanceSource STATEMENT, else the reconciled balance plus its unreconciled movements dated up to asOfDate).',
    }),
    basis: z.string().optional().openapi({
      description: 'Which balance the forecast starts this account from, why, and by how much it differs from the reconciled balance. Absent on snapshots computed before it existed.',
    }),
  })
  .openapi('CashPositionAccount');

export const CashPositionResponse = z
  .object({
    asOfDate: DateOnly,
    startingCash: Money.openapi({ description: 'Effective opening cash (after operator override and auto-adjustment); equals effectiveStartingCash.' }),
    source: z.enum(['manual', 'ledger_reconciled']).openapi({ description: 'manual when the operator has set an opening-cash override.' }),
    ledgerReconciledTotal: Money.openapi({
      description:
        "Plain sum of reconciled bank balances across the organisation's RECONCILED accounts (balanceSource RECONCILED), with no override or adjustment. Compare with effectiveStartingCash to detect drift.",
    }),
    effectiveStartingCash: Money.openapi({
      description: 'Opening cash used by the forecast engine, after override and auto-detected unreconciled-transaction adjustment.',
    }),
    adjustment: Money.openapi({
      description: 'effectiveStartingCash minus its base (the override amount with source manual, else ledgerReconciledTotal).',
    }),
    currency: z.string().optional(),
    computedAt: DateTime.optional().openapi({ description: 'When the forecast snapshot this position comes from was computed; absent when computed at read time.' }),
    accounts: z.array(CashPositionAccount),
    redactedItemCount: z.number().int().openapi({ description: 'accounts rows whose name was rewritten. Always 0 with READ_SENSITIVE.' }),
    notesForAgent: z.array(AgentNote).optional(),
    ...alertFields,
  })
  .openapi('CashPositionResponse');
export type CashPositionResponse = z.infer<typeof CashPositionResponse>;

// ---------------------------------------------------------------------------
// Forecast (spec 2.3)
// ---------------------------------------------------------------------------

export const ForecastCategory = z
  .object({
    name: z.string().openapi({ description: '`Sensitive account` for a sensitive account without READ_SENSITIVE.' }),
    code: z.string().nullable(),
    inflow: Money,
    outflow: Money,
  })
  .openapi('ForecastCategory');

export const ForecastWeek = z
  .object({
    weekStart: DateOnly.openapi({ description: "A Monday; week 1 holds today in the organisation's time zone." }),
    weekEnd: DateOnly,
    opening: Money,
    inflow: Money,
    guaranteedInflow: Money.optional().openapi({
      description: 'Subset of inflow from guaranteed sources (receivables, recurring, manual, pipeline). Absent on engineVersion=1 snapshots.',
    }),
    forecastInflow: Money.optional().openapi({
      description: 'Subset of inflow from statistical items only (predicted repeat purchases from the hazard model). engineVersion=1 snapshots read as 0.',
    }),
    outflow: Money,
    net: Money,
    closing: Money.openapi({ description: 'opening + inflow - outflow, exactly.' }),
    itemIds: z.array(z.string()),
    overdueItemIds: z.array(z.string()).optional(),
    probabilityWeighted: z.boolean().optional(),
    categories: z
      .object({ accounts: z.record(z.string(), ForecastCategory) })
      .optional()
      .openapi({ description: 'Per-account inflow and outflow of the week, keyed by account id; names subject to rewriting.' }),
  })
  .openapi('ForecastWeek');

export const ForecastResponse = z
  .object({
    scenarioId: z.string(),
    scenarioName: z.string().optional(),
    scenarioKind: z.enum(['BASE', 'BEST', 'WORST', 'CUSTOM']).optional(),
    engineVersion: z.number().int().optional(),
    computedAt: DateTime,
    asOfDate: DateOnly.optional(),
    currency: z.string().optional(),
    weeks: z.array(ForecastWeek),
    startingCash: Money,
    endingCash: Money,
    minClosingCash: Money.optional(),
    minClosingCashWeekIndex: z.number().int().optional().openapi({ description: '0-based index into weeks.' }),
    totalInflow: Money.optional(),
    totalOutflow: Money.optional(),
    redactedItemCount: z.number().int().openapi({
      description:
        'Sum across all weeks of (week, account) pairs whose account name was rewritten to `Sensitive account` inside weeks[].categories.accounts[id].name. Always 0 with READ_SENSITIVE. Amounts are never masked.',
    }),
    notesForAgent: z.array(AgentNote).optional(),
    ...alertFields,
  })
  .openapi('ForecastResponse');
export type ForecastResponse = z.infer<typeof ForecastResponse>;

// ---------------------------------------------------------------------------
// Daily summary (spec 2.8)
// ---------------------------------------------------------------------------

export const DailySummaryContactEvent = z
  .object({
    contactName: z.string().openapi({ description: '`Sensitive contact` when the contact is sensitive and the key lacks READ_SENSITIVE; `No contact` for money moved without one.' }),
    amount: Money.openapi({ description: 'Never masked; positive in both lists.' }),
    date: DateTime.openapi({ description: 'The actual money-moved date (midnight UTC of that day).' }),
  })
  .openapi('DailySummaryContactEvent');

const SummaryBucket = z.object({ count: z.number().int(), amount: Money }).openapi('SummaryBucket');

export const DailySummaryResponse = z
  .object({
    orgName: z.string(),
    generatedAt: DateTime,
    asOfDate: DateOnly,
    cashToday: z
      .object({
        amount: Money.openapi({ description: 'effectiveStartingCash as of today (spec 2.2).' }),
        currency: z.string(),
        source: z.enum(['manual', 'ledger_reconciled']),
      })
      .openapi({ description: 'Current cash position.' }),
    bankAccounts: z.number().int().openapi({ description: 'Count of active bank accounts.' }),
    last7d: z
      .object({
        inflow: Money,
        outflow: Money,
        net: Money,
        topInflows: z.array(DailySummaryContactEvent).max(5),
        topOutflows: z.array(DailySummaryContactEvent).max(5),
      })
      .openapi({ description: 'The 7 days ending today: money in, out, net, and the 5 largest movements each way by the day the money moved.' }),
    ar: z
      .object({
        current: SummaryBucket,
        days30: SummaryBucket,
        days60: SummaryBucket,
        days90: SummaryBucket,
        days90plus: SummaryBucket,
        total: SummaryBucket,
        unallocatedCredit: SummaryBucket.optional().openapi({
          description:
            'Receivable credit notes and overpayments not yet allocated to an invoice (remaining credit, base currency). total.amount minus this is the balance of the ledger\'s Accounts Receivable account (account-balances), the net figure a customer ledger shows.',
        }),
        unallocatedPrepayments: SummaryBucket.optional().openapi({
          description:
            'Prepayments received and not yet allocated to an invoice (remaining credit, base currency). Like unallocatedCredit they reduce what customers will still pay, but Xero posts them to the account their lines name (income in advance), not Accounts Receivable.',
        }),
      })
      .openapi({
        description:
          'Open AUTHORISED invoices by days past due as at today in the organisation\'s time zone, each bucket {count, amount} with amount the sum of what is still owed (amountDue, in the base currency): current = not yet due (due today or later), days30 = 1-30, days60 = 31-60, days90 = 61-90, days90plus = over 90 days past due; total = their sum.',
      }),
    forecast13w: z
      .object({
        endingCash: Money.nullable(),
        lowestClosingCash: Money.nullable(),
        lowestWeekStart: DateOnly.nullable(),
        breakEvenDate: DateOnly.nullable().openapi({
          description:
            'When cash is back at zero or above after its lowest point: the end of the first week after the lowest point (today\'s cash, then each week\'s closing cash; the last such point on a tie) whose closing cash is at or above zero. Null when cash never goes below zero, and null when it does not recover inside the window. All fields null before the first forecast is computed.',
        }),
      })
      .openapi({ description: "From the latest BASE forecast snapshot." }),
    anomalies: z.object({ pending: z.number().int() }).openapi({
      description: 'Pending anomalies: unusually large movements of the last 7 days (docs/forecast.md#daily-summary).',
    }),
    narrative: z.string().openapi({ description: 'Deterministic 2 to 4 sentence prose.' }),
    notesForAgent: z.array(AgentNote).optional(),
    redactedItemCount: z.number().int().openapi({ description: 'topInflows and topOutflows rows renamed. Totals are never masked.' }),
    ...alertFields,
  })
  .openapi('DailySummaryResponse');
export type DailySummaryResponse = z.infer<typeof DailySummaryResponse>;
