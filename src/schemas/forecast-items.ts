/**
 * Schemas of GET /api/agent/forecast/items (issue 19; docs/forecast.md#items):
 * what makes up one week of a forecast snapshot, item by item.
 */
import { z } from '@hono/zod-openapi';
import { ITEM_KINDS, REASON_CODES } from '../domain/forecast/items.js';
import { alertFields, DateOnly, DateTime, Money } from './common.js';
import { ForecastQuery, FORECAST_MAX_WEEKS } from './forecast.js';
import { pagingOf, pagingShape } from './params.js';
import { enumParam } from './query.js';

const LAST_WEEK = FORECAST_MAX_WEEKS - 1;
const WEEK_MESSAGE = `must be a whole number from 0 to ${LAST_WEEK}`;

/** The week: required, a whole number 0-12 (the index into the forecast's weeks). */
const weekParam = z
  .string({ error: (issue) => (issue.input === undefined ? `is required: ${WEEK_MESSAGE}` : WEEK_MESSAGE) })
  .transform((v) => v.trim())
  .superRefine((v, ctx) => {
    if (!/^\+?\d+$/.test(v) || Number(v) > LAST_WEEK) ctx.addIssue({ code: 'custom', message: WEEK_MESSAGE });
  })
  .transform((v) => Number(v))
  .openapi({
    param: { name: 'week', in: 'query', required: true },
    type: 'integer',
    minimum: 0,
    maximum: LAST_WEEK,
    description: `Required. The week, as the 0-based index into the forecast's weeks (0: the week holding today; ${LAST_WEEK}: the last), the same index as minClosingCashWeekIndex and shortfall.firstLikelyWeekIndex. Anything else is 400 bad_request naming week.`,
    example: 0,
  });

const ITEM_KIND_FILTER = ['all', ...ITEM_KINDS] as const;

export const ForecastItemsQuery = z
  .object({
    week: weekParam,
    scenarioId: ForecastQuery.shape.scenarioId,
    kind: enumParam({
      name: 'kind',
      values: ITEM_KIND_FILTER,
      default: 'all',
      description:
        'Only items of this kind (default all): invoice (open, draft or submitted invoices), bill (open bills), scheduled (documents a repeating invoice or bill will generate), recurring (recurring supplier bills and bank flows), predicted (customers\' repeat purchases and new customers), run_rate (other bills, receipts and spending), purchase_order (orders not yet billed), manual (operator lines).',
      example: 'invoice',
    }),
    ...pagingShape,
  })
  .transform((q) => ({ ...pagingOf(q), week: q.week, scenarioId: q.scenarioId, kind: q.kind === 'all' ? undefined : q.kind }));

export const ForecastItem = z
  .object({
    itemId: z.string().openapi({ description: "The id in the week's itemIds: a document, order or manual line id, or a series id (scheduled:…, recurring:…, predicted:…). What a scenario's excludedItemIds take." }),
    kind: z.enum(ITEM_KINDS).openapi({ description: 'What the item is (see the kind parameter).' }),
    documentId: z.string().nullable().openapi({
      description: 'The ledger document behind it: the invoice, bill or purchase order (their ids in the lists), or the repeating invoice a scheduled item comes from; null for statistical items and manual lines.',
    }),
    contactId: z.string().nullable().openapi({ description: 'The customer or supplier; null when none (run-rates, manual lines, a series of bank transactions without a contact).' }),
    contactName: z.string().nullable().openapi({ description: '`Sensitive contact` for a sensitive contact without READ_SENSITIVE; null without a contact.' }),
    direction: z.enum(['in', 'out']).openapi({ description: 'in: money received (part of the week\'s inflow); out: money paid (part of its outflow).' }),
    amount: Money.openapi({ description: "What the item moves this week in its direction (positive): the week's inflow is exactly the sum of its items in, its outflow of its items out. An uncertain item counts at its expected value (an invoice: what is owed times the chance it is paid this week)." }),
    expectedDate: DateOnly.openapi({ description: 'When the money is expected within the week (never before today): the day the placement used, or for a spread of days (payment delays, statistical series) their mean.' }),
    probability: z.number().min(0).max(1).openapi({
      description:
        "The chance of this movement this week: an open invoice's chance of being paid this week given it is unpaid so far; a draft's or submitted invoice's chance of being issued and paid (0.5, 0.8); a statistical series' chance of at least one of its typical events this week; 1 for bills, orders, schedules, recurring dates and manual lines.",
    }),
    reasonCode: z.enum(REASON_CODES).openapi({
      description:
        'Why it is in this week: customer_delay (due date plus the customer\'s payment delays), overdue_conditional (overdue: the delay given it is still unpaid), pipeline (draft or submitted), bill_due, bill_overdue, purchase_order (arrival plus terms), schedule (a repeating invoice or bill), cadence (a recurring date), renewal (a frequent series without a cadence), daily_flow (a bank flow of money most days, per open day), repeat_purchase (the customer\'s repeat-purchase model), new_customers, run_rate, manual.',
    }),
    reason: z.string().openapi({ description: "The same in words, with the figures used ('due 2026-12-01; the customer pays a median 23 days late: 34% chance it is paid this week'). Never names a contact." }),
  })
  .openapi('ForecastItem');

export const ForecastItemsResponse = z
  .object({
    scenarioId: z.string().openapi({ description: 'The scenario whose forecast the items make up (the scenarioId parameter; base by default).' }),
    computedAt: DateTime.openapi({ description: 'When the snapshot was computed: the same as GET /forecast for the same scenario until the next recompute.' }),
    asOfDate: DateOnly.openapi({ description: "The day the forecast starts: today in the organisation's time zone when it was computed." }),
    currency: z.string().openapi({ description: 'The base currency of every amount.' }),
    week: z
      .object({
        index: z.number().int().min(0).max(LAST_WEEK).openapi({ description: "0-based index into the forecast's weeks (the week parameter)." }),
        weekStart: DateOnly.openapi({ description: 'The Monday starting the week.' }),
        weekEnd: DateOnly.openapi({ description: 'The Sunday ending the week.' }),
      })
      .openapi({ description: "The week asked for: its index into the forecast's weeks and its dates." }),
    items: z.array(ForecastItem).openapi({ description: 'Largest amount first (in and out alike), then by itemId, then in before out.' }),
    nextCursor: z.string().nullable().openapi({ description: 'Opaque cursor for the next page; null on the last page and with autoPaginate=true. It pages through the same snapshot even if a recompute comes in between.' }),
    totalCount: z.number().int().openapi({ description: 'Items of the week matched (every page).' }),
    redactedItemCount: z.number().int().openapi({ description: 'Rows of this page whose contact name was rewritten. Amounts are never masked; always 0 with READ_SENSITIVE.' }),
    truncated: z.literal(true).optional().openapi({ description: 'With autoPaginate=true: more items than the 5,000 returned.' }),
    totals: z
      .object({
        inflow: Money.openapi({ description: 'Sum of the matched items in.' }),
        outflow: Money.openapi({ description: 'Sum of the matched items out.' }),
      })
      .optional()
      .openapi({ description: "With totals=true, over every matched item (not the page); without a kind filter they are the week's inflow and outflow in GET /forecast." }),
    ...alertFields,
  })
  .openapi('ForecastItemsResponse');
