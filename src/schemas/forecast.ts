/**
 * Schemas of the forecast endpoints (spec 2.2 CashPositionResponse, 2.3
 * ForecastWeek / ForecastResponse, 2.8 DailySummaryResponse; decisions.md
 * for the sub-objects the spec leaves open): GET /api/agent/cash-position,
 * /api/agent/forecast, /api/agent/daily-summary. docs/forecast.md explains
 * every figure.
 */
import { z } from '@hono/zod-openapi';
import { AgentNote, alertFields, DateOnly, DateTime, Money } from './common.js';
import { decimalParam, enumParam, intParam, listParam, signedIntParam, textParam } from './query.js';
import { isCalendarDate } from '../domain/calendar.js';
import type { OneOff } from '../domain/forecast/what-if.js';

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
  detail: enumParam({
    name: 'detail',
    values: ['full', 'summary'] as const,
    default: 'full',
    description:
      'full (the default): every field of every week. summary: each week without itemIds, overdueItemIds and categories (the bulk of a large answer: thousands of item ids), keeping the figures, bands, shortfall, calibration and notes; an agent\'s first call.',
    example: 'summary',
  }),
  // What if (issue 18; docs/forecast.md#what-if): any of these computes the forecast for this request only.
  receiptsDelayDays: signedIntParam({
    name: 'receiptsDelayDays',
    min: -90,
    max: 365,
    description:
      "What if customers pay later: days added to every expected customer receipt (open invoices, repeat purchases, scheduled invoices; negative: earlier), from -90 to 365. Like any what-if parameter, the forecast is computed for this request only (whatIf says so) and nothing is stored.",
    example: 14,
  }),
  excludeContact: listParam<string>({
    name: 'excludeContact',
    max: 50,
    itemDescription: 'A contact id (as in the contacts list).',
    item: (v) => (v.length > 100 ? { error: 'is not a contact id (at most 100 characters)' } : { value: v }),
    description:
      "What if these customers never pay: their expected receipts (open invoices, repeat purchases, scheduled invoices) are left out. Contact ids, the parameter repeated or comma-separated, at most 50. An id that is no customer of the organisation changes nothing (whatIf.excludedReceiptCount says how many receipts were left out). What-if: computed for this request only.",
    example: 'f1c2e7a0-5b1d-4c8e-9a4f-2d3b6c7e8f90',
  }),
  inflowPercent: decimalParam({
    name: 'inflowPercent',
    min: 0,
    max: 1000,
    decimals: 2,
    description: 'What if every inflow were this percentage of the forecast (90: 10% less; 100: unchanged), 0 to 1000, at most 2 decimals; on top of the scenario\'s own factor. Not applied to oneOff lines. What-if: computed for this request only.',
    example: 90,
  }),
  outflowPercent: decimalParam({
    name: 'outflowPercent',
    min: 0,
    max: 1000,
    decimals: 2,
    description: 'What if every outflow were this percentage of the forecast (110: 10% more), 0 to 1000, at most 2 decimals; on top of the scenario\'s own factor. Not applied to oneOff lines. What-if: computed for this request only.',
    example: 110,
  }),
  oneOff: listParam<OneOff>({
    name: 'oneOff',
    max: 20,
    itemDescription: 'AMOUNT@YYYY-MM-DD: a signed amount (negative: a payment) with at most 2 decimals, and the day it moves.',
    item: parseOneOff,
    description:
      'What if there were these one-off movements: AMOUNT@YYYY-MM-DD, positive a receipt and negative a payment (-25000@2026-12-15: a tax bill of 25,000 that day), the parameter repeated or comma-separated, at most 20. A day before today counts in the first week; one after the 13 weeks changes nothing. The amounts are as given (inflowPercent and outflowPercent do not scale them). What-if: computed for this request only.',
    example: '-25000@2026-12-15',
  }),
});

/** AMOUNT@YYYY-MM-DD: a one-off line of a what-if, or why it is not one. */
function parseOneOff(v: string): { value: OneOff } | { error: string } {
  const m = /^([+-]?)(\d{1,12})(?:\.(\d{1,2}))?@(\d{4}-\d{2}-\d{2})$/.exec(v);
  if (!m) return { error: 'must be AMOUNT@YYYY-MM-DD (a signed amount with at most 2 decimals, e.g. -25000@2026-12-15)' };
  if (!isCalendarDate(m[4]!)) return { error: 'has no real date (YYYY-MM-DD)' };
  const digits = `${m[2]!.replace(/^0+(?=\d)/, '')}${m[3] ? `.${m[3].replace(/0+$/, '')}` : ''}`.replace(/\.$/, '');
  if (/^0(\.0*)?$/.test(digits)) return { error: 'must not be zero' };
  return { value: { amount: `${m[1] === '-' ? '-' : ''}${digits}`, date: m[4]! } };
}

// ---------------------------------------------------------------------------
// Cash position (spec 2.2)
// ---------------------------------------------------------------------------

export const CashPositionAccount = z
  .object({
    id: z.string().openapi({ description: 'Ledger bank account id (as on bank-accounts).' }),
    name: z.string().openapi({ description: '`Sensitive account` for a sensitive account without READ_SENSITIVE.' }),
    currency: z.string().openapi({ description: '3-letter ISO currency code of the account.' }),
    reconciledBalance: Money.openapi({ description: "The ledger's balance of reconciled transactions (the same value as on bank-accounts)." }),
    statementBalance: Money.openapi({
      description: "The bank statement's balance when a feed statement is known, else reconciled plus unreconciled bank transactions (the same value as on bank-accounts).",
    }),
    balanceSource: z.enum(['STATEMENT', 'RECONCILED']).openapi({ description: 'Which balance the forecast uses for this account.' }),
    effectiveBalance: Money.openapi({
      description:
        'What this account contributes to effectiveStartingCash without an override: its statementBalance (the feed statement with balanceSource STATEMENT, else the reconciled balance plus its unreconciled movements dated up to asOfDate).',
    }),
    basis: z.string().optional().openapi({
      description: 'Which balance the forecast starts this account from, why, and by how much it differs from the reconciled balance. Absent on snapshots computed before it existed.',
    }),
  })
  .openapi('CashPositionAccount', { description: "A bank account's part of the cash position." });

export const CashPositionResponse = z
  .object({
    asOfDate: DateOnly.openapi({ description: "The day of the position: today in the organisation's time zone." }),
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
    currency: z.string().optional().openapi({ description: "The organisation's base currency, in which the totals are given." }),
    computedAt: DateTime.optional().openapi({ description: 'When the forecast snapshot this position comes from was computed; absent when computed at read time.' }),
    accounts: z.array(CashPositionAccount).openapi({ description: 'Per-account breakdown.' }),
    redactedItemCount: z.number().int().openapi({ description: 'accounts rows whose name was rewritten. Always 0 with READ_SENSITIVE.' }),
    notesForAgent: z.array(AgentNote).optional().openapi({ description: 'Notes for the agent about the cash position (drift, stale balances); pass them on when relevant.' }),
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
    code: z.string().nullable().openapi({ description: "The account's code; null when it has none." }),
    inflow: Money.openapi({ description: 'Money expected in on this account in the week.' }),
    outflow: Money.openapi({ description: 'Money expected out on this account in the week.' }),
  })
  .openapi('ForecastCategory', { description: "An account's part of a forecast week." });

export const ForecastBand = z
  .object({
    p10: Money.openapi({ description: '10th percentile: in 1 future out of 10 the figure is lower.' }),
    p50: Money.openapi({ description: 'Median of the simulated futures. Not the point forecast (which is the expected value), though usually close.' }),
    p90: Money.openapi({ description: '90th percentile: in 1 future out of 10 the figure is higher.' }),
  })
  .openapi('ForecastBand', { description: 'An 80% band and its median (docs/forecast.md#bands). Statistical estimates, in whole cents.' });

export const WeekBands = z
  .object({
    inflow: ForecastBand,
    outflow: ForecastBand,
    closing: ForecastBand,
    calibrated: z.boolean().openapi({
      description:
        "Whether the organisation's replayed history calibrated these bands (calibration is not null). False: the simulation's own bands, not yet proven on this organisation.",
    }),
  })
  .openapi('WeekBands');

export const Shortfall = z
  .object({
    threshold: Money.openapi({ description: "Closing cash below this is a shortfall: the organisation's cash buffer, else 0." }),
    probability: z.number().min(0).max(1).openapi({ description: 'Probability that closing cash falls below the threshold in at least one of the 13 weeks (whatever `weeks` returns).' }),
    firstLikelyWeekIndex: z.number().int().nullable().openapi({
      description:
        'The week (0-based index into weeks) in which a shortfall most often starts, among the simulated futures that have one; when the calibrated chance is above 0 but no single future runs short, the week whose closing P10 is lowest; null when probability is 0.',
    }),
    cushion90: Money.optional().openapi({
      description:
        "The cash that, had the business it today, keeps closing cash at or above the threshold in every one of the 13 weeks in 9 futures of 10 (0 when 9 futures in 10 never fall below): the threshold less the 10th percentile of the lowest closing over the weeks, calibrated on the organisation's history; before that can be calibrated, the least of the simulated futures' largest shortfalls that covers 9 in 10 of them, the weeks read at their calibrated bands. Never less than the largest gap between the threshold and a week's closing P10 (which counts one week at a time). Absent in forecasts stored before it was added.",
    }),
  })
  .openapi('Shortfall', { description: 'The probability of running short (docs/forecast.md#bands).' });

export const Calibration = z
  .object({
    method: z.string().openapi({ description: 'How the bands are calibrated: simulation+adaptive-conformal (docs/forecast.md#calibration).' }),
    cutoffs: z.number().int().openapi({ description: "Past cut-offs of this organisation's history replayed to calibrate." }),
    coverage80: z.number().nullable().openapi({
      description: 'The measured share of replayed weeks whose calibrated 80% band, as it stood at the time, held what actually happened (inflow, outflow and closing together).',
    }),
    asOf: DateOnly.openapi({ description: 'The day the calibration was computed (nightly).' }),
  })
  .openapi('Calibration');

export const ForecastWeek = z
  .object({
    weekStart: DateOnly.openapi({ description: "A Monday; week 1 holds today in the organisation's time zone." }),
    weekEnd: DateOnly.openapi({ description: 'The Sunday ending the week.' }),
    opening: Money.openapi({ description: "Cash at the start of the week: startingCash for week 1, else the previous week's closing." }),
    inflow: Money.openapi({ description: 'Money expected in during the week (the expected value over the forecast items).' }),
    guaranteedInflow: Money.optional().openapi({
      description: 'Subset of inflow from guaranteed sources (receivables, recurring, manual, pipeline). Absent on engineVersion=1 snapshots.',
    }),
    forecastInflow: Money.optional().openapi({
      description: 'Subset of inflow from statistical items only (predicted repeat purchases from the hazard model). engineVersion=1 snapshots read as 0.',
    }),
    outflow: Money.openapi({ description: 'Money expected out during the week.' }),
    net: Money.openapi({ description: 'inflow - outflow.' }),
    closing: Money.openapi({ description: 'opening + inflow - outflow, exactly.' }),
    itemIds: z.array(z.string()).optional().openapi({ description: 'The ids of the documents and series in the week. Always present with detail=full (the default); left out with detail=summary.' }),
    overdueItemIds: z.array(z.string()).optional().openapi({ description: 'The ids of the documents already past due, counted in the week (past-due amounts land in week 1). Left out with detail=summary.' }),
    probabilityWeighted: z.boolean().optional().openapi({ description: "True when some amount of the week is weighted by a probability (an expected value, such as a predicted repeat purchase)." }),
    categories: z
      .object({ accounts: z.record(z.string(), ForecastCategory).openapi({ description: 'Keyed by ledger account id.' }) })
      .optional()
      .openapi({ description: 'Per-account inflow and outflow of the week, keyed by account id; names subject to rewriting.' }),
    bands: WeekBands.optional().openapi({ description: 'P10/P50/P90 of inflow, outflow and closing cash. Absent on snapshots before engineVersion 3.' }),
    shortfallProbability: z.number().min(0).max(1).optional().openapi({
      description: 'Probability that closing cash is below the shortfall threshold this week. Absent on snapshots before engineVersion 3.',
    }),
  })
  .openapi('ForecastWeek', { description: 'One week of the forecast, Monday to Sunday.' });

/** What a what-if forecast was asked (as understood) and what it changes (issue 18). */
export const WhatIfEcho = z
  .object({
    computed: z.literal('this_request').openapi({ description: 'The forecast was computed for this request from the books as they are now; nothing was stored, and the next plain GET /forecast is unchanged.' }),
    receiptsDelayDays: z.number().int().openapi({ description: 'Days added to every expected customer receipt (0: none).' }),
    excludeContact: z.array(z.string()).openapi({ description: 'Contacts whose expected receipts were left out.' }),
    excludedReceiptCount: z.number().int().openapi({ description: 'Expected receipts (open invoices, repeat-purchase and scheduled series) of those contacts that were left out.' }),
    inflowPercent: z.number().openapi({ description: 'Inflows as a percentage of the forecast (100: unchanged).' }),
    outflowPercent: z.number().openapi({ description: 'Outflows as a percentage of the forecast (100: unchanged).' }),
    oneOff: z
      .array(
        z.object({
          id: z.string().openapi({ description: "The line's id in its week's itemIds." }),
          amount: Money.openapi({ description: 'Signed: positive a receipt, negative a payment.' }),
          date: DateOnly.openapi({ description: 'The day it moves.' }),
        }),
      )
      .openapi({ description: 'The one-off lines added.' }),
    baseline: z
      .object({
        endingCash: Money.openapi({ description: 'Closing cash of the last returned week without the what-if.' }),
        minClosingCash: Money.openapi({ description: 'The lowest closing cash over the returned weeks without the what-if.' }),
        minClosingCashWeekIndex: z.number().int().openapi({ description: 'Its week, 0-based.' }),
      })
      .openapi({ description: 'The same scenario computed in the same request from the same books without the what-if (its point forecast): the difference is the what-if\'s alone.' }),
    change: z
      .object({
        endingCash: Money.openapi({ description: 'endingCash minus baseline.endingCash.' }),
        minClosingCash: Money.openapi({ description: 'minClosingCash minus baseline.minClosingCash.' }),
      })
      .openapi({ description: 'What the what-if changes, exactly.' }),
  })
  .openapi('WhatIf');

export const ForecastResponse = z
  .object({
    scenarioId: z.string().openapi({ description: 'The scenario forecast (the scenarioId parameter; base by default).' }),
    scenarioName: z.string().optional().openapi({ description: "The scenario's name." }),
    scenarioKind: z.enum(['BASE', 'BEST', 'WORST', 'CUSTOM']).optional().openapi({ description: 'BASE, BEST and WORST are built in; operators add CUSTOM ones.' }),
    engineVersion: z.number().int().optional().openapi({
      description: 'The forecast engine version of the snapshot: 1 lacks guaranteedInflow and forecastInflow; bands, shortfall and calibration come with 3.',
    }),
    computedAt: DateTime.openapi({ description: 'When the forecast snapshot was computed (nightly, and after each ledger sync).' }),
    asOfDate: DateOnly.optional().openapi({ description: "The day the forecast starts: today in the organisation's time zone when it was computed." }),
    currency: z.string().optional().openapi({ description: "The organisation's base currency, in which every amount is given." }),
    weeks: z.array(ForecastWeek).openapi({ description: 'The rolling forecast, week 1 first: 13 weeks, or as many as the weeks parameter asks.' }),
    startingCash: Money.openapi({ description: "Cash the forecast starts from: the cash position's effectiveStartingCash." }),
    endingCash: Money.openapi({ description: 'Closing cash of the last returned week.' }),
    minClosingCash: Money.optional().openapi({ description: 'The lowest closing cash over the returned weeks (see minClosingCashWeekIndex).' }),
    minClosingCashWeekIndex: z.number().int().optional().openapi({ description: '0-based index into weeks.' }),
    totalInflow: Money.optional().openapi({ description: 'Sum of inflow over the returned weeks.' }),
    totalOutflow: Money.optional().openapi({ description: 'Sum of outflow over the returned weeks.' }),
    redactedItemCount: z.number().int().openapi({
      description:
        'Sum across all weeks of (week, account) pairs whose account name was rewritten to `Sensitive account` inside weeks[].categories.accounts[id].name. Always 0 with READ_SENSITIVE. Amounts are never masked.',
    }),
    notesForAgent: z.array(AgentNote).optional().openapi({ description: 'Notes for the agent about the forecast (seasonality, trends, concentration, uncertainty); pass them on when relevant.' }),
    shortfall: Shortfall.optional().openapi({ description: 'Absent on snapshots before engineVersion 3.' }),
    calibration: Calibration.nullable().optional().openapi({
      description: "This organisation's measured calibration of the bands; null when its history is too short to calibrate (the bands are then marked calibrated: false). Absent before engineVersion 3.",
    }),
    whatIf: WhatIfEcho.optional().openapi({ description: 'Present only on a what-if (any of receiptsDelayDays, excludeContact, inflowPercent, outflowPercent, oneOff): the parameters as understood and the same forecast without them. Absent on a plain forecast.' }),
    ...alertFields,
  })
  .openapi('ForecastResponse');
export type ForecastResponse = z.infer<typeof ForecastResponse>;

// ---------------------------------------------------------------------------
// Scenarios (issue 19)
// ---------------------------------------------------------------------------

export const ScenarioItem = z
  .object({
    id: z.string().openapi({ description: "The forecast's scenarioId." }),
    name: z.string().openapi({ description: "The scenario's name." }),
    kind: z.enum(['BASE', 'BEST', 'WORST', 'CUSTOM']).openapi({ description: 'BASE, BEST and WORST are built in; operators add CUSTOM ones.' }),
    adjustments: z
      .object({
        inflowFactor: z.string().optional().openapi({ description: 'Multiplies every inflow (a decimal).' }),
        outflowFactor: z.string().optional().openapi({ description: 'Multiplies every outflow (a decimal).' }),
        paymentDelayShiftDays: z.number().int().optional().openapi({ description: "Days added to every customer's payment delay (negative: earlier)." }),
        excludedItemIds: z.array(z.string()).optional().openapi({ description: 'Documents, orders, manual lines or series left out.' }),
        manualItems: z
          .array(
            z.object({
              id: z.string().openapi({ description: 'Id of the manual line.' }),
              date: DateOnly.openapi({ description: 'The day the money moves.' }),
              amount: Money.openapi({ description: 'Signed: positive in, negative out.' }),
              description: z.string().optional().openapi({ description: "The operator's note of what the line is." }),
            }),
          )
          .optional().openapi({ description: 'Extra manual lines of this scenario only (signed: positive in).' }),
      })
      .openapi({ description: 'What the scenario changes against the plain forecast (docs/forecast.md#scenarios); BASE changes nothing.' }),
    latestForecast: z
      .object({
        computedAt: DateTime.openapi({ description: 'When that forecast was computed.' }),
        asOfDate: DateOnly.openapi({ description: 'The day that forecast starts.' }),
        endingCash: Money.openapi({ description: 'Closing cash of its week 13.' }),
        minClosingCash: Money.openapi({ description: 'Its lowest closing cash over the 13 weeks.' }),
        shortfallProbability: z.number().nullable().openapi({ description: 'shortfall.probability of that forecast; null before engineVersion 3.' }),
      })
      .nullable()
      .openapi({ description: "The headline of the scenario's latest forecast (GET /forecast?scenarioId= for the weeks); null before its first recompute." }),
  })
  .openapi('ScenarioItem', { description: 'A forecast scenario and the headline of its latest forecast.' });

export const ScenariosResponse = z
  .object({
    scenarios: z.array(ScenarioItem).openapi({ description: 'BASE, BEST and WORST first, then the CUSTOM ones by id.' }),
    ...alertFields,
  })
  .openapi('ScenariosResponse');

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

const SummaryBucket = z
  .object({
    count: z.number().int().openapi({ description: 'Documents in the bucket.' }),
    amount: Money.openapi({ description: 'Their amount, in the base currency (ex-tax for PAID, gross for the others).' }),
  })
  .openapi('SummaryBucket', { description: 'A count of documents and their amount.' });

export const DailySummaryResponse = z
  .object({
    orgName: z.string().openapi({ description: "The organisation's name." }),
    generatedAt: DateTime.openapi({ description: 'When this answer was put together.' }),
    asOfDate: DateOnly.openapi({ description: "Today in the organisation's time zone." }),
    cashToday: z
      .object({
        amount: Money.openapi({ description: 'effectiveStartingCash as of today (spec 2.2).' }),
        currency: z.string().openapi({ description: "The organisation's base currency." }),
        source: z.enum(['manual', 'ledger_reconciled']).openapi({ description: 'manual when the operator has set an opening-cash override.' }),
      })
      .openapi({ description: 'Current cash position.' }),
    bankAccounts: z.number().int().openapi({ description: 'Count of active bank accounts.' }),
    last7d: z
      .object({
        inflow: Money.openapi({ description: 'Money received in the 7 days.' }),
        outflow: Money.openapi({ description: 'Money paid out in the 7 days.' }),
        net: Money.openapi({ description: 'inflow - outflow.' }),
        topInflows: z.array(DailySummaryContactEvent).max(5).openapi({ description: 'The 5 largest receipts, largest first.' }),
        topOutflows: z.array(DailySummaryContactEvent).max(5).openapi({ description: 'The 5 largest payments, largest first.' }),
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
        endingCash: Money.nullable().openapi({ description: 'Closing cash of week 13.' }),
        lowestClosingCash: Money.nullable().openapi({ description: 'The lowest closing cash over the 13 weeks.' }),
        lowestWeekStart: DateOnly.nullable().openapi({ description: 'The Monday of the week with that lowest closing cash.' }),
        breakEvenDate: DateOnly.nullable().openapi({
          description:
            'When cash is back at zero or above after its lowest point: the end of the first week after the lowest point (today\'s cash, then each week\'s closing cash; the last such point on a tie) whose closing cash is at or above zero. Null when cash never goes below zero, and null when it does not recover inside the window. All fields null before the first forecast is computed.',
        }),
        shortfallProbability: z.number().min(0).max(1).optional().openapi({
          description: "The forecast's shortfall.probability: the chance cash goes below the shortfall threshold (0, or the cash buffer) in the 13 weeks. Absent before engineVersion 3.",
        }),
      })
      .openapi({ description: "From the latest BASE forecast snapshot." }),
    anomalies: z.object({ pending: z.number().int().openapi({ description: 'How many.' }) }).openapi({
      description: 'Pending anomalies: unusually large movements of the last 7 days (docs/forecast.md#daily-summary).',
    }),
    narrative: z.string().openapi({ description: 'Deterministic 2 to 4 sentence prose.' }),
    notesForAgent: z.array(AgentNote).optional().openapi({ description: 'Notes for the agent; pass them on when relevant.' }),
    redactedItemCount: z.number().int().openapi({ description: 'topInflows and topOutflows rows renamed. Totals are never masked.' }),
    ...alertFields,
  })
  .openapi('DailySummaryResponse');
export type DailySummaryResponse = z.infer<typeof DailySummaryResponse>;
