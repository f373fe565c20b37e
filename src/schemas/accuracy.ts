/**
 * Schemas of GET /api/agent/forecast/accuracy (issue 18;
 * docs/forecast.md#accuracy): the forecast's track record.
 */
import { z } from '@hono/zod-openapi';
import { HORIZON_WEEKS, MIN_STORED_FORECASTS } from '../domain/forecast/accuracy.js';
import { alertFields, DateOnly, Money } from './common.js';
import { dateParam, enumParam } from './query.js';

const horizonMessage = `must be a whole number from 1 to ${HORIZON_WEEKS}`;

export const ForecastAccuracyQuery = z.object({
  from: dateParam({
    name: 'from',
    description: 'Weeks that ended on or after this date (YYYY-MM-DD); default: 13 weeks before today.',
    example: '2026-08-24',
  }),
  to: dateParam({
    name: 'to',
    description: 'Weeks that ended on or before this date (YYYY-MM-DD); default: today. Weeks not yet over are never measured. A to before from is 400.',
    example: '2026-11-22',
  }),
  horizon: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      if (v !== undefined && (!/^\+?\d+$/.test(v.trim()) || Number(v) < 1 || Number(v) > HORIZON_WEEKS)) ctx.addIssue({ code: 'custom', message: horizonMessage });
    })
    .transform((v) => (v === undefined ? undefined : Number(v)))
    .openapi({
      param: { name: 'horizon', in: 'query' },
      type: 'integer',
      minimum: 1,
      maximum: HORIZON_WEEKS,
      description: `Only forecasts made this many weeks ahead (1: the week holding the forecast's date, ${HORIZON_WEEKS}: the last); default every horizon. Anything else is 400 naming horizon.`,
      example: 4,
    }),
  detail: enumParam({
    name: 'detail',
    values: ['full', 'summary'] as const,
    default: 'full',
    description: "full (default): every week with what each earlier forecast said of it; summary: the weeks with what actually moved but without the forecasts of each (a tenth of the size; the horizons' scores are the same).",
    example: 'summary',
  }),
});

const Score = z
  .object({
    wape: z.number().openapi({ description: 'Weighted absolute percentage error: the sum of |forecast - actual| over the sum of |actual| (0 is perfect; 0.25 means off by a quarter of what moved).' }),
    coverage80: z.number().openapi({ description: 'The share of weeks whose actual fell inside the P10-P90 band (0.8 means the 80% band held as stated).' }),
  })
  .openapi('AccuracyScore');

const HorizonAccuracy = z
  .object({
    weeksAhead: z.number().int().openapi({ description: "How far ahead the forecasts were made: 1 is the week holding the forecast's date." }),
    weeksMeasured: z.number().int().openapi({ description: 'Weeks measured at this horizon (0: none yet; its scores are then 0).' }),
    receipts: Score.openapi({ description: 'Money received (the forecast\'s inflow).' }),
    payments: Score.openapi({ description: 'Money paid (its outflow).' }),
    closing: Score.openapi({ description: 'Closing cash.' }),
  })
  .openapi('HorizonAccuracy');

const CellFigure = z
  .object({
    forecast: Money.openapi({ description: 'What the forecast said (its point).' }),
    p10: Money.openapi({ description: 'Its P10 (the band\'s low end).' }),
    p90: Money.openapi({ description: 'Its P90 (the band\'s high end).' }),
    actual: Money.openapi({ description: 'What actually happened over the same days.' }),
  })
  .openapi('AccuracyFigure');

const AccuracyCell = z
  .object({
    asOfDate: DateOnly.openapi({ description: 'The date of the forecast.' }),
    weeksAhead: z.number().int().openapi({ description: 'How far ahead of its date it forecast this week (1-13).' }),
    seeded: z.boolean().openapi({ description: 'true: a stored forecast written from the replay of the history before the service ran (the demo\'s first six months), not by a recompute on the day.' }),
    measuredFrom: DateOnly.openapi({ description: "The first day compared: the week's Monday, or the forecast's date when it was made within the week (its first week counts from then)." }),
    receipts: CellFigure.openapi({ description: "Money received: what the forecast said (its inflow) and what came." }),
    payments: CellFigure.openapi({ description: 'Money paid: what it said (its outflow) and what left.' }),
    closing: CellFigure.openapi({ description: 'Closing cash at the end of the week: what it said and what it was.' }),
  })
  .openapi('AccuracyForecast');

const AccuracyWeek = z
  .object({
    weekStart: DateOnly.openapi({ description: 'Its Monday.' }),
    weekEnd: DateOnly.openapi({ description: 'Its Sunday.' }),
    actual: z
      .object({
        receipts: Money.openapi({ description: 'Money received in the week.' }),
        payments: Money.openapi({ description: 'Money paid in the week.' }),
        closing: Money.openapi({ description: 'Cash at the end of the week (every bank account).' }),
      })
      .openapi({ description: 'What moved in the whole week (Monday to Sunday; transfers between own accounts left out) and the cash at its end.' }),
    forecastCount: z.number().int().openapi({ description: 'Earlier forecasts measured on this week.' }),
    forecasts: z.array(AccuracyCell).optional().openapi({ description: 'What each earlier forecast said of this week, the nearest first (absent with detail=summary).' }),
  })
  .openapi('AccuracyWeek');

export const ForecastAccuracyResponse = z
  .object({
    asOfDate: DateOnly.openapi({ description: "Today in the organisation's time zone: weeks that ended before it are measured." }),
    currency: z.string().openapi({ description: 'The base currency of every amount.' }),
    from: DateOnly.openapi({ description: 'The range measured: weeks ending from this date...' }),
    to: DateOnly.openapi({ description: '...to this one.' }),
    source: z.enum(['stored', 'replayed']).openapi({
      description: `stored: the forecasts this service stored (the first BASE forecast of each week); replayed: fewer than ${MIN_STORED_FORECASTS} stored forecasts have a week that has happened, so these are the nightly calibration's replay of the organisation's own history (forecasts as they would have been made at past dates with only what was known then), labelled as such.`,
    }),
    storedForecasts: z.number().int().openapi({ description: 'Stored forecasts made on or before `to` with a week that has happened (the demo starts with 26 seeded ones); 4 or more make the source stored.' }),
    forecastsMeasured: z.number().int().openapi({ description: 'Forecasts of the source with at least one week measured in the range.' }),
    overall: z
      .object({
        weeksMeasured: z.number().int().openapi({ description: 'Every (forecast, week) measured in the range, all horizons.' }),
        receipts: Score.openapi({ description: "Money received (the forecast's inflow)." }),
        payments: Score.openapi({ description: 'Money paid (its outflow).' }),
        closing: Score.openapi({ description: 'Closing cash.' }),
      })
      .openapi({ description: 'Every measured (forecast, week) at once.' }),
    horizons: z.array(HorizonAccuracy).openapi({ description: 'Per horizon, 1 to 13 weeks ahead (only the one asked for with horizon): WAPE and coverage80 with the backtest\'s definitions.' }),
    weeks: z.array(AccuracyWeek).openapi({ description: 'The per-week detail, oldest first: every week in the range that has happened and was forecast.' }),
    note: z.string().openapi({ description: 'What the figures are, in one sentence for a person.' }),
    ...alertFields,
  })
  .openapi('ForecastAccuracyResponse');
