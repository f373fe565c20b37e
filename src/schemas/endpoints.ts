/**
 * The endpoint catalogue: one entry per GET endpoint of the agent API, from
 * which both the `cashline` subcommands (src/cli/main.ts) and the MCP tools
 * (src/mcp/server.ts) are generated. Adding an endpoint to both clients is
 * one entry here: its name, path, query schema (src/schemas/params.ts, the
 * server's own), response schema, and two descriptions (a short one for
 * people, a longer one for models).
 *
 * The clients declare no parameter of their own: each flag and each tool
 * input is derived from the server's query schema (its name, its type and
 * bounds as the OpenAPI document gives them, its description), and a value
 * is checked before any request by that same schema's parser.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import {
  AccountBalancesQuery,
  AgedQuery,
  ContactListQuery,
  CreditNoteListQuery,
  IdParam,
  InvoiceListQuery,
  PurchaseOrderListQuery,
} from './params.js';
import {
  AccountBalancesResponse,
  BankAccountsResponse,
  BillsResponse,
  ContactDrillResponse,
  ContactsListResponse,
  CreditNoteDrillResponse,
  CreditNotesResponse,
  InvoicesResponse,
  PurchaseOrderDrillResponse,
  PurchaseOrdersResponse,
} from './ledger.js';
import { OrgsResponse } from './orgs.js';
import { PortfolioQuery, PortfolioResponse } from './portfolio.js';
import { CollectionsQuery, CollectionsResponse } from './collections.js';
import { ForecastAccuracyQuery, ForecastAccuracyResponse } from './accuracy.js';
import { ForecastChangesQuery, ForecastChangesResponse } from './changes.js';
import { CashPositionResponse, DailySummaryResponse, ForecastQuery, ForecastResponse, ScenariosResponse } from './forecast.js';
import { AgedPayablesResponse, AgedReceivablesResponse } from './aged.js';
import { ForecastItemsQuery, ForecastItemsResponse } from './forecast-items.js';
import {
  CohortRetentionResponse,
  CohortSummaryResponse,
  ContactsSummaryQuery,
  ContactsSummaryResponse,
  ExpensesSummaryResponse,
  RetentionQuery,
  RevenueSummaryResponse,
  SummaryQuery,
} from './analytics.js';
import { queryShape } from './query.js';
import { StatusResponse } from './status.js';
import { DailyBriefResponse } from './brief.js';

// ---------------------------------------------------------------------------
// Parameters, as the clients see them
// ---------------------------------------------------------------------------

/** Command-line flags that are not the kebab-case of the parameter's name. */
const FLAG_NAMES: Readonly<Record<string, string>> = { autoPaginate: 'all', scenarioId: 'scenario' };

/** The command-line flag of a query parameter. */
export const flagOf = (param: string): string => FLAG_NAMES[param] ?? param.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * A query parameter as the server's OpenAPI document describes it (derived
 * from its schema, never declared twice): what the CLI makes a flag of and
 * the MCP server a typed tool input of.
 */
export interface ParamSpec {
  name: string;
  kind: 'boolean' | 'integer' | 'number' | 'enum' | 'date' | 'text';
  description: string;
  /** The request needs it (the OpenAPI document's `required`). */
  required?: boolean;
  minimum?: number;
  maximum?: number;
  values?: readonly [string, ...string[]];
}

/** A bad value, named by the caller's spelling of the parameter (a flag or a tool argument). */
export class ParamError extends Error {}

// ---------------------------------------------------------------------------
// Entries
// ---------------------------------------------------------------------------

/** A query schema: an object of parameters, possibly piped into the typed parameters the handler reads. */
type AnyQuery = z.ZodType;

export interface Endpoint {
  /** CLI subcommand (kebab-case); the MCP tool is the snake_case of it. */
  name: string;
  /** Path template; `{id}` is the positional id of a drill (`{orgId}` when the id defaults to the organisation, as the server names it). */
  path: string;
  /** The server's query schema; null when the endpoint takes no query. */
  query: AnyQuery | null;
  /** The server's response schema (also tells the table format which columns are money). */
  response: z.ZodType;
  /**
   * Drills: the positional id. `defaultsToOrg`: the id is an organisation id
   * (the daily brief's `/orgs/{orgId}/daily-brief`) and may be left out: the
   * clients then use --org / the tool's orgId, else the key's own
   * organisation from /status (free).
   */
  id?: { description: string; defaultsToOrg?: boolean };
  /** One line for people (CLI help). */
  summary: string;
  /** For models (MCP tool description): when to use it, what comes back. */
  description: string;
  /** Parameter values the MCP tool sends when the model leaves them out (compact answers for a context window); the REST API and the CLI keep the server's defaults. */
  toolDefaults?: Readonly<Record<string, string>>;
}

/**
 * An entry, checked: a drill's path has `{id}`.
 */
export function endpoint(e: {
  name: string;
  path: string;
  query: AnyQuery | null;
  response: z.ZodType;
  id?: { description: string; defaultsToOrg?: boolean };
  summary: string;
  description: string;
  toolDefaults?: Readonly<Record<string, string>>;
}): Endpoint {
  if (e.id && !e.path.includes('{id}') && !(e.id.defaultsToOrg && e.path.includes('{orgId}'))) {
    throw new Error(`${e.name}: a drill's path needs {id} (or {orgId} when the id defaults to the organisation)`);
  }
  return e;
}

/** What the server's OpenAPI document says of a request's parameters (name to description and schema). */
export interface ParamDoc {
  description?: string;
  required?: boolean;
  schema: { type?: string; format?: string; enum?: unknown[]; minimum?: number; maximum?: number; anyOf?: unknown[] };
}
const docs = new WeakMap<object, Record<string, ParamDoc>>();
function requestDocs(request: { query?: AnyQuery; params?: AnyQuery }): Record<string, ParamDoc> {
  const key = request.query ?? request.params!;
  const cached = docs.get(key);
  if (cached) return cached;
  // The OpenAPI generator of @hono/zod-openapi reads the .openapi() metadata of the server's schemas.
  const app = new OpenAPIHono();
  app.openAPIRegistry.registerPath({ method: 'get', path: '/p/{id}', request: request as never, responses: { 200: { description: 'OK' } } });
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'params', version: '1' } });
  const parameters = (doc.paths?.['/p/{id}']?.get?.parameters ?? []) as { name: string; description?: string; required?: boolean; schema?: ParamDoc['schema'] }[];
  const out: Record<string, ParamDoc> = {};
  for (const p of parameters) out[p.name] = { ...(p.description ? { description: p.description } : {}), ...(p.required ? { required: true } : {}), schema: p.schema ?? {} };
  docs.set(key, out);
  return out;
}

/** The server schema's documentation of a query's parameters. */
export const queryDocs = (query: AnyQuery): Record<string, ParamDoc> => requestDocs({ query });

const ID_DESCRIPTION = requestDocs({ params: IdParam }).id?.description ?? 'Ledger id.';

const COMMON = [
  'Amounts are canonical decimal strings (e.g. "1234.5"), never numbers: do arithmetic on them as decimals, not floats.',
  'If the response has ledgerAlert, always tell the user (the ledger connection needs attention and the data may be stale); billingAlert likewise concerns their subscription.',
  'redactedItemCount counts rows hidden or renamed because the key lacks READ_SENSITIVE.',
  "Cost: one query credit of the plan's rolling 5-hour allowance per call, whatever the size of the answer (status is free); quota_exhausted says when credits come back.",
].join(' ');
const PAGING =
  'Paging: a page has nextCursor; pass it back as cursor (same filters) until it is null. Sums of a page are not totals: ask for totals=true (computed over the whole filtered set) or autoPaginate=true (the whole set in one response, up to 5,000 rows, truncated=true when cut). totalCount counts all matches.';

export const ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    name: 'status',
    path: '/api/agent/status',
    query: null,
    response: StatusResponse,
    summary: 'subscription, usage and key status (never charged)',
    description: `Subscription, remaining query credits (usage.remaining, nextCreditInMinutes), and this key's scopes and organisation. Free: never uses a credit, so call it first to check the key or when another tool says quota_exhausted. ${COMMON}`,
  }),
  endpoint({
    name: 'orgs',
    path: '/api/agent/orgs',
    query: null,
    response: OrgsResponse,
    summary: 'organisations this key reaches',
    description:
      'The organisations this key can read (id, name, slug) and whether it is a USER or PARTNER key. A partner (advisory) key must pass one of these ids as orgId to every other tool.',
  }),
  endpoint({
    name: 'portfolio',
    path: '/api/agent/portfolio',
    query: PortfolioQuery,
    response: PortfolioResponse,
    summary: "partner keys: every client ranked by cash risk (one credit per client)",
    description:
      'Partner (advisory) keys only, no orgId needed: one row per client organisation of the practice, most at risk first, with cash today, the lowest closing cash of its 13-week forecast and that week, the shortfall probability, overdue receivables and its ledgerAlert. ' +
      'Use for "across all my clients, who is at risk of running out of cash" or "which clients need attention", then drill into one with orgId on forecast, cash-position or receivables-aged (same figures). ' +
      'Order: shortfallProbability highest first, then headroom (lowest closing cash minus the shortfall threshold) lowest first, then overdue receivables largest first; clients without a forecast yet last. ' +
      'Amounts are canonical decimal strings in each row\'s own currency: never add rows of different currencies. Tell the user about any row\'s ledgerAlert (that client\'s data may be stale). ' +
      'Paging: pass nextCursor back as cursor until it is null. ' +
      'Cost: one query credit per client in the page (charged says how many; use limit to read fewer), from each client\'s own allowance; when a client\'s credits are used up the page stops before it (stoppedEarly says which and when to retry), and quota_exhausted when not even the first fits. A user key gets forbidden.',
  }),
  endpoint({
    name: 'bank-accounts',
    path: '/api/agent/bank-accounts',
    query: null,
    response: BankAccountsResponse,
    summary: 'bank accounts with reconciled and statement balances',
    description: `Active bank accounts with their reconciled balance (ledger) and statement balance (bank feed); balanceSource says which one the forecast uses. Use for "how much is in the bank". ${COMMON}`,
  }),
  endpoint({
    name: 'account-balances',
    path: '/api/agent/account-balances',
    query: AccountBalancesQuery,
    response: AccountBalancesResponse,
    summary: 'balance-sheet account balances as at a date',
    description: `Balance-sheet accounts (assets, liabilities, equity) with their balance as at the end of a date (default today), summed from the journals. Use for a balance-sheet view or a liability such as GST or loans. ${COMMON}`,
  }),
  endpoint({
    name: 'invoices',
    path: '/api/agent/invoices',
    query: InvoiceListQuery,
    response: InvoicesResponse,
    summary: 'receivable invoices (money owed to the business)',
    description: `Sales invoices (receivables), newest first, filterable by ledger status (AUTHORISED = unpaid, PAID, DRAFT, ...), contactId and issue-date range; q finds an invoice by (part of) its number, reference or customer name, ignoring case and accents; lines=true adds line items. Use for who owes money, overdue or recent sales, or to look up one invoice; credit notes are a separate tool. ${PAGING} ${COMMON}`,
  }),
  endpoint({
    name: 'bills',
    path: '/api/agent/bills',
    query: InvoiceListQuery,
    response: BillsResponse,
    summary: 'payable bills (money the business owes)',
    description: `Supplier bills (payables), newest first, with the same filters as invoices (q finds a bill by number, reference or supplier name). Use for what the business owes and to whom. ${PAGING} ${COMMON}`,
  }),
  endpoint({
    name: 'credit-notes',
    path: '/api/agent/credit-notes',
    query: CreditNoteListQuery,
    response: CreditNotesResponse,
    summary: 'receivable credit notes',
    description: `Credit notes given to customers, with remaining and allocated credit; same filters as invoices (q: credit-note number or customer name). A customer with no open invoice may still hold credit here. ${PAGING} ${COMMON}`,
  }),
  endpoint({
    name: 'credit-note',
    path: '/api/agent/credit-notes/{id}',
    query: null,
    response: CreditNoteDrillResponse,
    id: { description: ID_DESCRIPTION },
    summary: 'one credit note, by id',
    description: `One credit note with its lines and allocations to invoices. id is the id from the credit-notes tool. ${COMMON}`,
  }),
  endpoint({
    name: 'purchase-orders',
    path: '/api/agent/purchase-orders',
    query: PurchaseOrderListQuery,
    response: PurchaseOrdersResponse,
    summary: 'purchase orders (status matches verbatim)',
    description: `Purchase orders to suppliers (DRAFT, SUBMITTED, AUTHORISED, BILLED, DELETED; status filter matches verbatim); q finds an order by number or supplier name. suppressedReason non-null means the order is matched to a bill and left out of the forecast. ${PAGING} ${COMMON}`,
  }),
  endpoint({
    name: 'purchase-order',
    path: '/api/agent/purchase-orders/{id}',
    query: null,
    response: PurchaseOrderDrillResponse,
    id: { description: ID_DESCRIPTION },
    summary: 'one purchase order, by id',
    description: `One purchase order with its lines. id is the id from the purchase-orders tool. ${COMMON}`,
  }),
  endpoint({
    name: 'contacts',
    path: '/api/agent/contacts',
    query: ContactListQuery,
    response: ContactsListResponse,
    summary: 'customers and suppliers',
    description: `Contacts (customers and suppliers) with lifetime value; q finds contacts by (part of) their name or email, ignoring case and accents; type filters customers or suppliers; sort=revenue_desc ranks the page by lifetime value. Use to find a contact's id by name, then the contact tool for detail. totals=true gives counts by type. ${PAGING} ${COMMON}`,
  }),
  endpoint({
    name: 'contact',
    path: '/api/agent/contacts/{id}',
    query: null,
    response: ContactDrillResponse,
    id: { description: 'Ledger contact id (the id from the contacts tool, or contactId on an invoice or bill).' },
    summary: 'one contact, by its ledger id',
    description: `One customer or supplier in depth: revenue (trailing 12 months, all time), lifetime value, payment cadence and median delay, ABC class, available credit, last invoice and bill, up to 50 recent paid invoices. Use for "tell me about this customer". ${COMMON}`,
  }),
  endpoint({
    name: 'cash-position', path: '/api/agent/cash-position', query: null, response: CashPositionResponse,
    summary: 'cash on hand the forecast starts from, per bank account',
    description: `Cash on hand now: effectiveStartingCash (what the forecast starts from, after any operator override and adjustment) and ledgerReconciledTotal (the plain sum of reconciled bank balances; a difference means drift), with a per-account breakdown. Use for "how much cash do we have". ${COMMON}`,
  }),
  endpoint({
    name: 'forecast', path: '/api/agent/forecast', query: ForecastQuery, response: ForecastResponse,
    summary: '13-week rolling cash forecast (--chart draws it; forecast items|accuracy|changes: its views)',
    description: `The 13-week rolling cash forecast of a scenario (default BASE; scenarioId picks another; weeks returns fewer weeks): per week opening, inflow, outflow, net and closing cash; endingCash, minClosingCash and its week (minClosingCashWeekIndex, 0-based) answer runway questions. Each week's bands give P10/P50/P90 of inflow, outflow and closing (8 futures in 10 inside P10-P90); shortfallProbability per week and shortfall.probability over the 13 weeks answer "how likely are we to run out of cash" (calibration says how well the bands held on this business's own history; null: not yet calibrated). Use for "will we run out of cash" or "what does next quarter look like". Pass notesForAgent on when relevant. This tool answers with detail=summary unless told detail=full (the item ids of every week, large). ${COMMON}`,
    toolDefaults: { detail: 'summary' },
  }),
  endpoint({
    name: 'forecast-items', path: '/api/agent/forecast/items', query: ForecastItemsQuery, response: ForecastItemsResponse,
    summary: 'what makes up one week of the forecast, item by item (--week N, 0-based)',
    description: `What makes up one week of the forecast (week is required: the 0-based index of the forecast tool's weeks, 0 = this week, 12 = the last; minClosingCashWeekIndex is one), from the same stored forecast the forecast tool reads (scenarioId as there, default BASE): each invoice, bill, scheduled document, recurring flow, predicted sale, run-rate, purchase order and manual line, with its direction (in/out), amount, contact, document id (null for statistical items), expected date, probability and why it lands that week (reasonCode, and reason in words: 'due 2026-12-01; the customer pays a median 23 days late', 'overdue 40 days: conditional delay'). A week's items in add up exactly to its inflow, its items out to its outflow. Largest amount first; kind=invoice (bill, predicted, ...) keeps one kind. Use for "what makes up week 9", "which invoices are expected next week", "why is week 5 so low", or to explain a forecast figure. ${PAGING} ${COMMON}`,
  }),
  endpoint({
    name: 'forecast-accuracy', path: '/api/agent/forecast/accuracy', query: ForecastAccuracyQuery, response: ForecastAccuracyResponse,
    summary: "the forecast's track record: how right earlier forecasts were, per horizon",
    description: `How right the forecast has been: for every past week in the range (default the last 13), what each earlier BASE forecast said of it (point, P10 and P90 of receipts, payments and closing cash) against what actually moved, and per horizon (weeksAhead 1-13) the weeks measured, WAPE (0 perfect, 0.2 off by a fifth) and coverage80 (the share of weeks inside the P10-P90 band: 0.8 means the bands hold as stated). source=stored: the forecasts this service kept; source=replayed: too few kept yet, so forecasts replayed from the organisation's own history. horizon=N keeps one horizon. This tool answers with detail=summary (the weeks without each forecast's figures) unless told detail=full. Use for "how accurate is the forecast", "can I trust these ranges", "how wrong was it 4 weeks out". ${COMMON}`,
    toolDefaults: { detail: 'summary' },
  }),
  endpoint({
    name: 'forecast-changes', path: '/api/agent/forecast/changes', query: ForecastChangesQuery, response: ForecastChangesResponse,
    summary: 'what changed in the forecast since the previous one (or since a date), by cause',
    description: `Why the forecast moved: compares the current forecast with the previous one (since=YYYY-MM-DD: the latest made on or before that date) and explains endingCashChange and minClosingCashChange (the lowest week) by cause: settled (invoices and bills paid since: the cash that arrived or left, net of what was forecast), new_document, voided_or_deleted, amount_changed, status_changed, dates_moved (why: due_date_changed or payment_pattern), re_estimated (recurring and statistical items), opening_cash (other money that moved), scenario_or_override. Each cause has its total (they add up exactly to the change), count and largest items (document, contact, amount, old and new week). Use for "why did the forecast change since yesterday", "why is the lowest week lower than last week". limit lists that many items per cause (default 5). ${COMMON}`,
  }),
  endpoint({
    name: 'collections', path: '/api/agent/collections', query: CollectionsQuery, response: CollectionsResponse,
    summary: 'what to chase first to lift the lowest forecast week (and bills that could wait)',
    description: `What to do about the lowest week of the 13-week forecast: the open invoices ranked by lift, how much the lowest closing cash would rise if each were collected on its due date (today when overdue) instead of when the forecast expects it, with what is owed, days overdue, the predicted payment date, the chance it is still unpaid after the lowest week and the customer's paying history; beside them, the bills the forecast expects paid before their due week, with the lift of paying each on its due date. Use for "what should I do about my lowest week", "who should I chase first" or "which bills can wait"; the lifts are exact changes of the forecast tool's minClosingCash. limit returns that many of each (default 10). Needs READ_INVOICES and READ_FORECAST. ${COMMON}`,
  }),
  endpoint({
    name: 'receivables-aged', path: '/api/agent/receivables/aged', query: AgedQuery, response: AgedReceivablesResponse,
    summary: 'receivables aged per customer (who owes what, how late)',
    description: `Per customer, what it owes: not yet due, 1-30, 31-60, 61-90 and over 90 days past due, overdue and total, its open invoices and oldest due date; sorted by the overdue balance, largest first; totals over every customer (they agree with the daily summary's ar). Use for "who owes me the most and for how long" or "who should I chase". ${PAGING} ${COMMON}`,
  }),
  endpoint({
    name: 'payables-aged', path: '/api/agent/payables/aged', query: AgedQuery, response: AgedPayablesResponse,
    summary: 'payables aged per supplier (what we owe, how late)',
    description: `Per supplier, what is owed to it: not yet due, 1-30, 31-60, 61-90 and over 90 days past due, overdue and total, the open bills and the oldest due date; sorted by the overdue balance, largest first; totals over every supplier. Use for "who do we owe" or "which bills are late". ${PAGING} ${COMMON}`,
  }),
  endpoint({
    name: 'scenarios', path: '/api/agent/scenarios', query: null, response: ScenariosResponse,
    summary: "the forecast's scenarios and their latest headline",
    description: `The organisation's forecast scenarios (BASE, BEST, WORST and the operator's CUSTOM ones): id, name, what each changes (inflow and outflow factors, payment delay shift, excluded items, extra lines) and the headline of its latest forecast (ending cash, lowest closing cash, shortfall probability). Use for "what if things go badly" or to pick a scenarioId for the forecast tool. ${COMMON}`,
  }),
  endpoint({
    name: 'daily-summary', path: '/api/agent/daily-summary', query: null, response: DailySummaryResponse,
    summary: 'how the business is going today, in one call',
    description: `One call for "how is the business going today": cash today, the last 7 days' net flow with the top 5 inflows and outflows, receivables ageing (not yet due, 1-30, 31-60, 61-90, over 90 days past due), the 13-week outlook (ending cash, lowest point, break-even date), pending anomalies, a ready prose narrative and notesForAgent. Prefer it as the first call for a general question. ${COMMON}`,
  }),
  endpoint({
    name: 'revenue', path: '/api/agent/revenue/summary', query: SummaryQuery, response: RevenueSummaryResponse,
    summary: 'receivables summary: paid revenue by month and status, top customers',
    description: `Sales over a date range (default: financial year to date): grandTotal of PAID (ex-tax, cash basis), byStatus (AUTHORISED is gross outstanding), byMonth in the organisation's time zone, the topN customers, and a trailing gross profit. Use for revenue trends and best customers. ${COMMON}`,
  }),
  endpoint({
    name: 'expenses', path: '/api/agent/expenses/summary', query: SummaryQuery, response: ExpensesSummaryResponse,
    summary: 'payables summary: paid spend by month and status, top suppliers',
    description: `Spending over a date range (default: financial year to date), the mirror of revenue: PAID ex-tax, AUTHORISED gross outstanding, byMonth, the topN suppliers. Use for cost trends and biggest suppliers. ${COMMON}`,
  }),
  endpoint({
    name: 'contacts-summary', path: '/api/agent/contacts/summary', query: ContactsSummaryQuery, response: ContactsSummaryResponse,
    summary: 'customer and supplier counts, ABC classes, top by revenue and spend',
    description: `Counts of contacts by type and ABC class, the topN customers by lifetime value and the topN suppliers by spend. Use for concentration questions ("how dependent are we on our biggest customers"). ${COMMON}`,
  }),
  endpoint({
    name: 'cohorts', path: '/api/agent/cohorts/summary', query: null, response: CohortSummaryResponse,
    summary: 'customer cohort KPIs and the best cohorts',
    description: `Customer acquisition and retention KPIs (new customers, repeat-order rate, average revenue per customer, 90-day retention) comparing the latest 6 months with the 6 before (delta with deltaKind pct or rate), and the best 3 cohorts. KPI values here are JSON numbers (fractions or counts), not money strings. ${COMMON}`,
  }),
  endpoint({
    name: 'retention', path: '/api/agent/cohorts/retention', query: RetentionQuery, response: CohortRetentionResponse,
    summary: 'cohort retention grid by acquisition month',
    description: `A cohort grid: one row per acquisition month, columns M0..M(periods-1); metric retention (fractions), customers (counts) or revenue (decimal strings); null means the month has not elapsed yet (not zero). ${COMMON}`,
  }),
  endpoint({
    name: 'brief', path: '/api/agent/orgs/{orgId}/daily-brief', query: null, response: DailyBriefResponse,
    id: { description: "Organisation id (default: the key's own organisation, or --org / orgId).", defaultsToOrg: true },
    summary: "today's three-part brief (main driver, risk, recommended action)",
    description: `Today's brief for the organisation: mainDriver, riskSignal and recommendedAction, each a headline, a short markdown body and refs (customers, categories, forecast weeks). Regenerated once a day after 06:00 UTC (generatorTier rules or llm, same shape); not_found (no_brief_yet) before the first one. Use to open a conversation about the business. ${COMMON}`,
  }),
];

/** MCP tool name of an entry: snake_case (X-Service-Tool allows [a-z_] only). */
export const toolName = (e: Endpoint): string => e.name.replace(/-/g, '_');

/** Fills a path template. */
export function pathOf(e: Endpoint, id?: string): string {
  if (id === undefined) return e.path;
  return e.path.includes('{id}') ? e.path.replace('{id}', encodeURIComponent(id)) : e.path.replace('{orgId}', encodeURIComponent(id));
}

/** The query parameters of an entry, as its schema documents them. */
export function paramsOf(e: Endpoint): ParamSpec[] {
  if (!e.query) return [];
  const documented = queryDocs(e.query);
  return Object.keys(queryShape(e.query)).map((name) => {
    const d = documented[name];
    const s = d?.schema ?? {};
    const kind: ParamSpec['kind'] =
      s.type === 'boolean' ? 'boolean' : s.type === 'integer' ? 'integer' : s.type === 'number' ? 'number' : s.enum ? 'enum' : s.format === 'date' ? 'date' : 'text';
    return {
      name,
      kind,
      description: d?.description ?? name,
      ...(d?.required ? { required: true } : {}),
      ...(s.minimum !== undefined ? { minimum: s.minimum } : {}),
      ...(s.maximum !== undefined ? { maximum: s.maximum } : {}),
      ...(s.enum ? { values: s.enum.map(String) as [string, ...string[]] } : {}),
    };
  });
}

/**
 * Checks one value (as the string it will be sent as) with the server's own
 * parser of that parameter, so that the clients refuse before any request
 * exactly what the server would answer with a 400; returns the string to
 * send. A flag or argument given with nothing in it is refused too.
 */
export function checkParam(e: Endpoint, param: string, label: string, value: string): string {
  const field = queryShape(e.query)[param];
  if (!field) throw new ParamError(`${label} is not a parameter of ${e.name}`);
  if (!value.trim()) throw new ParamError(`${label} must not be empty`);
  const r = field.safeParse(value);
  if (!r.success) throw new ParamError(`${label} ${r.error.issues[0]?.message ?? 'is not valid'}, got '${value}'`);
  return value.trim();
}
