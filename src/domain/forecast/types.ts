/**
 * The forecast engine's inputs and outputs (docs/forecast.md). Inputs are
 * plain data as the store returns it (money as exact decimal strings in the
 * organisation's base currency, dates as YYYY-MM-DD); the engine is pure.
 */

import type { RepeatingSchedule } from './schedules.js';

export type { RepeatingSchedule } from './schedules.js';

/**
 * A contact's credit not yet allocated (credit notes, overpayments and
 * prepayments; base currency): it reduces what the contact will still pay (AR)
 * or be paid (AP) on its open documents (docs/forecast.md#credits).
 */
export interface ContactCredit {
  contactId: string;
  kind: 'AR' | 'AP';
  amount: string;
}

export type LedgerStatus = 'DRAFT' | 'SUBMITTED' | 'AUTHORISED' | 'PAID' | 'VOIDED' | 'DELETED';

/** An invoice (AR, the ledger's ACCREC) or a bill (AP, ACCPAY), open or historical. */
export interface LedgerItem {
  id: string;
  kind: 'AR' | 'AP';
  contactId: string | null;
  status: LedgerStatus;
  issueDate: string | null;
  dueDate: string | null;
  /** The date it was fully paid; null while open. */
  paidDate: string | null;
  /** Gross total, base currency. */
  total: string;
  /** Outstanding amount as of the forecast date, base currency. */
  amountDue: string;
  number: string | null;
  reference: string | null;
  /** The account (id) of the item's largest line: its category. */
  accountId: string | null;
  /** Every account (id) its lines are coded to, sorted, when there are two or more (a tax return's bill: GST and the tax withheld); absent otherwise. */
  accountIds?: string[];
}

/** A spend- or receive-money bank transaction (transfers between own accounts excluded). */
export interface BankTxn {
  id: string;
  date: string;
  /** Signed: positive money in, negative money out; base currency. */
  amount: string;
  contactId: string | null;
  /** The account (id) of its first line. */
  accountId: string | null;
  reference: string | null;
  /**
   * Every account (id) its lines are coded to, sorted, when there are two or
   * more (a GST return and the tax withheld paid in one transaction); absent
   * for a transaction of one account.
   */
  accountIds?: string[];
}

export interface PurchaseOrder {
  id: string;
  number: string;
  reference: string;
  contactId: string | null;
  /** DRAFT, SUBMITTED, AUTHORISED, BILLED, DELETED */
  status: string;
  issueDate: string | null;
  deliveryDate: string | null;
  expectedArrivalDate: string | null;
  total: string;
}

export interface BankAccountBalance {
  id: string;
  name: string;
  currency: string;
  /** The ledger's balance of reconciled transactions. */
  reconciledBalance: string;
  /** The bank statement's balance, when a feed statement is known. */
  statementBalance: string | null;
  /** Net of the AUTHORISED, unreconciled payments and bank transactions dated up to the forecast date. */
  unreconciledNet: string;
}

/** The operator's opening-cash override. */
export interface CashOverride {
  amount: string;
  /** ISO instant it was set. */
  setAt: string;
  /** Net of the payments and bank transactions dated after the override's day, up to the forecast date. */
  movementsSince: string;
}

/** An operator's manual forecast line. */
export interface ManualItem {
  id: string;
  date: string;
  /** Signed: positive in, negative out. */
  amount: string;
  description?: string;
  accountId?: string | null;
  /** Not scaled by the scenario's inflow and outflow factors (a what-if's one-off: its amount as given). */
  exact?: boolean;
}

export interface ForecastInput {
  orgId: string;
  /** The organisation's today (its time zone): week 1 is the week holding it. */
  asOf: string;
  currency: string;
  bankAccounts: BankAccountBalance[];
  override: CashOverride | null;
  /**
   * The invoices and bills the engine reads one by one: with `history`, the
   * open ones and the bills that may match a purchase order; without it, all
   * of them (the engine then summarises them itself).
   */
  items: LedgerItem[];
  /** What the behaviour models learn from (history.ts); computed from `items` when absent. */
  history?: LedgerHistory;
  bankTxns: BankTxn[];
  purchaseOrders: PurchaseOrder[];
  manualItems: ManualItem[];
  /** Names and codes of the accounts referenced by items and transactions. */
  accounts: Record<string, { name: string; code: string | null }>;
  /** Repeating invoices and bills (the ledger's schedules); none when absent. */
  schedules?: RepeatingSchedule[];
  /** Unallocated credits per contact; none when absent. */
  credits?: ContactCredit[];
  /**
   * Names of the customers with open invoices (id to name), for the notes that
   * name one (the band's driver); notes say "one customer" without it. Whether
   * a name is shown is decided at every read (redactNotes).
   */
  contactNames?: Record<string, string>;
  /**
   * What moved each liability account (GST, tax withheld, superannuation...)
   * per day, from the ledger's journals up to `asOf`: what payments that
   * settle such an account are forecast from (liabilities.ts). None without
   * journals.
   */
  liabilityLines?: LiabilityLine[];
}

/** A liability account's journal lines of one day, added up: credit positive (what the business came to owe; a payment of it negative). */
export interface LiabilityLine {
  accountId: string;
  date: string;
  amount: string;
}

export type ScenarioKind = 'BASE' | 'BEST' | 'WORST' | 'CUSTOM';

/** Documented scenario adjustments (docs/forecast.md#scenarios). */
export interface ScenarioAdjustments {
  /** Multiplies every inflow (decimal string, e.g. '1.05'). */
  inflowFactor?: string;
  /** Multiplies every outflow. */
  outflowFactor?: string;
  /** Days added to every customer's payment delay (negative: earlier). */
  paymentDelayShiftDays?: number;
  /** Ledger or forecast item ids left out. */
  excludedItemIds?: string[];
  /** Extra manual lines of this scenario only. */
  manualItems?: ManualItem[];
}

export interface Scenario {
  id: string;
  name: string;
  kind: ScenarioKind;
  adjustments: ScenarioAdjustments;
}

export type NoteKind = 'seasonality' | 'trend' | 'pipeline' | 'ar' | 'concentration';
export type NoteWindow = 'this_month' | 'next_4w' | 'this_quarter';

/** AgentNote (spec 2.1). */
export interface AgentNote {
  kind: NoteKind;
  window: NoteWindow;
  severity: 'info' | 'warn';
  text: string;
  sourceInsightId?: string;
  /** The contact the text names, by name: a read without READ_SENSITIVE rewrites a sensitive one's name (redactNotes). */
  contact?: { id: string; name: string };
}

export interface CategoryEntry {
  name: string;
  code: string | null;
  inflow: string;
  outflow: string;
}

// ---------------------------------------------------------------------------
// Bands and the shortfall (bands.ts; docs/forecast.md#bands)
// ---------------------------------------------------------------------------

/** A figure's 80% band and median (decimal strings). */
export interface Band {
  p10: string;
  p50: string;
  p90: string;
}

export interface WeekBands {
  inflow: Band;
  outflow: Band;
  closing: Band;
  /** Whether the organisation's history calibrated these bands (false: the simulation's own, not proven). */
  calibrated: boolean;
}

export interface Shortfall {
  /** Closing cash below this is a shortfall: 0, or the organisation's cash buffer. */
  threshold: string;
  /** Probability that closing cash falls below the threshold in at least one of the weeks. */
  probability: number;
  /** The week (0-based) a shortfall most often starts in, among the futures that have one (none: the week lowest at its closing P10); null when probability is 0. */
  firstLikelyWeekIndex: number | null;
  /**
   * The cash that, had the business it today, keeps closing cash at or above
   * the threshold in every one of the weeks in 9 futures of 10 (0 when 9 in 10
   * never fall below it). Absent in snapshots stored before session 23.
   */
  cushion90?: string;
}

/** The public face of the calibration (the API's `calibration`). */
export interface CalibrationSummary {
  method: string;
  /** Past cut-offs replayed. */
  cutoffs: number;
  /** The replay's measured coverage of the calibrated 80% bands (null before any band could be scored). */
  coverage80: number | null;
  /** The day the calibration was computed. */
  asOf: string;
}

/** ForecastWeek (spec 2.3). */
export interface ForecastWeek {
  weekStart: string;
  weekEnd: string;
  opening: string;
  inflow: string;
  guaranteedInflow?: string;
  forecastInflow?: string;
  outflow: string;
  net: string;
  closing: string;
  itemIds: string[];
  overdueItemIds?: string[];
  probabilityWeighted?: boolean;
  categories?: { accounts: Record<string, CategoryEntry> };
  /** P10, P50 and P90 of inflow, outflow and closing cash (engine version 3 on). */
  bands?: WeekBands;
  /** Probability that closing cash is below the shortfall threshold this week. */
  shortfallProbability?: number;
}

export interface CashPositionAccount {
  id: string;
  name: string;
  currency: string;
  reconciledBalance: string;
  statementBalance: string;
  balanceSource: 'STATEMENT' | 'RECONCILED';
  /** What this account contributes to effectiveStartingCash before an override (its statementBalance). */
  effectiveBalance: string;
  /** Which balance the forecast starts this account from, why, and any adjustment (a sentence). */
  basis: string;
}

/** The opening cash (spec 2.2 CashPositionResponse, minus the read-time fields). */
export interface CashPosition {
  asOfDate: string;
  startingCash: string;
  source: 'manual' | 'ledger_reconciled';
  ledgerReconciledTotal: string;
  effectiveStartingCash: string;
  /** effectiveStartingCash minus the base it started from (the override, or ledgerReconciledTotal). */
  adjustment: string;
  currency: string;
  accounts: CashPositionAccount[];
}

/** The stored snapshot payload: ForecastResponse (spec 2.3) without the read-time fields. */
export interface ForecastPayload {
  engineVersion: number;
  scenarioId: string;
  scenarioName: string;
  scenarioKind: ScenarioKind;
  computedAt: string;
  asOfDate: string;
  currency: string;
  weeks: ForecastWeek[];
  startingCash: string;
  endingCash: string;
  minClosingCash: string;
  minClosingCashWeekIndex: number;
  totalInflow: string;
  totalOutflow: string;
  notesForAgent: AgentNote[];
  cashPosition: CashPosition;
  /** Engine version 3 on: the probability of running short in the 13 weeks. */
  shortfall?: Shortfall;
  /** Engine version 3 on: the calibration the bands stand on; null when the history is too short to calibrate. */
  calibration?: CalibrationSummary | null;
}

// ---------------------------------------------------------------------------
// What the behaviour models learn from (history.ts builds it)
// ---------------------------------------------------------------------------

/** How many times each value occurs. */
export type Counts = Map<number, number>;

/** A contact's documents summed per day, oldest first. */
export interface DaySeries {
  days: number[];
  /** Exact decimal strings, one per day: the document's total, or the canonical sum of the day's documents. */
  totals: string[];
  /** The account of the contact's latest document of this kind (by date, then id): the category of what is predicted from it. */
  accountId: string | null;
  /** Every account that latest document's lines are coded to, when two or more (LedgerItem.accountIds). */
  accountIds?: string[];
}

export interface LedgerHistory {
  /** Invoices paid before today: paid - due (the issue date when no due date) in days, of those due within LOOKBACK (history.ts). */
  arDelays: Counts;
  /** Per customer: the delays of its latest RECENT paid invoices (by paid date, then id), oldest first. */
  customerDelays: Map<string, number[]>;
  /** Per contact: the terms (due - issue, at least 0) of its latest RECENT AUTHORISED or PAID invoices (bills) issued by today, oldest first. */
  arTerms: Map<string, number[]>;
  apTerms: Map<string, number[]>;
  /** The same terms of every such document issued within LOOKBACK. */
  orgArTerms: Counts;
  orgApTerms: Counts;
  /** Bills paid before today, within 365 days: paid - due (or issue). */
  billDelays: Counts;
  /** Per supplier: the delays (paid - due) of its latest RECENT paid bills (by paid date, then id), oldest first. */
  supplierDelays: Map<string, number[]>;
  /** Totals of the invoices paid in the 28 days before today. */
  receiptsLast28: string;
  /** AUTHORISED and PAID invoices per month of issue (month index, days.ts), issued by today. */
  monthlyRevenue: Map<number, string>;
  /** Per customer: its invoices of any status dated by today, within ORDER_HISTORY. */
  orders: Map<string, DaySeries>;
  /** Per supplier: its bills of any status dated by today, within LOOKBACK. */
  bills: Map<string, DaySeries>;
}

