/**
 * Xero's OAuth 2.0 scopes for the Accounting API, as they open its endpoints
 * (pure). Apps created from March 2026 ask for granular scopes (one per kind
 * of record); older apps keep the broad ones (accounting.transactions.read,
 * accounting.reports.read), which Xero still accepts. The client asks for
 * GRANULAR_READ_SCOPES (or BROAD_READ_SCOPES for an older app) and the
 * shipped Xero-compatible server refuses a call whose token holds none of
 * `scopesFor(path)`, as Xero does.
 */

/** Each read scope and the Accounting API paths (under /api.xro/2.0) it opens. */
export const XERO_READ_SCOPES: Readonly<Record<string, readonly string[]>> = {
  'accounting.settings.read': ['/Organisation', '/Accounts'],
  'accounting.contacts.read': ['/Contacts'],
  'accounting.invoices.read': ['/Invoices', '/CreditNotes', '/PurchaseOrders', '/RepeatingInvoices'],
  'accounting.payments.read': ['/Payments', '/Overpayments', '/Prepayments'],
  'accounting.banktransactions.read': ['/BankTransactions'],
  'accounting.reports.banksummary.read': ['/Reports/BankSummary'],
  'accounting.journals.read': ['/Journals'],
  // The broad scopes of apps created before March 2026.
  'accounting.transactions.read': [
    '/Invoices',
    '/CreditNotes',
    '/PurchaseOrders',
    '/RepeatingInvoices',
    '/Payments',
    '/Overpayments',
    '/Prepayments',
    '/BankTransactions',
  ],
  'accounting.reports.read': ['/Reports'],
};

/** Each write scope and the read scope it implies (a write scope opens its paths for reading and writing). */
export const XERO_WRITE_SCOPES: Readonly<Record<string, string>> = {
  'accounting.invoices': 'accounting.invoices.read',
  'accounting.contacts': 'accounting.contacts.read',
  'accounting.payments': 'accounting.payments.read',
};

/** The scope that makes Xero issue a refresh token with the access token. */
export const OFFLINE_ACCESS = 'offline_access';

/** What Cashline asks for by default: a refresh token and every granular read scope. */
export const GRANULAR_READ_SCOPES: readonly string[] = [
  OFFLINE_ACCESS,
  'accounting.settings.read',
  'accounting.contacts.read',
  'accounting.invoices.read',
  'accounting.payments.read',
  'accounting.banktransactions.read',
  'accounting.reports.banksummary.read',
  'accounting.journals.read',
];

/** What an app created before March 2026 asks for (the broad scopes). */
export const BROAD_READ_SCOPES: readonly string[] = [
  OFFLINE_ACCESS,
  'accounting.transactions.read',
  'accounting.contacts.read',
  'accounting.settings.read',
  'accounting.reports.read',
  'accounting.journals.read',
];

/** Whether `path` is `prefix` or a record under it ('/Invoices/abc' is under '/Invoices'; '/Reports/BankSummary' under '/Reports'). */
function within(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** The scopes any one of which lets a token read `path` (e.g. '/Invoices' or '/Invoices/{id}'); [] for a path no scope opens. */
export function scopesFor(path: string): string[] {
  const read = Object.keys(XERO_READ_SCOPES).filter((s) => XERO_READ_SCOPES[s]!.some((p) => within(path, p)));
  const write = Object.keys(XERO_WRITE_SCOPES).filter((w) => read.includes(XERO_WRITE_SCOPES[w]!));
  return [...read, ...write];
}

/** The scopes any one of which lets a token change the records at `path` (PUT/POST); [] when none does. */
export function writeScopesFor(path: string): string[] {
  return Object.keys(XERO_WRITE_SCOPES).filter((w) => XERO_READ_SCOPES[XERO_WRITE_SCOPES[w]!]!.some((p) => within(path, p)));
}
