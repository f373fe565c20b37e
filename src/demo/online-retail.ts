/**
 * Turns the UCI Online Retail data set (../shared/data/online-retail.csv.gz,
 * real purchase history of ~4,300 customers, 2010-12 to 2011-12) into Xero
 * Accounting API bodies for a second organisation, read by the importer like
 * any other ledger. Conventions (docs/demo-data.md):
 * - one ACCREC invoice per InvoiceNo, one line per CSV row (Quantity,
 *   UnitAmount = UnitPrice, LineAmount = Quantity x UnitPrice exactly, no tax),
 *   dated the invoice's calendar date as written (UK time), due the same day,
 *   PAID that day by one payment into the bank account;
 * - invoice numbers starting with C (cancellations) become ACCRECCREDIT credit
 *   notes of the absolute amounts, refunded (PAID, no remaining credit);
 * - rows without a CustomerID belong to one contact, "Walk-in customers";
 * - invoices whose total is zero or negative (bad-debt adjustments, free
 *   samples) are skipped and counted in `skipped`;
 * - ids are GUID-shaped hashes of the source keys, so they are stable.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { D } from '../domain/money.js';
import { pages } from './generate.js';
import type { XeroFiles } from './types.js';

export interface OnlineRetailOptions {
  onProgress?: (step: string, done: number, total: number) => void;
  /** Read at most this many CSV rows (tests). */
  maxRows?: number;
  /**
   * false: the documents without their lines (541,909 of them), totals as
   * with them: for whoever reads when and how much was owed and paid, never
   * what was sold (the replays, the analytics), a third of the conversion's
   * time and most of the import's.
   */
  lines?: boolean;
}

export interface OnlineRetailOutput {
  files: XeroFiles;
  counts: { rows: number; invoices: number; creditNotes: number; customers: number; skipped: number };
}

export const WALK_IN = 'Walk-in customers';
const TOTAL_ROWS = 541_909;

export function stableGuid(key: string): string {
  const h = createHash('sha1').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Splits one CSV line (RFC 4180 quoting). */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

interface Row {
  stock: string;
  desc: string;
  qty: string;
  price: string;
}

interface Doc {
  number: string;
  date: string;
  customer: string | null;
  country: string;
  rows: Row[];
}

const msDate = (isoDate: string) => `/Date(${Date.parse(`${isoDate}T00:00:00Z`)}+0000)/`;
const num = (d: InstanceType<typeof D>) => Number(d.toFixed());

type Progress = NonNullable<OnlineRetailOptions['onProgress']>;
type Body = Record<string, unknown>;

/** Reads the CSV into one document per InvoiceNo (first-seen order), with the number of rows read. */
async function readDocs(csvGzPath: string, opts: OnlineRetailOptions, progress: Progress): Promise<{ docs: Map<string, Doc>; rows: number }> {
  const docs = new Map<string, Doc>();
  // pipe() does not pass the file's errors on: a missing or unreadable file must fail the read, not leave it waiting.
  const file = createReadStream(csvGzPath);
  const gunzip = createGunzip();
  file.on('error', (err) => gunzip.destroy(err));
  const lines = createInterface({ input: file.pipe(gunzip), crlfDelay: Infinity });
  let rows = 0;
  let header = true;
  for await (const line of lines) {
    if (header) {
      header = false;
      if (!line.startsWith('InvoiceNo,')) throw new Error(`${csvGzPath}: unexpected header ${line.slice(0, 80)}`);
      continue;
    }
    if (!line) continue;
    if (opts.maxRows !== undefined && rows >= opts.maxRows) break;
    const [invoiceNo, stock, desc, qty, date, price, customerId, country] = csvFields(line);
    if (!invoiceNo || !date || qty === undefined || price === undefined) throw new Error(`${csvGzPath}: row ${rows + 2}: malformed`);
    rows++;
    let doc = docs.get(invoiceNo);
    if (!doc) {
      const customer = customerId ? String(Math.round(Number(customerId))) : null;
      doc = { number: invoiceNo, date: date.slice(0, 10), customer, country: country ?? '', rows: [] };
      docs.set(invoiceNo, doc);
    }
    doc.rows.push({ stock: stock ?? '', desc: desc ?? '', qty, price });
    if (rows % 20_000 === 0) progress('read', rows, opts.maxRows ?? TOTAL_ROWS);
  }
  progress('read', rows, rows);
  return { docs, rows };
}

/** The organisation's two accounts: the bank account payments go into, and Sales. */
function ledgerAccounts() {
  const bank = { AccountID: stableGuid('account:090'), Code: '090', Name: 'Business Current Account', Type: 'BANK', Class: 'ASSET', Status: 'ACTIVE', BankAccountType: 'BANK', CurrencyCode: 'GBP' };
  const sales = { AccountID: stableGuid('account:200'), Code: '200', Name: 'Sales', Type: 'REVENUE', Class: 'REVENUE', Status: 'ACTIVE' };
  return { bank, sales };
}

/** The contact of a document's customer (or Walk-in customers), created in `contacts` on first use. */
function contactFor(contacts: Map<string, Body>, doc: Doc): Body {
  const key = doc.customer ?? WALK_IN;
  let c = contacts.get(key);
  if (!c) {
    c = {
      ContactID: stableGuid(`contact:${key}`),
      Name: doc.customer ? `Customer ${doc.customer}` : WALK_IN,
      ContactStatus: 'ACTIVE',
      IsCustomer: true,
      IsSupplier: false,
      DefaultCurrency: 'GBP',
      Addresses: [{ AddressType: 'POBOX', Country: doc.country }],
      UpdatedDateUTC: `/Date(${Date.parse(`${doc.date}T00:00:00Z`)}+0000)/`,
    };
    contacts.set(key, c);
  }
  return c;
}

/** A document's line amounts, as its lines carry them (credit notes' positive): its total is their sum. */
function lineAmountsOf(doc: Doc, credit: boolean): number[] {
  return doc.rows.map((r) => {
    const amount = new D(r.qty).times(r.price);
    return num(credit ? amount.abs() : amount);
  });
}

/** A document's line items (absolute amounts for a credit note), with their `amounts` (lineAmountsOf). */
function lineItemsOf(doc: Doc, credit: boolean, amounts: readonly number[]) {
  return doc.rows.map((r, i) => {
    const qty = new D(r.qty);
    return {
      LineItemID: stableGuid(`line:${doc.number}:${i}`),
      Description: r.desc,
      ItemCode: r.stock,
      Quantity: num(credit ? qty.abs() : qty),
      UnitAmount: num(new D(r.price)),
      LineAmount: amounts[i]!,
      TaxAmount: 0,
      TaxType: 'NONE',
      AccountCode: '200',
    };
  });
}

/** What a converted document's bodies share. */
interface DocParts {
  doc: Doc;
  contactRef: { ContactID: unknown; Name: unknown };
  /** Undefined when converted without lines. */
  lineItems: ReturnType<typeof lineItemsOf> | undefined;
  total: InstanceType<typeof D>;
  stamp: string;
}

/** The refunded ACCRECCREDIT credit note of a cancellation. */
function creditNoteBody({ doc, contactRef, lineItems, total, stamp }: DocParts): Body {
  return {
    Type: 'ACCRECCREDIT',
    CreditNoteID: stableGuid(`cn:${doc.number}`),
    CreditNoteNumber: doc.number,
    Contact: contactRef,
    Date: msDate(doc.date),
    Status: 'PAID',
    LineAmountTypes: 'NoTax',
    ...(lineItems ? { LineItems: lineItems } : {}),
    SubTotal: num(total),
    TotalTax: 0,
    Total: num(total),
    RemainingCredit: 0,
    CurrencyCode: 'GBP',
    UpdatedDateUTC: stamp,
  };
}

/** The ACCREC invoice of a sale, paid on its date. */
function invoiceBody({ doc, contactRef, lineItems, total, stamp }: DocParts): Body {
  return {
    Type: 'ACCREC',
    InvoiceID: stableGuid(`inv:${doc.number}`),
    InvoiceNumber: doc.number,
    Contact: contactRef,
    Date: msDate(doc.date),
    DueDate: msDate(doc.date),
    FullyPaidOnDate: msDate(doc.date),
    Status: 'PAID',
    LineAmountTypes: 'NoTax',
    ...(lineItems ? { LineItems: lineItems } : {}),
    SubTotal: num(total),
    TotalTax: 0,
    Total: num(total),
    AmountDue: 0,
    AmountPaid: num(total),
    AmountCredited: 0,
    CurrencyCode: 'GBP',
    CurrencyRate: 1,
    UpdatedDateUTC: stamp,
  };
}

/** The payment of a sale's invoice into the bank account, on its date. */
function paymentBody({ doc, total, stamp }: DocParts, bank: { AccountID: string; Code: string }): Body {
  return {
    PaymentID: stableGuid(`pay:${doc.number}`),
    Date: msDate(doc.date),
    Amount: num(total),
    PaymentType: 'ACCRECPAYMENT',
    Status: 'AUTHORISED',
    IsReconciled: true,
    Reference: doc.number,
    Account: { AccountID: bank.AccountID, Code: bank.Code },
    Invoice: { InvoiceID: stableGuid(`inv:${doc.number}`), InvoiceNumber: doc.number },
    UpdatedDateUTC: stamp,
  };
}

interface Converted {
  contacts: Map<string, Body>;
  invoices: Body[];
  creditNotes: Body[];
  payments: Body[];
  skipped: number;
}

/** Converts each document to a credit note, or an invoice and its payment; non-positive totals are skipped. */
function convertDocs(docs: Map<string, Doc>, bank: { AccountID: string; Code: string }, progress: Progress, withLines: boolean): Converted {
  const out: Converted = { contacts: new Map(), invoices: [], creditNotes: [], payments: [], skipped: 0 };
  let done = 0;
  for (const doc of docs.values()) {
    if (++done % 5_000 === 0) progress('convert', done, docs.size);
    const credit = doc.number.startsWith('C');
    const amounts = lineAmountsOf(doc, credit);
    const total = amounts.reduce((a, x) => a.plus(String(x)), new D(0));
    const lineItems = withLines ? lineItemsOf(doc, credit, amounts) : undefined;
    if (total.lte(0)) {
      out.skipped++;
      continue;
    }
    const c = contactFor(out.contacts, doc);
    const parts: DocParts = { doc, contactRef: { ContactID: c.ContactID, Name: c.Name }, lineItems, total, stamp: `/Date(${Date.parse(`${doc.date}T18:00:00Z`)}+0000)/` };
    if (credit) {
      out.creditNotes.push(creditNoteBody(parts));
      continue;
    }
    out.invoices.push(invoiceBody(parts));
    out.payments.push(paymentBody(parts, bank));
  }
  progress('convert', docs.size, docs.size);
  return out;
}

/** The Xero files of the organisation: its settings, accounts and the converted documents, paged. */
function xeroFiles(accounts: ReturnType<typeof ledgerAccounts>, c: Converted): XeroFiles {
  return {
    'Organisation.json': {
      Organisations: [
        {
          OrganisationID: stableGuid('org:online-retail'),
          Name: 'Online Retail (UCI)',
          BaseCurrency: 'GBP',
          CountryCode: 'GB',
          FinancialYearEndDay: 31,
          FinancialYearEndMonth: 3,
          Timezone: 'GMTSTANDARDTIME',
        },
      ],
    },
    'Accounts.json': { Accounts: [accounts.bank, accounts.sales] },
    'Contacts.json': pages('Contacts', [...c.contacts.values()]),
    'Invoices.json': pages('Invoices', c.invoices),
    'CreditNotes.json': pages('CreditNotes', c.creditNotes),
    'Payments.json': pages('Payments', c.payments),
  };
}

export async function convertOnlineRetail(csvGzPath: string, opts: OnlineRetailOptions = {}): Promise<OnlineRetailOutput> {
  const progress = opts.onProgress ?? (() => {});
  const { docs, rows } = await readDocs(csvGzPath, opts, progress);
  const accounts = ledgerAccounts();
  const converted = convertDocs(docs, accounts.bank, progress, opts.lines !== false);
  return {
    files: xeroFiles(accounts, converted),
    counts: {
      rows,
      invoices: converted.invoices.length,
      creditNotes: converted.creditNotes.length,
      customers: converted.contacts.size,
      skipped: converted.skipped,
    },
  };
}
