/**
 * The state the demo's steps build together: the options resolved, the id
 * stream, the chart of accounts, the contacts, the documents, the journals
 * that post them, and each bank account's movements. Steps run in a fixed
 * order and draw from the one stream, so the same options give the same
 * business.
 */
import { openChart, type Account } from './accounts.js';
import { dayOf, msStamp } from './format.js';
import type { CustomerTruth, DemoOptions, DemoProfile } from './types.js';
import { Rng } from '../domain/random.js';

export interface JournalLine {
  code: string;
  net: number;
  tax?: number;
}

export interface Journal {
  day: number;
  sourceId: string;
  sourceType: string;
  lines: JournalLine[];
}

export interface BankMove {
  day: number;
  cents: number;
  reconciled: boolean;
  transfer?: boolean;
}

/** A contact as documents refer to it. */
export interface Party {
  ContactID: string;
  Name: string;
}

export type XeroRecord = Record<string, unknown>;

export interface DemoContext {
  rng: Rng;
  /** Each customer's habits and what came of them, as drawn (DemoOutput.truth). */
  customers: CustomerTruth[];
  scale: number;
  /** The day generated up to; the history starts three years before. */
  asOf: number;
  start: number;
  orgName: string;
  profile: DemoProfile;
  progress: (step: string, done: number, total: number) => void;
  /** Overheads (rent, staff, utilities, drawings) grow with the business, less than in proportion. */
  sized: (cents: number) => number;

  accounts: Account[];
  byCode: Map<string, Account>;
  cheque: Account;
  savings: Account;
  card: Account;

  contacts: XeroRecord[];
  invoices: XeroRecord[];
  creditNotes: XeroRecord[];
  purchaseOrders: XeroRecord[];
  payments: XeroRecord[];
  bankTxns: XeroRecord[];
  overpayments: XeroRecord[];
  prepayments: XeroRecord[];
  repeatingInvoices: XeroRecord[];
  journals: Journal[];
  bankMoves: Map<string, BankMove[]>;
  /** Sales ex GST by month (`YYYY-MM`), in base currency: what the stock bought follows. */
  salesByMonth: Map<string, number>;
  /** The last number given to each kind of document. */
  seq: { invoice: number; creditNote: number; bill: number; purchaseOrder: number };
}

export function createContext(opts: DemoOptions, profile: DemoProfile): DemoContext {
  const rng = new Rng(opts.seed ?? 20_240_601);
  const scale = opts.scale ?? 1;
  const asOf = dayOf(opts.asOf);
  const start = asOf - 3 * 365;
  const size = 0.4 + 0.6 * scale;
  const chart = { rng, start, accounts: [] as Account[], byCode: new Map<string, Account>() };
  const { cheque, savings, card } = openChart(chart);
  return {
    ...chart,
    scale,
    asOf,
    orgName: opts.name ?? 'Harbour & Vine Supplies',
    profile,
    progress: opts.onProgress ?? (() => {}),
    sized: (cents: number) => Math.round(cents * size),
    cheque,
    savings,
    card,
    contacts: [],
    invoices: [],
    creditNotes: [],
    purchaseOrders: [],
    payments: [],
    bankTxns: [],
    overpayments: [],
    prepayments: [],
    repeatingInvoices: [],
    journals: [],
    bankMoves: new Map([
      [cheque.AccountID, []],
      [savings.AccountID, []],
      [card.AccountID, []],
    ]),
    salesByMonth: new Map(),
    seq: { invoice: 0, creditNote: 0, bill: 0, purchaseOrder: 0 },
    customers: [],
  };
}

/** Movements up to three days before the day are reconciled; the last few are not yet. */
export const reconciledBy = (ctx: DemoContext, day: number) => day <= ctx.asOf - 3;

export function moveBank(ctx: DemoContext, acc: Account, day: number, cents: number, transfer = false): void {
  ctx.bankMoves.get(acc.AccountID)!.push({ day, cents, reconciled: reconciledBy(ctx, day), transfer });
}

export function addContact(
  ctx: DemoContext,
  Name: string,
  kind: { customer?: boolean; supplier?: boolean },
  firstDay: number,
  extra: Record<string, unknown> = {},
) {
  const c = {
    ContactID: ctx.rng.guid(),
    ContactStatus: 'ACTIVE',
    Name,
    EmailAddress: `${Name.toLowerCase().replace(/[^a-z0-9]+/g, '.').replace(/^\.|\.$/g, '')}@example.com`,
    IsCustomer: Boolean(kind.customer),
    IsSupplier: Boolean(kind.supplier),
    UpdatedDateUTC: msStamp(firstDay),
    ...extra,
  };
  ctx.contacts.push(c);
  return c;
}
