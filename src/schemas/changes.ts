/**
 * Schemas of GET /api/agent/forecast/changes (issue 18;
 * docs/forecast.md#changes): what changed between two forecasts, by cause.
 */
import { z } from '@hono/zod-openapi';
import { CHANGE_CAUSES } from '../domain/forecast/changes.js';
import { ITEM_KINDS } from '../domain/forecast/items.js';
import { alertFields, DateOnly, DateTime, Money } from './common.js';
import { dateParam, intParam } from './query.js';

const TOP_DEFAULT = 5;
const TOP_MAX = 50;

export const ForecastChangesQuery = z.object({
  since: dateParam({
    name: 'since',
    description:
      'Compare with the latest forecast made on or before this date (YYYY-MM-DD); default: the forecast before the current one. The last forecast of each of the 14 days before the latest is kept (and the 10 latest); an earlier date with none kept is 404 naming since.',
    example: '2026-11-16',
  }),
  limit: intParam({
    name: 'limit',
    min: 1,
    cap: TOP_MAX,
    default: TOP_DEFAULT,
    description: `The largest items listed per cause (by their effect on ending cash): default ${TOP_DEFAULT}; above ${TOP_MAX} is capped; below 1 or not an integer is 400. Each cause's total and count cover all of its items.`,
    example: 3,
  }),
});

const SnapshotSide = z
  .object({
    snapshotId: z.string().openapi({ description: 'The stored forecast (scenario id and the instant it was computed).' }),
    computedAt: DateTime.openapi({ description: 'When it was computed.' }),
    asOfDate: DateOnly.openapi({ description: "Its date (the organisation's today then)." }),
    startingCash: Money.openapi({ description: 'The cash it started from.' }),
    endingCash: Money.openapi({ description: 'Its closing cash after 13 weeks.' }),
    minClosingCash: Money.openapi({ description: 'Its lowest closing cash.' }),
    minClosingCashWeekIndex: z.number().int().openapi({ description: 'Its lowest week, 0-based in its own weeks.' }),
  })
  .openapi('ChangeSnapshot');

const ChangeItem = z
  .object({
    itemId: z.string().openapi({ description: "The forecast item (GET /forecast/items' itemId): a document id, or a series or manual line id." }),
    documentId: z.string().nullable().openapi({ description: 'The invoice, bill or purchase order (their ids in the lists); null for series and manual lines.' }),
    number: z.string().nullable().openapi({ description: "The document's number; null for series and lines, or when the ledger has none." }),
    contactId: z.string().nullable().openapi({ description: 'The customer or supplier; null without one.' }),
    contactName: z.string().nullable().openapi({ description: '`Sensitive contact` for a sensitive contact without READ_SENSITIVE; null without a contact.' }),
    kind: z.enum(ITEM_KINDS).openapi({ description: "What the item is (GET /forecast/items' kinds)." }),
    direction: z.enum(['in', 'out']).openapi({ description: 'in: money received; out: money paid.' }),
    change: Money.openapi({ description: 'Its effect on ending cash (negative: lower).' }),
    minClosingChange: Money.openapi({ description: "Its effect on the lowest week's closing cash." }),
    oldAmount: Money.nullable().openapi({ description: "What the earlier forecast expected of it within its 13 weeks; null: it was not in them." }),
    newAmount: Money.nullable().openapi({ description: 'What the current forecast expects; null: not in its 13 weeks.' }),
    oldWeekStart: DateOnly.nullable().openapi({ description: 'The week holding most of it in the earlier forecast.' }),
    newWeekStart: DateOnly.nullable().openapi({ description: 'The week holding most of it now.' }),
    cash: Money.nullable().openapi({ description: 'settled: the cash it brought (positive) or took (negative) since; null for other causes.' }),
    why: z.enum(['due_date_changed', 'payment_pattern']).nullable().openapi({
      description: "dates_moved: due_date_changed (its due date was edited) or payment_pattern (the customer's or the business's payment pattern re-estimated, or time passed while it stayed unpaid); null for other causes.",
    }),
  })
  .openapi('ChangeItem');

const Cause = z
  .object({
    cause: z.enum(CHANGE_CAUSES).openapi({
      description:
        'settled: documents paid (or credited) since: the cash that arrived or left, net of the forecast it replaced; new_document: documents the earlier forecast did not know; voided_or_deleted; amount_changed: totals edited (or a payment removed); status_changed: drafts approved or sent back, purchase orders billed; dates_moved: the same document expected in other weeks (see why); re_estimated: recurring, scheduled and statistical items re-estimated (including the weeks the horizon gained or lost when a new week began); opening_cash: other money that moved (bank transactions, payments not forecast, balances); scenario_or_override: the opening-cash override and manual lines.',
    }),
    total: Money.openapi({ description: "Its effect on ending cash. The causes' totals add up exactly to endingCashChange." }),
    minClosingTotal: Money.openapi({ description: "Its effect on the lowest week's closing cash; they add up exactly to minClosingCashChange." }),
    count: z.number().int().openapi({ description: 'Items with an effect in this cause (all of them, not only those listed).' }),
    items: z.array(ChangeItem).openapi({ description: 'The largest, by |change|.' }),
  })
  .openapi('ChangeCause');

export const ForecastChangesResponse = z
  .object({
    currency: z.string().openapi({ description: 'The base currency of every amount.' }),
    from: SnapshotSide.nullable().openapi({ description: 'The earlier forecast; null when there is none kept to compare with (a new organisation: one recompute so far).' }),
    to: SnapshotSide.nullable().openapi({ description: 'The current forecast (the BASE one GET /forecast serves); null before any.' }),
    endingCashChange: Money.openapi({ description: "to.endingCash - from.endingCash ('0' without both)." }),
    minClosingCashChange: Money.openapi({ description: 'to.minClosingCash - from.minClosingCash (each its own lowest week).' }),
    causes: z.array(Cause).openapi({ description: 'Every cause, in a fixed order, with its total (0 when nothing of it changed).' }),
    redactedItemCount: z.number().int().openapi({ description: 'Listed items whose contact name was rewritten. Always 0 with READ_SENSITIVE.' }),
    note: z.string().openapi({ description: 'The change in one sentence for a person.' }),
    ...alertFields,
  })
  .openapi('ForecastChangesResponse');
