/**
 * Writes of the Xero-compatible server: PUT and POST of /Invoices, /Contacts
 * and /Payments with Xero's bodies (`{ "Invoices": [ … ] }` or one object),
 * so tests and demos can change the books the way a user in Xero would.
 * Records are completed as Xero completes them (ids, numbers, totals from the
 * lines, AmountDue, a paid invoice's status) and stored through upsertRecord,
 * which stamps UpdatedDateUTC, so an incremental sync picks them up. A
 * request with any invalid element changes nothing and answers 400 with
 * Xero's ValidationException (summarizeErrors, Xero's default). Each change
 * yields the webhook event Xero would send (INVOICE or CONTACT).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dec, type Dec } from '../domain/money.js';
import { calendarDateToMsDate, parseXeroDate } from '../ledger/xero/dates.js';
import { ID_FIELD, upsertRecord, type ListResource, type Rec, type XeroDataset } from './dataset.js';
import { envelope, json, problem, readBody } from './http.js';
import type { WebhookEvent } from './webhooks.js';

type Writable = 'Invoices' | 'Contacts' | 'Payments';

/** Xero takes write requests of up to 3.5 MB. */
const WRITE_BODY_LIMIT = 3_500_000;

/** What a write request changed: the records to store, in order, and the events they raise. */
interface Change {
  resource: ListResource;
  record: Rec;
  /** The webhook event it raises (none for a payment record: its invoice's change raises one). */
  event: WriteEvent | null;
}

export type WriteEvent = Pick<WebhookEvent, 'eventCategory' | 'eventType' | 'resourceId'>;

/** The dataset as the request has changed it so far (later elements see earlier ones; nothing is stored until all pass). */
class Staging {
  readonly changes: Change[] = [];
  constructor(readonly data: XeroDataset) {}

  /** The latest version of each record of `resource` matching `pred` (staged first). */
  find(resource: ListResource, pred: (r: Rec) => boolean): Rec | undefined {
    const idField = ID_FIELD[resource];
    const staged = this.changes.filter((c) => c.resource === resource).map((c) => c.record);
    for (let i = staged.length - 1; i >= 0; i--) if (pred(staged[i]!)) return staged[i];
    const shadowed = new Set(staged.map((r) => r[idField]));
    return this.data.records[resource].find((r) => !shadowed.has(r[idField]) && pred(r));
  }

  byId(resource: ListResource, id: unknown): Rec | undefined {
    return typeof id === 'string' && id ? this.find(resource, (r) => r[ID_FIELD[resource]] === id) : undefined;
  }

  put(resource: ListResource, record: Rec, event: Omit<WriteEvent, 'resourceId'> | null): void {
    this.changes.push({ resource, record, event: event && { ...event, resourceId: String(record[ID_FIELD[resource]]) } });
  }
}

/** Collects the validation messages of one element. */
class Problems {
  readonly messages: string[] = [];
  add(message: string): void {
    this.messages.push(message);
  }
}

const isObj = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const round2 = (d: Dec) => Number(d.toDecimalPlaces(2).toFixed(2));

/** A number field: a JSON number (or a numeric string, which Xero also accepts); undefined when absent. */
function num(el: Rec, field: string, p: Problems): number | undefined {
  const v = el[field];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    p.add(`${field} must be a number`);
    return undefined;
  }
  return n;
}

function text(el: Rec, field: string, p: Problems): string | undefined {
  const v = el[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    p.add(`${field} must be a string`);
    return undefined;
  }
  return v;
}

/** A calendar date in any of Xero's forms ('2026-11-23', ISO with a time, /Date(ms)/), stored as Xero serves it. */
function dateField(el: Rec, field: string, p: Problems): string | undefined {
  const v = text(el, field, p);
  if (v === undefined) return undefined;
  const day = parseXeroDate(v.trim());
  if (!day) {
    p.add(`${field} is not a valid date: ${JSON.stringify(v)}`);
    return undefined;
  }
  return calendarDateToMsDate(day);
}

const today = () => calendarDateToMsDate(new Date().toISOString().slice(0, 10));

/** The request's elements: `{ "<Resource>": [ … ] }` or one object. */
function elementsOf(body: unknown, resource: Writable): Rec[] | null {
  if (!isObj(body)) return null;
  const list = body[resource];
  if (list === undefined) return [body];
  return Array.isArray(list) && list.every(isObj) ? (list as Rec[]) : null;
}

/** PUT/POST of a writable resource (or of /Invoices/{id}, /Contacts/{id}); `onEvent` hears each stored change. */
export async function handleWrite(
  data: XeroDataset,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  onEvent: (e: WriteEvent) => void,
): Promise<void> {
  const m = /^\/(Invoices|Contacts|Payments)(?:\/([^/]+))?$/.exec(path);
  if (!m || (m[2] && m[1] === 'Payments')) return problem(res, 405, 'Method Not Allowed', `${req.method} ${path} is not supported here`);
  const resource = m[1] as Writable;
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req, WRITE_BODY_LIMIT));
  } catch {
    return json(res, 400, { ErrorNumber: 14, Type: 'PostDataInvalidException', Message: 'The request body is not valid JSON' });
  }
  const elements = elementsOf(body, resource);
  if (!elements || elements.length === 0) {
    return json(res, 400, { ErrorNumber: 14, Type: 'PostDataInvalidException', Message: `Expected an object or { "${resource}": [ … ] }` });
  }
  if (m[2]) for (const el of elements) el[ID_FIELD[resource]] = decodeURIComponent(m[2]);
  const staging = new Staging(data);
  const failed: Rec[] = [];
  for (const el of elements) {
    const p = new Problems();
    if (resource === 'Invoices') writeInvoice(staging, el, p);
    else if (resource === 'Contacts') writeContact(staging, el, p);
    else writePayment(staging, el, p);
    if (p.messages.length) failed.push({ ...el, ValidationErrors: p.messages.map((Message) => ({ Message })) });
  }
  if (failed.length) {
    return json(res, 400, { ErrorNumber: 10, Type: 'ValidationException', Message: 'A validation exception occurred', Elements: failed });
  }
  // Every element passed: store them, then answer with the stored records of the resource written.
  const written = new Map<string, Rec>();
  for (const c of staging.changes) {
    const stored = upsertRecord(data, c.resource, c.record);
    if (c.resource === resource) written.set(String(stored[ID_FIELD[resource]]), stored);
    if (c.event) onEvent(c.event);
  }
  return json(res, 200, { ...envelope(), [resource]: [...written.values()] });
}

/** The next document number of a type (INV-00001 for sales, BILL-00001 for bills, as the demo numbers them). */
function nextNumber(staging: Staging, type: string): string {
  const prefix = type === 'ACCPAY' ? 'BILL' : 'INV';
  let max = 0;
  staging.find('Invoices', (r) => {
    const mm = new RegExp(`^${prefix}-(\\d+)$`).exec(String(r.InvoiceNumber ?? ''));
    if (mm) max = Math.max(max, Number(mm[1]));
    return false;
  });
  return `${prefix}-${String(max + 1).padStart(5, '0')}`;
}

/** The invoice's contact: an existing one by ContactID, or by Name (created when no contact has it, as Xero does). */
function invoiceContact(staging: Staging, raw: unknown, type: string, p: Problems): Rec | undefined {
  if (!isObj(raw)) {
    p.add('A Contact must be specified with this type of transaction');
    return undefined;
  }
  if (raw.ContactID !== undefined) {
    const c = staging.byId('Contacts', raw.ContactID);
    if (!c) p.add(`The contact with ContactID ${String(raw.ContactID)} could not be found`);
    return c && { ContactID: c.ContactID, Name: c.Name };
  }
  const name = typeof raw.Name === 'string' ? raw.Name.trim() : '';
  if (!name) {
    p.add('A Contact must be specified with this type of transaction');
    return undefined;
  }
  const found = staging.find('Contacts', (c) => String(c.Name ?? '').toLowerCase() === name.toLowerCase());
  if (found) return { ContactID: found.ContactID, Name: found.Name };
  const created: Rec = { ContactID: randomUUID(), ContactStatus: 'ACTIVE', Name: name, IsCustomer: type === 'ACCREC', IsSupplier: type === 'ACCPAY' };
  staging.put('Contacts', created, { eventCategory: 'CONTACT', eventType: 'CREATE' });
  return { ContactID: created.ContactID, Name: name };
}

/** One line item, completed (LineItemID, Quantity 1, LineAmount from quantity, price and discount, TaxAmount 0). */
function lineItem(raw: unknown, i: number, p: Problems): Rec | null {
  if (!isObj(raw)) {
    p.add(`LineItems[${i}] must be an object`);
    return null;
  }
  const lp = new Problems();
  const description = text(raw, 'Description', lp);
  const itemCode = text(raw, 'ItemCode', lp);
  const unit = num(raw, 'UnitAmount', lp);
  const quantity = num(raw, 'Quantity', lp) ?? 1;
  const discount = num(raw, 'DiscountRate', lp);
  const given = num(raw, 'LineAmount', lp);
  const tax = num(raw, 'TaxAmount', lp) ?? 0;
  if (!description && !itemCode) lp.add('Description is required');
  if (unit === undefined && given === undefined) lp.add('UnitAmount or LineAmount is required');
  for (const m of lp.messages) p.add(`LineItems[${i}]: ${m}`);
  if (lp.messages.length) return null;
  const amount = given ?? round2(dec(quantity).times(unit!).times(dec(1).minus(dec(discount ?? 0).div(100))));
  const out: Rec = { LineItemID: typeof raw.LineItemID === 'string' ? raw.LineItemID : randomUUID(), Description: description ?? '', Quantity: quantity };
  if (unit !== undefined) out.UnitAmount = unit;
  for (const f of ['ItemCode', 'AccountCode', 'TaxType'] as const) if (typeof raw[f] === 'string') out[f] = raw[f];
  if (discount !== undefined) out.DiscountRate = discount;
  out.TaxAmount = tax;
  out.LineAmount = amount;
  return out;
}

/** SubTotal, TotalTax and Total of the lines, by LineAmountTypes (Inclusive lines hold their tax). */
function totalsOf(lines: Rec[], amountTypes: string): { SubTotal: number; TotalTax: number; Total: number } {
  const sub = lines.reduce((s, l) => s.plus(l.LineAmount as number), dec(0));
  const tax = amountTypes === 'NoTax' ? dec(0) : lines.reduce((s, l) => s.plus(l.TaxAmount as number), dec(0));
  if (amountTypes === 'Inclusive') return { SubTotal: round2(sub.minus(tax)), TotalTax: round2(tax), Total: round2(sub) };
  return { SubTotal: round2(sub), TotalTax: round2(tax), Total: round2(sub.plus(tax)) };
}

const CREATE_STATUSES = ['DRAFT', 'SUBMITTED', 'AUTHORISED'];

/** Creates (no InvoiceID) or updates (the given fields of) an invoice or bill. */
function writeInvoice(staging: Staging, el: Rec, p: Problems): void {
  const existing = el.InvoiceID === undefined ? undefined : staging.byId('Invoices', el.InvoiceID);
  if (el.InvoiceID !== undefined && !existing) return p.add(`Invoice ${String(el.InvoiceID)} could not be found`);
  if (existing && ['PAID', 'VOIDED', 'DELETED'].includes(String(existing.Status))) {
    return p.add(`This invoice is ${String(existing.Status)} and cannot be modified`);
  }
  const type = text(el, 'Type', p) ?? (existing?.Type as string | undefined);
  if (type !== 'ACCREC' && type !== 'ACCPAY') return p.add('Type must be ACCREC or ACCPAY');
  if (existing && type !== existing.Type) p.add('The Type of an invoice cannot be changed');
  const inv: Rec = existing ? { ...existing } : { Type: type, InvoiceID: randomUUID(), Status: 'DRAFT', LineAmountTypes: 'Exclusive', AmountPaid: 0, AmountCredited: 0 };

  if (el.Contact !== undefined || !existing) {
    const contact = invoiceContact(staging, el.Contact, type, p);
    if (contact) inv.Contact = contact;
  }
  for (const f of ['Date', 'DueDate'] as const) {
    const d = dateField(el, f, p);
    if (d) inv[f] = d;
  }
  if (!inv.Date) inv.Date = today();
  for (const f of ['Reference', 'InvoiceNumber', 'CurrencyCode'] as const) {
    const v = text(el, f, p);
    if (v !== undefined) inv[f] = v;
  }
  inv.InvoiceNumber ??= nextNumber(staging, type);
  inv.CurrencyCode ??= staging.data.organisation.BaseCurrency ?? 'AUD';
  inv.CurrencyRate = num(el, 'CurrencyRate', p) ?? inv.CurrencyRate ?? 1;
  const amountTypes = text(el, 'LineAmountTypes', p);
  if (amountTypes !== undefined) {
    if (!['Exclusive', 'Inclusive', 'NoTax'].includes(amountTypes)) p.add('LineAmountTypes must be Exclusive, Inclusive or NoTax');
    else inv.LineAmountTypes = amountTypes;
  }
  applyLines(inv, el, p);
  applyStatus(inv, el, existing, p);
  const due = dec(inv.Total as number).minus(inv.AmountPaid as number).minus(inv.AmountCredited as number);
  if (due.isNegative()) p.add('The Total cannot be less than what was already paid or credited');
  inv.AmountDue = round2(due);
  if (p.messages.length === 0) staging.put('Invoices', inv, { eventCategory: 'INVOICE', eventType: existing ? 'UPDATE' : 'CREATE' });
}

/** New lines (when given) and the totals: each total as given, else computed from the lines. */
function applyLines(inv: Rec, el: Rec, p: Problems): void {
  if (el.LineItems !== undefined) {
    if (!Array.isArray(el.LineItems)) return p.add('LineItems must be a list');
    const lines = el.LineItems.map((l, i) => lineItem(l, i, p));
    if (lines.some((l) => l === null)) return;
    inv.LineItems = lines;
  }
  const computed = totalsOf((inv.LineItems as Rec[] | undefined) ?? [], String(inv.LineAmountTypes));
  for (const f of ['SubTotal', 'TotalTax', 'Total'] as const) {
    const given = num(el, f, p);
    if (given !== undefined) inv[f] = given;
    else if (el.LineItems !== undefined || inv[f] === undefined) inv[f] = computed[f];
  }
}

/** A status change as Xero allows it: PAID only by payments, VOIDED once authorised and unpaid, DELETED before. */
function applyStatus(inv: Rec, el: Rec, existing: Rec | undefined, p: Problems): void {
  const status = text(el, 'Status', p);
  if (status === undefined) return;
  const from = String(existing?.Status ?? 'DRAFT');
  if (status === 'PAID') return p.add('An invoice becomes PAID when payments cover it; apply a Payment');
  if (!existing && !CREATE_STATUSES.includes(status)) return p.add(`Status must be one of ${CREATE_STATUSES.join(', ')}`);
  if (status === 'VOIDED' && (!['AUTHORISED', 'SUBMITTED'].includes(from) || Number(inv.AmountPaid) > 0)) {
    return p.add('Only an authorised invoice without payments can be voided');
  }
  if (status === 'DELETED' && !['DRAFT', 'SUBMITTED'].includes(from)) return p.add('Only a draft or submitted invoice can be deleted');
  if (![...CREATE_STATUSES, 'VOIDED', 'DELETED'].includes(status)) return p.add(`Unknown Status ${status}`);
  if (status === 'AUTHORISED' && !inv.Contact) return p.add('A Contact must be specified with this type of transaction');
  inv.Status = status;
}

/** Creates (no ContactID) or updates a contact; names are unique among contacts, as in Xero. */
function writeContact(staging: Staging, el: Rec, p: Problems): void {
  const existing = el.ContactID === undefined ? undefined : staging.byId('Contacts', el.ContactID);
  if (el.ContactID !== undefined && !existing) return p.add(`Contact ${String(el.ContactID)} could not be found`);
  const c: Rec = existing ? { ...existing } : { ContactID: randomUUID(), ContactStatus: 'ACTIVE', IsCustomer: false, IsSupplier: false };
  for (const f of ['Name', 'EmailAddress', 'FirstName', 'LastName', 'ContactNumber', 'DefaultCurrency'] as const) {
    const v = text(el, f, p);
    if (v !== undefined) c[f] = f === 'Name' ? v.trim() : v;
  }
  const status = text(el, 'ContactStatus', p);
  if (status !== undefined) {
    if (status !== 'ACTIVE' && status !== 'ARCHIVED') p.add('ContactStatus must be ACTIVE or ARCHIVED');
    else c.ContactStatus = status;
  }
  for (const f of ['IsCustomer', 'IsSupplier'] as const) {
    if (el[f] === undefined) continue;
    if (typeof el[f] !== 'boolean') p.add(`${f} must be true or false`);
    else c[f] = el[f];
  }
  const name = String(c.Name ?? '');
  if (!name) return p.add('The contact name must be specified');
  const clash = staging.find('Contacts', (o) => o.ContactID !== c.ContactID && String(o.Name ?? '').toLowerCase() === name.toLowerCase());
  if (clash) return p.add(`The contact name ${name} is already assigned to another contact. The contact name must be unique across all active contacts.`);
  if (p.messages.length === 0) staging.put('Contacts', c, { eventCategory: 'CONTACT', eventType: existing ? 'UPDATE' : 'CREATE' });
}

/** A payment against an authorised invoice or bill from a bank account: the invoice's amounts (and status) follow. */
function writePayment(staging: Staging, el: Rec, p: Problems): void {
  const invRef = isObj(el.Invoice) ? el.Invoice : null;
  const inv = invRef && (staging.byId('Invoices', invRef.InvoiceID) ?? (typeof invRef.InvoiceNumber === 'string' ? staging.find('Invoices', (r) => r.InvoiceNumber === invRef.InvoiceNumber) : undefined));
  if (!inv) p.add('Invoice could not be found (give Invoice.InvoiceID or Invoice.InvoiceNumber)');
  else if (inv.Status !== 'AUTHORISED') p.add(`Payments can only be made against authorised invoices; this one is ${String(inv.Status)}`);
  const accRef = isObj(el.Account) ? el.Account : null;
  const account = accRef && (staging.byId('Accounts', accRef.AccountID) ?? (typeof accRef.Code === 'string' ? staging.find('Accounts', (a) => a.Code === accRef.Code) : undefined));
  if (!account) p.add('Account could not be found (give Account.AccountID or Account.Code)');
  else if (account.Type !== 'BANK' && account.EnablePaymentsToAccount !== true) p.add('Account type is invalid for making a payment to/from');
  const amount = num(el, 'Amount', p);
  if (amount === undefined || amount <= 0) p.add('Amount must be a positive number');
  const date = dateField(el, 'Date', p) ?? today();
  const reference = text(el, 'Reference', p);
  if (p.messages.length || !inv || !account || amount === undefined) return;
  if (dec(amount).greaterThan(inv.AmountDue as number)) return p.add('Payment amount exceeds the amount outstanding on this document');

  const payment: Rec = {
    PaymentID: randomUUID(),
    Date: date,
    Amount: amount,
    CurrencyRate: inv.CurrencyRate ?? 1,
    PaymentType: inv.Type === 'ACCPAY' ? 'ACCPAYPAYMENT' : 'ACCRECPAYMENT',
    Status: 'AUTHORISED',
    IsReconciled: false,
    Reference: reference ?? inv.InvoiceNumber,
    Account: { AccountID: account.AccountID, Code: account.Code },
    Invoice: { InvoiceID: inv.InvoiceID, InvoiceNumber: inv.InvoiceNumber },
  };
  const due = dec(inv.AmountDue as number).minus(amount);
  const updated: Rec = { ...inv, AmountPaid: round2(dec((inv.AmountPaid as number) ?? 0).plus(amount)), AmountDue: round2(due) };
  if (due.isZero()) Object.assign(updated, { Status: 'PAID', FullyPaidOnDate: date });
  // The invoice lists its payments when the dataset keeps them there.
  if (Array.isArray(inv.Payments)) updated.Payments = [...inv.Payments, { PaymentID: payment.PaymentID, Date: date, Amount: amount, Reference: payment.Reference, CurrencyRate: payment.CurrencyRate }];
  staging.put('Payments', payment, null);
  // Xero has no payment events: the payment changes its invoice, an INVOICE UPDATE.
  staging.put('Invoices', updated, { eventCategory: 'INVOICE', eventType: 'UPDATE' });
}
