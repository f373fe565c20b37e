/**
 * Shared pieces of the API's zod schemas: the single source of the API's
 * types, request validation, the OpenAPI document, the CLI's flags and the
 * MCP tools' inputs.
 */
import { z } from '@hono/zod-openapi';

const CANONICAL_DECIMAL = /^-?(0|[1-9]\d*)(\.\d*[1-9])?$/;

/** A canonical decimal string (spec section 1): never a JSON number. */
export const Money = z
  .string()
  .regex(CANONICAL_DECIMAL)
  .openapi({ description: 'Canonical decimal string: digits, optional fraction, trailing zeros trimmed, no exponent.', example: '1234.5' });

export const DateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).openapi({ format: 'date', example: '2026-11-23' });
export const DateTime = z.string().openapi({ format: 'date-time', example: '2026-11-23T06:00:00.000Z' });

export const ErrorCode = z.enum([
  'unauthorized',
  'insufficient_scope',
  'forbidden',
  'not_found',
  'no_brief_yet',
  'bad_request',
  'invalid_cursor',
  'org_required',
  'rate_limited',
  'quota_exhausted',
  'method_not_allowed',
  'internal_error',
  'service_unavailable',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorResponse = z
  .object({
    error: ErrorCode.openapi({
      description:
        'What went wrong, for programs: unauthorized 401, insufficient_scope and forbidden 403, not_found and no_brief_yet 404, bad_request, invalid_cursor and org_required 400, rate_limited and quota_exhausted 429 (with Retry-After), method_not_allowed 405, internal_error 500, service_unavailable 503.',
    }),
    message: z.string().optional().openapi({ description: 'What went wrong, for people; never holds a secret.' }),
    /** For bad_request: the parameter at fault. */
    parameter: z.string().optional().openapi({ description: 'For bad_request: the parameter whose value was refused.' }),
  })
  .openapi('ErrorResponse', { description: 'The one error body: `{error, message}` (and `parameter` for a bad parameter).' });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

export const Cta = z
  .object({
    label: z.string().openapi({ description: 'Text of the button or link to show the user.' }),
    url: z.string().openapi({ description: 'Where the user can act on the alert (settings, billing).' }),
  })
  .openapi('Cta', { description: 'A call to action: what the user can do about an alert.' });

export const BillingAlert = z
  .object({
    severity: z.enum(['warn', 'critical']).openapi({ description: 'critical when the subscription is past_due, canceled or trial_ended; warn otherwise.' }),
    message: z.string().openapi({ description: 'What to tell the user, in plain words.' }),
    cta: Cta,
  })
  .openapi('BillingAlert', {
    description:
      'Present only when a trigger fires: the trial has 5 days or fewer left, quota use is 90% or more, or the subscription is past_due, canceled or trial_ended. Absent means healthy.',
  });
export type BillingAlert = z.infer<typeof BillingAlert>;

/** Why a ledgerAlert is raised (docs/sync.md#ledger-alerts). */
export const LEDGER_ALERT_REASONS = [
  'not_connected',
  'disconnected',
  'token_expired',
  'token_revoked',
  'token_unreadable',
  'breaker_open',
  'sync_failing',
  'never_synced',
  'stale',
  'resource_unavailable',
] as const;

export const LedgerAlert = z
  .object({
    severity: z.enum(['warn', 'critical']).openapi({ description: 'critical for reconnect_required; warn for service_issue and no_connection.' }),
    kind: z.enum(['reconnect_required', 'service_issue', 'no_connection']).openapi({
      description:
        'reconnect_required: token expired or circuit breaker tripped; the data is stale and will not update. service_issue: the ledger is returning errors and the service retries; data up to 12 hours old. no_connection: no ledger account is connected.',
    }),
    reason: z.enum(LEDGER_ALERT_REASONS).openapi({
      description:
        'Why the alert is raised (an addition to the spec\'s kind, which keeps its three values): not_connected, disconnected (the connection was removed with `ledger disconnect`; the books are those of the last sync) (no_connection); token_expired, token_revoked, token_unreadable (the stored tokens no longer decrypt: altered or moved), breaker_open (reconnect_required); sync_failing (the last run failed; retrying), never_synced (connected, no sync has completed yet), stale (no error, but the last successful sync is more than 12 hours old), resource_unavailable (the sync works but Xero lets Cashline read not everything: a scope not granted, or an endpoint such as Journals that Xero keeps for other apps; the message names it and what it costs) (service_issue). cta.url is the organisation\'s web consent at the service\'s public address (CASHLINE_PUBLIC_URL).',
    }),
    message: z.string().openapi({ description: 'What to tell the user, in plain words.' }),
    lastSuccessfulSync: DateTime.nullable().openapi({ description: 'When the ledger was last synced successfully; null if never.' }),
    cta: Cta,
  })
  .openapi('LedgerAlert', { description: 'Present when the ledger connection needs attention. Agents should always tell the user.' });
export type LedgerAlert = z.infer<typeof LedgerAlert>;

export const AgentNote = z
  .object({
    kind: z.enum(['seasonality', 'trend', 'pipeline', 'ar', 'concentration']).openapi({
      description: 'What the note is about: seasonality, a trend, the sales pipeline, receivables (ar) or customer concentration.',
    }),
    window: z.enum(['this_month', 'next_4w', 'this_quarter']).openapi({ description: 'The period the note concerns.' }),
    severity: z.enum(['info', 'warn']).openapi({ description: 'warn: worth raising with the user; info: context.' }),
    text: z.string().openapi({ description: 'The note, ready to pass on to the user.' }),
    sourceInsightId: z.string().optional().openapi({ description: 'Set when produced by the insight engine; omitted for fallback-detector notes.' }),
    contact: z
      .object({
        id: z.string().openapi({ description: 'Ledger contact id (the contact tool drills into it).' }),
        name: z.string().openapi({ description: "The contact's name as the text shows it: 'Sensitive contact' for a sensitive contact read without READ_SENSITIVE." }),
      })
      .optional()
      .openapi({ description: 'The contact the text names (an addition to the spec): present only on notes that name one, such as the driver of the forecast band.' }),
  })
  .openapi('AgentNote', { description: 'A short note for the agent about the figures: pass it on when relevant.' });
export type AgentNote = z.infer<typeof AgentNote>;

/** The optional alert fields most successful bodies carry (spec 2.1). */
export const Warning = z
  .object({
    parameter: z.string().openapi({ description: 'The query parameter or header whose value was ignored.' }),
    value: z.string().openapi({ description: 'The value that was ignored (for an unknown parameter, its value).' }),
    message: z.string().openapi({ description: 'Why it was ignored, and what the endpoint takes instead.' }),
  })
  .openapi('Warning', { description: 'Something in the request was ignored (decisions.md): the answer is complete, but not for what was asked.' });
export type Warning = z.infer<typeof Warning>;

export const alertFields = {
  billingAlert: BillingAlert.optional(),
  ledgerAlert: LedgerAlert.optional(),
  warnings: z.array(Warning).min(1).optional().openapi({
    description:
      'Present whenever a parameter or value was ignored: an unknown status value (e.g. AUTHORIZED), an unknown query parameter, a cursor beside autoPaginate, an X-Service-Tool that does not match ^service\\.[a-z_]+$. Absent otherwise.',
  }),
};

export const LEDGER_STATUSES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'] as const;
export const LedgerStatus = z.enum(LEDGER_STATUSES);
export const CashStatus = z.enum(['FORECAST', 'ACTUAL', 'CANCELLED']);
export const PURCHASE_ORDER_STATUSES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'BILLED', 'DELETED'] as const;

/** Error responses every authenticated endpoint can give. */
export const commonErrorResponses = {
  304: {
    description:
      "Not modified: the request's If-None-Match holds this answer's ETag, so the copy the client kept is current (no body; the envelope headers as on a 200). Charged like the read it is.",
  },
  400: { description: 'Bad request: a malformed parameter (named in `parameter`).', content: { 'application/json': { schema: ErrorResponse } } },
  401: { description: 'Missing, malformed, unknown or revoked key (not differentiated).', content: { 'application/json': { schema: ErrorResponse } } },
  403: { description: 'The key lacks the scope, or the organisation is not reachable.', content: { 'application/json': { schema: ErrorResponse } } },
  429: { description: 'Burst cap (rate_limited) or query credits (quota_exhausted); see Retry-After.', content: { 'application/json': { schema: ErrorResponse } } },
  500: { description: 'Internal error (no details).', content: { 'application/json': { schema: ErrorResponse } } },
  503: { description: 'The store is unavailable; retry shortly.', content: { 'application/json': { schema: ErrorResponse } } },
} as const;
