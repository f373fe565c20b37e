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
    error: ErrorCode,
    message: z.string().optional(),
    /** For bad_request: the parameter at fault. */
    parameter: z.string().optional(),
  })
  .openapi('ErrorResponse');
export type ErrorResponse = z.infer<typeof ErrorResponse>;

export const Cta = z.object({ label: z.string(), url: z.string() }).openapi('Cta');

export const BillingAlert = z
  .object({
    severity: z.enum(['warn', 'critical']),
    message: z.string(),
    cta: Cta,
  })
  .openapi('BillingAlert');
export type BillingAlert = z.infer<typeof BillingAlert>;

/** Why a ledgerAlert is raised (docs/sync.md#ledger-alerts). */
export const LEDGER_ALERT_REASONS = ['not_connected', 'token_expired', 'token_revoked', 'breaker_open', 'sync_failing', 'never_synced', 'stale'] as const;

export const LedgerAlert = z
  .object({
    severity: z.enum(['warn', 'critical']),
    kind: z.enum(['reconnect_required', 'service_issue', 'no_connection']),
    reason: z.enum(LEDGER_ALERT_REASONS).openapi({
      description:
        'Why the alert is raised (an addition to the spec\'s kind, which keeps its three values): not_connected (no_connection); token_expired, token_revoked, breaker_open (reconnect_required); sync_failing (the last run failed; retrying), never_synced (connected, no sync has completed yet), stale (no error, but the last successful sync is more than 12 hours old) (service_issue).',
    }),
    message: z.string(),
    lastSuccessfulSync: DateTime.nullable(),
    cta: Cta,
  })
  .openapi('LedgerAlert', { description: 'Present when the ledger connection needs attention. Agents should always tell the user.' });
export type LedgerAlert = z.infer<typeof LedgerAlert>;

export const AgentNote = z
  .object({
    kind: z.enum(['seasonality', 'trend', 'pipeline', 'ar', 'concentration']),
    window: z.enum(['this_month', 'next_4w', 'this_quarter']),
    severity: z.enum(['info', 'warn']),
    text: z.string(),
    sourceInsightId: z.string().optional(),
    contact: z
      .object({
        id: z.string().openapi({ description: 'Ledger contact id (the contact tool drills into it).' }),
        name: z.string().openapi({ description: "The contact's name as the text shows it: 'Sensitive contact' for a sensitive contact read without READ_SENSITIVE." }),
      })
      .optional()
      .openapi({ description: 'The contact the text names (an addition to the spec): present only on notes that name one, such as the driver of the forecast band.' }),
  })
  .openapi('AgentNote');
export type AgentNote = z.infer<typeof AgentNote>;

/** The optional alert fields most successful bodies carry (spec 2.1). */
export const Warning = z
  .object({
    parameter: z.string().openapi({ description: 'The query parameter or header whose value was ignored.' }),
    value: z.string().openapi({ description: 'The value that was ignored (for an unknown parameter, its value).' }),
    message: z.string(),
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
  400: { description: 'Bad request: a malformed parameter (named in `parameter`).', content: { 'application/json': { schema: ErrorResponse } } },
  401: { description: 'Missing, malformed, unknown or revoked key (not differentiated).', content: { 'application/json': { schema: ErrorResponse } } },
  403: { description: 'The key lacks the scope, or the organisation is not reachable.', content: { 'application/json': { schema: ErrorResponse } } },
  429: { description: 'Burst cap (rate_limited) or query credits (quota_exhausted); see Retry-After.', content: { 'application/json': { schema: ErrorResponse } } },
  500: { description: 'Internal error (no details).', content: { 'application/json': { schema: ErrorResponse } } },
  503: { description: 'The store is unavailable; retry shortly.', content: { 'application/json': { schema: ErrorResponse } } },
} as const;
