/** The demo generator's options and output (src/demo/generate.ts). */

/** Xero response bodies by file name (Organisation.json, Invoices.json, ...). */
export type XeroFiles = Record<string, unknown>;

export interface DemoOptions {
  seed?: number;
  asOf: Date;
  /** Multiplies the number of customers (1 = about 320), and sizes the overheads. */
  scale?: number;
  name?: string;
  /**
   * The kind of business (docs/demo-data.md): its cost of goods as a share of
   * sales, and the weeks of outflows it holds in cash on the day.
   * Default: the wholesaler.
   */
  profile?: DemoProfile;
  onProgress?: (step: string, done: number, total: number) => void;
}

export interface DemoOutput {
  files: XeroFiles;
  /** What the operator flags sensitive in the demo (payroll, the director). */
  sensitive: { contactIds: string[]; accountCodes: string[] };
  counts: Record<string, number>;
  /** What the generator drew and did: the ground truth a forecast of the demo is measured against (bench/oracle.ts). */
  truth: DemoTruth;
}

/** Days are whole days since 1970-01-01 (UTC). */
export interface DemoTruth {
  /** The first day of the history and the day generated to. */
  start: number;
  asOf: number;
  customers: CustomerTruth[];
}

/** A customer's habits, as drawn, and the orders and payments they made. */
export interface CustomerTruth {
  contactId: string;
  /** Days between its orders (0: a few one-off orders). */
  cadenceDays: number;
  acquired: number;
  /** The day it stops ordering; null: never. */
  leaves: number | null;
  /** How many one-off orders it places (0 for a cadence). */
  oneOffOrders: number;
  /** Its typical order before the season, growth and noise (cents of its currency). */
  orderSize: number;
  /** Units of its currency per AUD. */
  rate: number;
  foreign: boolean;
  terms: number;
  latePayer: boolean;
  /** Every order day up to the day generated to, with those it skipped. */
  orderDays: { day: number; skipped: boolean }[];
  /** Its authorised invoices: issued, due, owed once an allocated credit note is off (AUD cents), paid in full (null: not by the day generated to). */
  invoices: { day: number; due: number; owed: number; paid: number | null }[];
}

export interface DemoProfile {
  /** Stock bought, as a share of sales ex GST. */
  cogsRatio: number;
  /** Cash across the bank accounts on the day, in weeks of average outflows (small businesses hold a median of 27 days). */
  cashWeeks: number;
  /** A large one-off bill due this many days after the day (a shipment, equipment), as weeks of outflows; none when absent. */
  lumpyBill?: { inDays: number; weeks: number; supplier: string; desc: string };
}

