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
}

export interface DemoProfile {
  /** Stock bought, as a share of sales ex GST. */
  cogsRatio: number;
  /** Cash across the bank accounts on the day, in weeks of average outflows (small businesses hold a median of 27 days). */
  cashWeeks: number;
  /** A large one-off bill due this many days after the day (a shipment, equipment), as weeks of outflows; none when absent. */
  lumpyBill?: { inDays: number; weeks: number; supplier: string; desc: string };
}

