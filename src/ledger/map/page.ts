/**
 * Xero Accounting API records -> rows of Cashline's store (pure functions).
 *
 * Each map function (the other modules of this folder, one per resource)
 * validates one Xero record (../xero/schemas.ts) and returns insert rows of
 * src/store/schema.ts for one organisation. A field we need that is missing
 * or of the wrong type throws a XeroValidationError naming the field; unknown
 * fields are ignored. `mapPage` maps a whole response body (one page) into a
 * LedgerBatch, which src/store/ledger-write/batch.ts writes.
 *
 * The rows and their conventions are the store's (src/store/rows.ts). The
 * mapping table is in docs/import.md.
 */
import type { LedgerBatch } from '../../store/rows.js';
import { XeroValidationError } from '../xero/errors.js';
import { jsonTypeOf } from '../xero/json.js';
import { mapBankSummary, mapBankTransaction } from './bank.js';
import { mapCreditNote, mapPrepaidCredit } from './credits.js';
import { mapInvoice } from './invoices.js';
import { mapJournal } from './journals.js';
import { mapAccount, mapContact, mapOrganisation } from './organisation.js';
import { mapPayment } from './payments.js';
import { mapPurchaseOrder } from './purchase-orders.js';
import { mapRepeatingInvoice } from './repeating-invoices.js';
import type { MapContext } from './shared.js';

export const RESOURCES = [
  'Organisation',
  'Contacts',
  'Accounts',
  'Invoices',
  'CreditNotes',
  'Overpayments',
  'Prepayments',
  'PurchaseOrders',
  'Payments',
  'BankTransactions',
  'BankSummary',
  'Journals',
  'RepeatingInvoices',
] as const;
export type Resource = (typeof RESOURCES)[number];

/** The array each body holds its records in, and the id field of a record. */
export const BODY_KEYS: Record<Resource, { array: string; id: string } | null> = {
  Organisation: { array: 'Organisations', id: 'OrganisationID' },
  Contacts: { array: 'Contacts', id: 'ContactID' },
  Accounts: { array: 'Accounts', id: 'AccountID' },
  Invoices: { array: 'Invoices', id: 'InvoiceID' },
  CreditNotes: { array: 'CreditNotes', id: 'CreditNoteID' },
  Overpayments: { array: 'Overpayments', id: 'OverpaymentID' },
  Prepayments: { array: 'Prepayments', id: 'PrepaymentID' },
  RepeatingInvoices: { array: 'RepeatingInvoices', id: 'RepeatingInvoiceID' },
  PurchaseOrders: { array: 'PurchaseOrders', id: 'PurchaseOrderID' },
  Payments: { array: 'Payments', id: 'PaymentID' },
  BankTransactions: { array: 'BankTransactions', id: 'BankTransactionID' },
  BankSummary: null, // a report: the body is the record
  Journals: { array: 'Journals', id: 'JournalID' },
};

export function emptyBatch(): LedgerBatch {
  return {
    organisation: null,
    contacts: [],
    accounts: [],
    cashItems: [],
    repeatingInvoices: null,
    repeatingContacts: [],
    purchaseOrders: [],
    payments: [],
    bankTransactions: [],
    bankSummary: { balances: [], accounts: [] },
    journalLines: [],
  };
}

/** A validation error located in a body: which record (index and Xero id) and which field. */
export class XeroRecordError extends Error {
  constructor(
    /** Index of the record in the body's array; null for the body itself. */
    readonly recordIndex: number | null,
    /** 'InvoiceID 8f…' when the record has an id. */
    readonly recordId: string | null,
    readonly field: string,
    readonly problem: string,
  ) {
    const where = recordIndex === null ? '' : `record ${recordIndex}${recordId ? ` (${recordId})` : ''}: `;
    super(`${where}${field ? `${field}: ` : ''}${problem}`);
    this.name = 'XeroRecordError';
  }
}

/** The records of a body, or a XeroRecordError when the body does not hold them. */
export function recordsOf(resource: Resource, body: unknown): unknown[] {
  const keys = BODY_KEYS[resource];
  if (!keys) return [body];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new XeroRecordError(null, null, '', `expected a response body object with "${keys.array}", got ${jsonTypeOf(body)}`);
  }
  const arr = (body as Record<string, unknown>)[keys.array];
  if (arr === undefined || arr === null) {
    throw new XeroRecordError(null, null, keys.array, 'required (the body holds no such array)');
  }
  if (!Array.isArray(arr)) throw new XeroRecordError(null, null, keys.array, `expected an array, got ${jsonTypeOf(arr)}`);
  return arr;
}

function recordLabel(resource: Resource, record: unknown): string | null {
  const keys = BODY_KEYS[resource];
  if (!keys || typeof record !== 'object' || record === null) return null;
  const v = (record as Record<string, unknown>)[keys.id];
  return typeof v === 'string' && v !== '' && jsonTypeOf(v) === 'string' ? `${keys.id} ${v}` : null;
}

/**
 * Maps one response body (one page) of `resource` into `batch` (a new one by
 * default). Throws XeroRecordError naming the record and field at fault.
 */
export function mapPage(resource: Resource, body: unknown, ctx: MapContext, batch: LedgerBatch = emptyBatch()): LedgerBatch {
  const records = recordsOf(resource, body);
  // A body of repeating invoices is the whole list, even an empty one.
  if (resource === 'RepeatingInvoices') batch.repeatingInvoices ??= [];
  records.forEach((record, i) => {
    try {
      mapRecordInto(resource, record, ctx, batch);
    } catch (err) {
      if (err instanceof XeroValidationError) {
        const index = BODY_KEYS[resource] ? i : null;
        throw new XeroRecordError(index, recordLabel(resource, record), err.field, err.problem);
      }
      throw err;
    }
  });
  return batch;
}

function mapRecordInto(resource: Resource, record: unknown, ctx: MapContext, batch: LedgerBatch): void {
  switch (resource) {
    case 'Organisation': {
      // The first organisation is the tenant's own (GET /Organisation returns one).
      if (!batch.organisation) batch.organisation = mapOrganisation(record, ctx);
      return;
    }
    case 'Contacts':
      batch.contacts.push(mapContact(record, ctx));
      return;
    case 'Accounts':
      batch.accounts.push(mapAccount(record, ctx));
      return;
    case 'Invoices':
      batch.cashItems.push(mapInvoice(record, ctx));
      return;
    case 'CreditNotes':
      batch.cashItems.push(mapCreditNote(record, ctx));
      return;
    case 'Overpayments':
    case 'Prepayments':
      batch.cashItems.push(mapPrepaidCredit(resource, record, ctx));
      return;
    case 'RepeatingInvoices': {
      const m = mapRepeatingInvoice(record, ctx);
      (batch.repeatingInvoices ??= []).push(m.row);
      if (m.contact) batch.repeatingContacts.push(m.contact);
      return;
    }
    case 'PurchaseOrders':
      batch.purchaseOrders.push(mapPurchaseOrder(record, ctx));
      return;
    case 'Payments':
      batch.payments.push(mapPayment(record, ctx));
      return;
    case 'BankTransactions':
      batch.bankTransactions.push(mapBankTransaction(record, ctx));
      return;
    case 'BankSummary': {
      const m = mapBankSummary(record, ctx);
      batch.bankSummary.balances.push(...m.balances);
      batch.bankSummary.accounts.push(...m.accounts);
      return;
    }
    case 'Journals':
      for (const row of mapJournal(record, ctx)) batch.journalLines.push(row);
      return;
  }
}
