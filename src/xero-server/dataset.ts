/** The dataset the Xero-compatible server serves: one organisation's records, in a stable paging order. */
import { randomUUID } from 'node:crypto';
import { parseXeroTimestamp, toMsDate } from '../ledger/xero/dates.js';
import type { XeroFiles } from '../demo/generate.js';

export const XERO_PAGED = ['Contacts', 'Invoices', 'CreditNotes', 'Overpayments', 'Prepayments', 'PurchaseOrders', 'Payments', 'BankTransactions'] as const;
export type PagedResource = (typeof XERO_PAGED)[number];
/** Every resource held as a list of records. */
export type ListResource = PagedResource | 'Accounts' | 'RepeatingInvoices';

export type Rec = Record<string, unknown>;

export const ID_FIELD: Record<ListResource, string> = {
  Contacts: 'ContactID',
  Invoices: 'InvoiceID',
  CreditNotes: 'CreditNoteID',
  Overpayments: 'OverpaymentID',
  Prepayments: 'PrepaymentID',
  RepeatingInvoices: 'RepeatingInvoiceID',
  PurchaseOrders: 'PurchaseOrderID',
  Payments: 'PaymentID',
  BankTransactions: 'BankTransactionID',
  Accounts: 'AccountID',
};

/** What the server serves: one organisation (tenant). */
export interface XeroDataset {
  tenantId: string;
  organisation: Rec;
  records: Record<ListResource, Rec[]>;
  journals: Rec[];
  /** The Reports/BankSummary body ({Reports: [...]}). */
  bankSummary: Rec;
}

function flatten(body: unknown, key: string): Rec[] {
  if (body === undefined) return [];
  const pages = Array.isArray(body) ? body : [body];
  return pages.flatMap((p) => ((p as Rec)[key] as Rec[] | undefined) ?? []);
}

/** A dataset from the bodies of `generateDemo` (or any folder of import files, parsed). */
export function datasetFromFiles(files: XeroFiles): XeroDataset {
  const orgBody = files['Organisation.json'] as { Organisations: Rec[] } | undefined;
  const organisation = orgBody?.Organisations?.[0] ?? { OrganisationID: randomUUID(), Name: 'Xero test organisation', BaseCurrency: 'AUD' };
  const records = {} as XeroDataset['records'];
  for (const r of [...XERO_PAGED, 'Accounts', 'RepeatingInvoices'] as const) records[r] = flatten(files[`${r}.json`], r);
  return {
    tenantId: String(organisation.OrganisationID),
    organisation,
    records,
    journals: flatten(files['Journals.json'], 'Journals').sort((a, b) => Number(a.JournalNumber) - Number(b.JournalNumber)),
    bankSummary: (files['BankSummary.json'] as Rec | undefined) ?? { Reports: [] },
  };
}

/**
 * An organisation the user may also authorise that has no books: an Organisation with its name and id, empty
 * lists and an empty bank summary (a sync against it finds nothing).
 */
export function emptyDataset(tenantId: string, name: string, baseCurrency: unknown): XeroDataset {
  const records = {} as XeroDataset['records'];
  for (const r of [...XERO_PAGED, 'Accounts', 'RepeatingInvoices'] as const) records[r] = [];
  return {
    tenantId,
    organisation: { OrganisationID: tenantId, Name: name, BaseCurrency: typeof baseCurrency === 'string' ? baseCurrency : 'AUD', OrganisationType: 'COMPANY' },
    records,
    journals: [],
    bankSummary: { Reports: [] },
  };
}

/** Adds or changes a record, stamping UpdatedDateUTC with the server's now (after any stamp it holds). */
export function upsertRecord(data: XeroDataset, resource: ListResource, record: Rec): Rec {
  const list = data.records[resource];
  const idField = ID_FIELD[resource];
  // The ledger's clock only moves forward: after every stamp it has given (demo data may be stamped later today).
  const latest = list.reduce((m, r) => Math.max(m, typeof r.UpdatedDateUTC === 'string' ? (parseXeroTimestamp(r.UpdatedDateUTC)?.getTime() ?? 0) : 0), 0);
  const stamped = { ...record, UpdatedDateUTC: toMsDate(new Date(Math.max(Date.now(), latest + 1000))) };
  const i = list.findIndex((r) => r[idField] === record[idField]);
  if (i >= 0) list[i] = stamped;
  else list.push(stamped);
  sortedCache.delete(list);
  return stamped;
}

/** Removes a record (a repeating invoice the user deleted disappears from the list). */
export function removeRecord(data: XeroDataset, resource: ListResource, id: string): void {
  const list = data.records[resource];
  const i = list.findIndex((r) => r[ID_FIELD[resource]] === id);
  if (i >= 0) list.splice(i, 1);
  sortedCache.delete(list);
}

const sortedCache = new WeakMap<Rec[], Rec[]>();
/** Records by UpdatedDateUTC, then id (a stable order for paging). */
export function sorted(list: Rec[], idField: string): Rec[] {
  const hit = sortedCache.get(list);
  if (hit && hit.length === list.length) return hit;
  const key = (r: Rec) => (typeof r.UpdatedDateUTC === 'string' ? (parseXeroTimestamp(r.UpdatedDateUTC)?.getTime() ?? 0) : 0);
  const out = list
    .map((r) => ({ r, k: key(r), id: String(r[idField] ?? '') }))
    .sort((a, b) => a.k - b.k || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((x) => x.r);
  sortedCache.set(list, out);
  return out;
}
