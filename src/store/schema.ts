/**
 * The one schema of Cashline's store, for PGlite and PostgreSQL alike.
 *
 * Rules (docs/store.md):
 * - Money and quantities are NUMERIC (no scale): exact, read back as strings.
 * - Every tenant table carries `org_id` and its primary key starts with it, so
 *   every query can (and must) filter by organisation, and the tables are ready
 *   to be distributed by organisation id.
 * - The tenancy directory (organisations, billing accounts, users, partners,
 *   keys) is the only data not owned by one organisation.
 * - Ledger ids are Xero's GUIDs, kept as text; the API's `id` of a ledger row
 *   is that id.
 *
 * Migrations are generated from this file with `npm run db:generate` and
 * committed under ./migrations; `src/store/migrate.ts` applies them.
 */
import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const day = (name: string) => date(name, { mode: 'string' });
const money = (name: string) => numeric(name);

// ---------------------------------------------------------------------------
// Tenancy directory
// ---------------------------------------------------------------------------

export const billingAccounts = pgTable('billing_accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** Free | Pocket | Wallet | Vault | Reserve */
  plan: text('plan').notNull().default('Free'),
  /** trialing | active | past_due | canceled | trial_ended */
  subscriptionStatus: text('subscription_status').notNull().default('active'),
  trialEndsAt: ts('trial_ends_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const organisations = pgTable(
  'organisations',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    timezone: text('timezone').notNull().default('Australia/Sydney'),
    baseCurrency: text('base_currency').notNull().default('AUD'),
    fyEndDay: integer('fy_end_day').notNull().default(30),
    fyEndMonth: integer('fy_end_month').notNull().default(6),
    billingAccountId: text('billing_account_id').references(() => billingAccounts.id),
    /** Xero tenant id once a ledger is connected or imported. */
    ledgerTenantId: text('ledger_tenant_id'),
    /** Operator-set gross margin override for LTV, a fraction in [0,1]. */
    grossMarginOverride: numeric('gross_margin_override'),
    /** Operator-set cash buffer: closing cash below it is a shortfall (docs/forecast.md#bands); null: 0. */
    cashBuffer: numeric('cash_buffer'),
    active: boolean('active').notNull().default(true),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('organisations_slug_key').on(t.slug)],
);

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const memberships = pgTable(
  'memberships',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    userId: text('user_id').notNull().references(() => users.id),
    /** owner | member. The owner holds the organisation's billable seat. */
    role: text('role').notNull().default('member'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

export const partners = pgTable('partners', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const partnerLinks = pgTable(
  'partner_links',
  {
    partnerId: text('partner_id').notNull().references(() => partners.id),
    orgId: text('org_id').notNull().references(() => organisations.id),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.orgId] }), index('partner_links_org_idx').on(t.orgId)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    /** Public look-up part of the key: cl_user_<keyPrefix>_<secret>. */
    keyPrefix: text('key_prefix').notNull(),
    /** USER | PARTNER */
    kind: text('kind').notNull(),
    /** SHA-256 (hex) of the secret part; the secret itself is never stored. */
    secretHash: text('secret_hash').notNull(),
    name: text('name').notNull(),
    scopes: text('scopes').array().notNull(),
    /** USER keys: the organisation the key is bound to. */
    orgId: text('org_id').references(() => organisations.id),
    /** USER keys: the member whose credits the key spends. */
    userId: text('user_id').references(() => users.id),
    /** PARTNER keys: the practice. */
    partnerId: text('partner_id').references(() => partners.id),
    createdAt: ts('created_at').notNull().defaultNow(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_prefix_key').on(t.keyPrefix)],
);

// ---------------------------------------------------------------------------
// Ledger data (one organisation each)
// ---------------------------------------------------------------------------

export const contacts = pgTable(
  'contacts',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    /** Xero ContactID. */
    id: text('id').notNull(),
    name: text('name').notNull(),
    email: text('email'),
    /** ACTIVE | ARCHIVED | GDPRREQUEST */
    contactStatus: text('contact_status').notNull().default('ACTIVE'),
    isCustomer: boolean('is_customer').notNull().default(false),
    isSupplier: boolean('is_supplier').notNull().default(false),
    isSensitive: boolean('is_sensitive').notNull().default(false),
    defaultCurrency: text('default_currency'),
    /** Xero UpdatedDateUTC. */
    ledgerUpdatedAt: ts('ledger_updated_at'),
    lastSyncedAt: ts('last_synced_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index('contacts_recent_idx').on(t.orgId, t.lastSyncedAt, t.id),
  ],
);

export const accounts = pgTable(
  'accounts',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    /** Xero AccountID. */
    id: text('id').notNull(),
    code: text('code'),
    name: text('name').notNull(),
    /** Xero account Type: BANK, REVENUE, DIRECTCOSTS, EXPENSE, CURRLIAB, … */
    type: text('type').notNull(),
    /** Xero Class: ASSET, EQUITY, EXPENSE, LIABILITY, REVENUE */
    class: text('class'),
    status: text('status').notNull().default('ACTIVE'),
    currency: text('currency'),
    bankAccountType: text('bank_account_type'),
    /** Xero SystemAccount: DEBTORS (the receivables control account), CREDITORS (payables), GST, …; null when Xero marks none. */
    systemAccount: text('system_account'),
    isSensitive: boolean('is_sensitive').notNull().default(false),
    ledgerUpdatedAt: ts('ledger_updated_at'),
    lastSyncedAt: ts('last_synced_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index('accounts_code_idx').on(t.orgId, t.code)],
);

/** Balances of BANK accounts, from Reports/BankSummary and bank transactions. */
export const bankBalances = pgTable(
  'bank_balances',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    accountId: text('account_id').notNull(),
    reconciledBalance: money('reconciled_balance').notNull(),
    /** The bank statement's balance when a feed statement is known. */
    statementBalance: money('statement_balance'),
    balanceSyncedAt: ts('balance_synced_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.accountId] })],
);

/**
 * Invoices, bills and credit notes: the ledger's cash items.
 * source: LEDGER_INVOICE (ACCREC), LEDGER_BILL (ACCPAY),
 *         LEDGER_CREDIT_NOTE (ACCRECCREDIT / ACCPAYCREDIT)
 */
export const cashItems = pgTable(
  'cash_items',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    /** Xero InvoiceID or CreditNoteID. */
    id: text('id').notNull(),
    source: text('source').notNull(),
    /** Xero Type: ACCREC, ACCPAY, ACCRECCREDIT, ACCPAYCREDIT */
    ledgerType: text('ledger_type').notNull(),
    number: text('number'),
    reference: text('reference'),
    contactId: text('contact_id'),
    /** DRAFT, SUBMITTED, AUTHORISED, PAID, VOIDED, DELETED */
    ledgerStatus: text('ledger_status').notNull(),
    /** FORECAST, ACTUAL, CANCELLED: derived from ledgerStatus. */
    status: text('status').notNull(),
    currency: text('currency').notNull(),
    currencyRate: numeric('currency_rate'),
    lineAmountTypes: text('line_amount_types'),
    issueDate: day('issue_date'),
    dueDate: day('due_date'),
    /** Fully paid (or fully allocated) date. */
    paidDate: day('paid_date'),
    /** issue_date, else due_date: the list order and date filter. */
    sortDate: day('sort_date').notNull(),
    subTotal: money('sub_total').notNull(),
    totalTax: money('total_tax').notNull(),
    total: money('total').notNull(),
    amountDue: money('amount_due').notNull(),
    amountPaid: money('amount_paid').notNull(),
    amountCredited: money('amount_credited').notNull(),
    /** Credit notes: the unallocated portion. */
    remainingCredit: money('remaining_credit'),
    ledgerUpdatedAt: ts('ledger_updated_at'),
    lastSyncedAt: ts('last_synced_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    // Lists (docs/lists.md): ascending keys scanned backwards give the lists' order
    // (sort_date desc, id desc) and keyset row comparisons; the trailing columns
    // make filtered counts and totals index-only.
    index('cash_items_list_idx').on(
      t.orgId,
      t.source,
      t.ledgerType,
      t.sortDate,
      t.id,
      t.ledgerStatus,
      t.currency,
      t.total,
      t.contactId,
    ),
    index('cash_items_contact_idx').on(t.orgId, t.contactId, t.source, t.sortDate, t.id),
    // The lists' due-date filters (migration 0011).
    index('cash_items_due_idx').on(t.orgId, t.source, t.ledgerType, t.dueDate),
  ],
);

export const cashItemLines = pgTable(
  'cash_item_lines',
  {
    orgId: text('org_id').notNull(),
    itemId: text('item_id').notNull(),
    lineNumber: integer('line_number').notNull(),
    /** Xero LineItemID when known, else `<itemId>:<lineNumber>`. */
    id: text('id').notNull(),
    description: text('description'),
    quantity: numeric('quantity'),
    unitAmount: numeric('unit_amount'),
    lineAmount: money('line_amount').notNull(),
    taxAmount: money('tax_amount').notNull(),
    taxType: text('tax_type'),
    accountCode: text('account_code'),
    itemCode: text('item_code'),
    discountRate: numeric('discount_rate'),
    discountAmount: money('discount_amount'),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.itemId, t.lineNumber] })],
);

export const payments = pgTable(
  'payments',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    /** Xero PaymentID. */
    id: text('id').notNull(),
    /** The invoice or credit note paid. */
    itemId: text('item_id'),
    /** Bank account (Xero AccountID) the money moved through. */
    bankAccountId: text('bank_account_id'),
    date: day('date').notNull(),
    amount: money('amount').notNull(),
    currencyRate: numeric('currency_rate'),
    /** ACCRECPAYMENT, ACCPAYPAYMENT, ARCREDITPAYMENT, … */
    paymentType: text('payment_type'),
    /** AUTHORISED | DELETED */
    status: text('status').notNull(),
    reference: text('reference'),
    isReconciled: boolean('is_reconciled').notNull().default(false),
    ledgerUpdatedAt: ts('ledger_updated_at'),
    lastSyncedAt: ts('last_synced_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index('payments_item_idx').on(t.orgId, t.itemId),
    index('payments_date_idx').on(t.orgId, t.date),
  ],
);

export const creditNoteAllocations = pgTable(
  'credit_note_allocations',
  {
    orgId: text('org_id').notNull(),
    creditNoteId: text('credit_note_id').notNull(),
    /** Position in the credit note's Allocations array. */
    seq: integer('seq').notNull(),
    invoiceId: text('invoice_id'),
    invoiceNumber: text('invoice_number'),
    amount: money('amount').notNull(),
    date: day('date'),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.creditNoteId, t.seq] })],
);

export const purchaseOrders = pgTable(
  'purchase_orders',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    /** Xero PurchaseOrderID. */
    id: text('id').notNull(),
    number: text('number').notNull(),
    reference: text('reference').notNull().default(''),
    contactId: text('contact_id'),
    /** DRAFT, SUBMITTED, AUTHORISED, BILLED, DELETED: raw. */
    status: text('status').notNull(),
    currency: text('currency').notNull(),
    issueDate: day('issue_date'),
    deliveryDate: day('delivery_date'),
    expectedArrivalDate: day('expected_arrival_date'),
    sortDate: day('sort_date').notNull(),
    subTotal: money('sub_total').notNull(),
    totalTax: money('total_tax').notNull(),
    total: money('total').notNull(),
    /** REFERENCE | CONTACT_AMOUNT once matched to a bill; set by the forecast job. */
    suppressedReason: text('suppressed_reason'),
    ledgerUpdatedAt: ts('ledger_updated_at'),
    lastSyncedAt: ts('last_synced_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    // Lists (docs/lists.md): scanned backwards for sort_date desc, id desc; trailing columns for index-only counts and totals.
    index('purchase_orders_list_idx').on(t.orgId, t.sortDate, t.id, t.status, t.currency, t.total, t.contactId),
    // The search by supplier name (migration 0012_search, with the trigram indexes schema.ts cannot express).
    index('purchase_orders_contact_idx').on(t.orgId, t.contactId),
  ],
);

/**
 * Xero repeating invoices and bills (GET /RepeatingInvoices): the schedules
 * the ledger will turn into documents. The ledger answers the whole list each
 * time (no paging, no If-Modified-Since), so a sync or import replaces the
 * organisation's set. The forecast projects their occurrences
 * (docs/forecast.md#schedules).
 */
export const repeatingInvoices = pgTable(
  'repeating_invoices',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    /** Xero RepeatingInvoiceID. */
    id: text('id').notNull(),
    /** ACCREC (sales invoices) or ACCPAY (bills). */
    ledgerType: text('ledger_type').notNull(),
    contactId: text('contact_id'),
    /** DRAFT, AUTHORISED or DELETED. */
    status: text('status').notNull(),
    reference: text('reference'),
    /** Schedule: every `period` `unit`s (WEEKLY or MONTHLY). */
    period: integer('period').notNull(),
    unit: text('unit').notNull(),
    /** Due date rule: `due_day` with Xero's DueDateType. */
    dueDay: integer('due_day').notNull(),
    dueDateType: text('due_date_type').notNull(),
    startDate: day('start_date'),
    endDate: day('end_date'),
    nextScheduledDate: day('next_scheduled_date'),
    currency: text('currency').notNull(),
    lineAmountTypes: text('line_amount_types'),
    subTotal: money('sub_total').notNull(),
    totalTax: money('total_tax').notNull(),
    total: money('total').notNull(),
    /** The account code of the largest line (the forecast's category). */
    accountCode: text('account_code'),
    lastSyncedAt: ts('last_synced_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const purchaseOrderLines = pgTable(
  'purchase_order_lines',
  {
    orgId: text('org_id').notNull(),
    purchaseOrderId: text('purchase_order_id').notNull(),
    lineNumber: integer('line_number').notNull(),
    description: text('description'),
    quantity: numeric('quantity'),
    unitAmount: numeric('unit_amount'),
    lineAmount: money('line_amount').notNull(),
    taxAmount: money('tax_amount'),
    accountCode: text('account_code'),
    itemCode: text('item_code'),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.purchaseOrderId, t.lineNumber] })],
);

export const bankTransactions = pgTable(
  'bank_transactions',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    /** Xero BankTransactionID. */
    id: text('id').notNull(),
    /** RECEIVE, SPEND, RECEIVE-TRANSFER, SPEND-TRANSFER, … */
    type: text('type').notNull(),
    contactId: text('contact_id'),
    bankAccountId: text('bank_account_id').notNull(),
    date: day('date').notNull(),
    /** AUTHORISED | DELETED | VOIDED */
    status: text('status').notNull(),
    isReconciled: boolean('is_reconciled').notNull().default(false),
    reference: text('reference'),
    currency: text('currency').notNull(),
    subTotal: money('sub_total').notNull(),
    totalTax: money('total_tax').notNull(),
    total: money('total').notNull(),
    /** Line items as [{description, quantity, unitAmount, lineAmount, taxAmount, accountCode}] (money as strings). */
    lines: jsonb('lines').notNull().default(sql`'[]'::jsonb`),
    ledgerUpdatedAt: ts('ledger_updated_at'),
    lastSyncedAt: ts('last_synced_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index('bank_transactions_date_idx').on(t.orgId, t.date)],
);

/** Double-entry journal lines (GET /Journals): account balances as at any date. */
export const journalLines = pgTable(
  'journal_lines',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    journalId: text('journal_id').notNull(),
    /** Xero JournalLineID. */
    id: text('id').notNull(),
    journalNumber: integer('journal_number'),
    journalDate: day('journal_date').notNull(),
    accountId: text('account_id'),
    accountCode: text('account_code'),
    netAmount: money('net_amount').notNull(),
    taxAmount: money('tax_amount').notNull(),
    sourceType: text('source_type'),
    sourceId: text('source_id'),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.journalId, t.id] }),
    index('journal_lines_account_idx').on(t.orgId, t.accountId, t.journalDate),
  ],
);

// ---------------------------------------------------------------------------
// Ledger connection and sync state
// ---------------------------------------------------------------------------

export const ledgerConnections = pgTable('ledger_connections', {
  orgId: text('org_id').primaryKey().references(() => organisations.id),
  provider: text('provider').notNull().default('xero'),
  tenantId: text('tenant_id').notNull(),
  /** Sealed (src/ledger/seal.ts: `v1:<keyId>:<nonce>:<ciphertext>`), never plain once migrated. */
  accessToken: text('access_token'),
  accessTokenExpiresAt: ts('access_token_expires_at'),
  /** Sealed like access_token. */
  refreshToken: text('refresh_token'),
  /** The key id the tokens are sealed under; null: plain tokens from before sealing (sealed on first start), or none. */
  secretsKeyId: text('secrets_key_id'),
  /** ok | expired | revoked | unreadable (sealed tokens no held key opens: reconnect) */
  tokenState: text('token_state').notNull().default('ok'),
  /** closed | open | half_open */
  breakerState: text('breaker_state').notNull().default('closed'),
  breakerOpenedAt: ts('breaker_opened_at'),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  lastSuccessfulSync: ts('last_successful_sync'),
  lastAttemptAt: ts('last_attempt_at'),
  lastErrorAt: ts('last_error_at'),
  lastError: text('last_error'),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** Xero's id of the tenant connection (DELETE /connections/{id} on disconnect). */
  connectionId: text('connection_id'),
  tenantName: text('tenant_name'),
  /** The scopes the consent granted, space-separated (null: connected before consent was part of the service). */
  scopes: text('scopes'),
  /** Resources the app may not read, from the last sync: [{ resource, scope, reason }]. */
  unavailable: jsonb('unavailable').notNull().default(sql`'[]'::jsonb`),
  /** A webhook asked for a sync at this time (a worker syncs when it is after the last attempt). */
  syncRequestedAt: ts('sync_requested_at'),
  /** `ledger disconnect`: tokens deleted, the books kept, no longer updating. */
  disconnectedAt: ts('disconnected_at'),
}, (t) => [index('ledger_connections_tenant_idx').on(t.tenantId)]);

/** A consent under way on the web (GET /connect/xero): one use, expiring. */
export const ledgerConsents = pgTable(
  'ledger_consents',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    state: text('state').notNull(),
    /** The PKCE code verifier, sealed. */
    verifier: text('verifier').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    tenantHint: text('tenant_hint'),
    /** Once Xero answered with several organisations: the tokens (sealed JSON) and the organisations to choose from. */
    tokens: text('tokens'),
    tenants: jsonb('tenants'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.state] })],
);

/** Incremental-sync watermark per resource (If-Modified-Since). */
export const syncWatermarks = pgTable(
  'sync_watermarks',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    resource: text('resource').notNull(),
    modifiedSince: ts('modified_since'),
    /** Next page to fetch when a paged pull was interrupted. */
    nextPage: integer('next_page').notNull().default(1),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.resource] })],
);

/** Every import or sync run: what it did and how it ended. */
export const importRuns = pgTable(
  'import_runs',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    id: text('id').notNull(),
    kind: text('kind').notNull(),
    startedAt: ts('started_at').notNull(),
    finishedAt: ts('finished_at'),
    outcome: text('outcome'),
    counts: jsonb('counts'),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

// ---------------------------------------------------------------------------
// Derived data
// ---------------------------------------------------------------------------

export const forecastScenarios = pgTable(
  'forecast_scenarios',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    id: text('id').notNull(),
    name: text('name').notNull(),
    /** BASE | BEST | WORST | CUSTOM */
    kind: text('kind').notNull(),
    adjustments: jsonb('adjustments').notNull().default(sql`'{}'::jsonb`),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const forecastSnapshots = pgTable(
  'forecast_snapshots',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    id: text('id').notNull(),
    scenarioId: text('scenario_id').notNull(),
    engineVersion: integer('engine_version').notNull(),
    asOfDate: day('as_of_date').notNull(),
    computedAt: ts('computed_at').notNull(),
    payload: jsonb('payload').notNull(),
    /** Rows of forecast_snapshot_items stored with it; null: stored before they were (migration 0013). */
    itemCount: integer('item_count'),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index('forecast_snapshots_latest_idx').on(t.orgId, t.scenarioId, t.computedAt.desc()),
  ],
);

/**
 * What makes up each week of a snapshot (docs/forecast.md#items): one row per
 * (week, item, direction), ranked by `seq` within the week (migration 0013;
 * deleted with the snapshot by whatever deletes it: no foreign key, for the
 * cost of writing them).
 */
export const forecastSnapshotItems = pgTable(
  'forecast_snapshot_items',
  {
    orgId: text('org_id').notNull(),
    snapshotId: text('snapshot_id').notNull(),
    weekIndex: smallint('week_index').notNull(),
    seq: integer('seq').notNull(),
    itemId: text('item_id').notNull(),
    direction: text('direction').notNull(),
    kind: text('kind').notNull(),
    documentId: text('document_id'),
    contactId: text('contact_id'),
    amount: money('amount').notNull(),
    expectedDate: day('expected_date').notNull(),
    probability: doublePrecision('probability').notNull(),
    reasonCode: text('reason_code').notNull(),
    /** The wording, in forecast_snapshot_reasons. */
    reasonId: integer('reason_id').notNull(),
  },
  (t) => [
    primaryKey({ name: 'forecast_snapshot_items_pk', columns: [t.orgId, t.snapshotId, t.weekIndex, t.seq] }),
  ],
);

/**
 * Each distinct wording of a snapshot's item reasons, once (an invoice's 13
 * weeks share one; `{chance}` is filled in from the row's probability at
 * read time). Deleted with the snapshot's items.
 */
export const forecastSnapshotReasons = pgTable(
  'forecast_snapshot_reasons',
  {
    orgId: text('org_id').notNull(),
    snapshotId: text('snapshot_id').notNull(),
    reasonId: integer('reason_id').notNull(),
    template: text('template').notNull(),
  },
  (t) => [primaryKey({ name: 'forecast_snapshot_reasons_pk', columns: [t.orgId, t.snapshotId, t.reasonId] })],
);

/**
 * What the forecast said of each of its weeks, kept after its snapshot is
 * pruned (migration 0014; docs/forecast.md#accuracy): per organisation, kind
 * ('stored': the week's first BASE snapshot; 'replayed': a cut-off of the
 * nightly calibration's replay) and week of the as-of date.
 */
export const forecastTrackRecord = pgTable(
  'forecast_track_record',
  {
    orgId: text('org_id').notNull(),
    kind: text('kind').notNull(),
    weekOf: day('week_of').notNull(),
    asOfDate: day('as_of_date').notNull(),
    snapshotId: text('snapshot_id'),
    computedAt: ts('computed_at').notNull(),
    seeded: boolean('seeded').notNull().default(false),
    startingCash: money('starting_cash').notNull(),
    weeks: jsonb('weeks').notNull(),
  },
  (t) => [primaryKey({ name: 'forecast_track_record_pk', columns: [t.orgId, t.kind, t.weekOf] })],
);

/** The open documents a recompute forecast, as they stood (migration 0014; docs/forecast.md#changes). */
export const forecastRecomputeDocuments = pgTable(
  'forecast_recompute_documents',
  {
    orgId: text('org_id').notNull(),
    computedAt: ts('computed_at').notNull(),
    documentId: text('document_id').notNull(),
    kind: text('kind').notNull(),
    contactId: text('contact_id'),
    status: text('status').notNull(),
    total: money('total').notNull(),
    amountDue: money('amount_due').notNull(),
    dueDate: day('due_date'),
  },
  (t) => [primaryKey({ name: 'forecast_recompute_documents_pk', columns: [t.orgId, t.computedAt, t.documentId] })],
);

/** The operator's opening-cash override. */
export const cashOverrides = pgTable('cash_overrides', {
  orgId: text('org_id').primaryKey().references(() => organisations.id),
  amount: money('amount').notNull(),
  note: text('note'),
  setAt: ts('set_at').notNull(),
});

/** Nightly per-contact baselines (cadence, delays, LTV, ABC). */
export const contactBaselines = pgTable(
  'contact_baselines',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    contactId: text('contact_id').notNull(),
    computedAt: ts('computed_at').notNull(),
    ltv: money('ltv'),
    abcClass: text('abc_class'),
    cadence: text('cadence'),
    cadenceConfidence: integer('cadence_confidence'),
    paymentDelayMedianDays: numeric('payment_delay_median_days'),
    revenueAllTime: money('revenue_all_time'),
    revenueTrailing12m: money('revenue_trailing_12m'),
    spendAllTime: money('spend_all_time'),
    details: jsonb('details'),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.contactId] })],
);

/** Other derived documents (organisation baselines, insights, summaries), one per (org, kind, key). */
export const derivedSnapshots = pgTable(
  'derived_snapshots',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    kind: text('kind').notNull(),
    key: text('key').notNull().default(''),
    engineVersion: integer('engine_version').notNull().default(1),
    computedAt: ts('computed_at').notNull(),
    payload: jsonb('payload').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.kind, t.key] })],
);

/** One brief per organisation and UTC day. */
export const dailyBriefs = pgTable(
  'daily_briefs',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    asOfDate: day('as_of_date').notNull(),
    generatedAt: ts('generated_at').notNull(),
    /** rules | llm */
    generatorTier: text('generator_tier').notNull(),
    payload: jsonb('payload').notNull(),
    /** Every contact and account the payload names ({kind, id, key, displayName}); those sensitive at the time of a read are rewritten for keys without READ_SENSITIVE (docs/brief.md#redaction; migration 0008). */
    mentions: jsonb('mentions').notNull().default(sql`'[]'::jsonb`),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.asOfDate] })],
);

/**
 * The workers' claims (docs/sync.md, "Workers"): one row per job and
 * organisation. A worker runs a job's slot (a sync bucket, a date) only after
 * taking the row for it with one conditional upsert; a claim whose lease ran
 * out unfinished (a crashed worker) is taken over.
 */
export const workerClaims = pgTable(
  'worker_claims',
  {
    job: text('job').notNull(),
    orgId: text('org_id').notNull().references(() => organisations.id),
    slot: text('slot').notNull(),
    owner: text('owner').notNull(),
    leaseUntil: ts('lease_until').notNull(),
    done: boolean('done').notNull().default(false),
    claimedAt: ts('claimed_at').notNull(),
    finishedAt: ts('finished_at'),
    error: text('error'),
  },
  (t) => [primaryKey({ columns: [t.job, t.orgId] })],
);

/**
 * Named leases (migration 0018; src/store/claims.ts `withLease`): a lock held
 * across transactions without a session, so that it works through a
 * transaction pooler. The holder renews `lease_until` while it runs and
 * deletes the row when done; a lapsed lease, or one whose process is gone
 * from the same host (`host`, `pid`), is taken over.
 */
export const leases = pgTable('leases', {
  name: text('name').primaryKey(),
  owner: text('owner').notNull(),
  /** The holder's host and PID namespace: a process there can tell whether `pid` still runs. */
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  leaseUntil: ts('lease_until').notNull(),
  acquiredAt: ts('acquired_at').notNull(),
});

// ---------------------------------------------------------------------------
// Usage and audit
// ---------------------------------------------------------------------------

/** One row per charged call: the rolling query-credit log (SQL backend). */
export const creditEvents = pgTable(
  'credit_events',
  {
    orgId: text('org_id').notNull().references(() => organisations.id),
    id: bigserial('id', { mode: 'number' }).notNull(),
    billingAccountId: text('billing_account_id').notNull(),
    userId: text('user_id').notNull(),
    at: ts('at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index('credit_events_window_idx').on(t.billingAccountId, t.userId, t.at),
  ],
);

/** Burst-cap log (SQL backend): one row per authenticated request. */
export const burstEvents = pgTable(
  'burst_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    keyId: text('key_id').notNull(),
    route: text('route').notNull(),
    at: ts('at').notNull(),
  },
  (t) => [index('burst_events_window_idx').on(t.keyId, t.route, t.at)],
);

export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The target organisation; null for partner calls that named none. */
    orgId: text('org_id'),
    at: ts('at').notNull(),
    keyId: text('key_id'),
    keyPrefix: text('key_prefix'),
    userId: text('user_id'),
    partnerId: text('partner_id'),
    method: text('method').notNull(),
    route: text('route').notNull(),
    status: integer('status').notNull(),
    /** X-Service-Tool when it matched ^service\.[a-z_]+$ */
    tool: text('tool'),
    requestId: text('request_id'),
    durationMs: integer('duration_ms'),
  },
  (t) => [index('audit_log_org_idx').on(t.orgId, t.at)],
);

/** The forecast's calibration per organisation (docs/forecast.md#calibration): the nightly job's replay, read by every recompute. */
export const forecastCalibrations = pgTable('forecast_calibrations', {
  orgId: text('org_id')
    .primaryKey()
    .references(() => organisations.id),
  asOf: day('as_of').notNull(),
  computedAt: ts('computed_at').notNull(),
  state: jsonb('state').notNull(),
});
