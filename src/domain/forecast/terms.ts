/**
 * The organisation's and its contacts' terms and payment delays, learnt from
 * the history summary (history.ts; docs/forecast.md#when-customers-pay).
 */
import { median, orgDelayDist, type DelayDist } from './behaviour.js';
import { countOf, countsMedian } from './history.js';
import type { LedgerHistory } from './types.js';

/** Default supplier terms when a supplier has no bill history (days). */
const DEFAULT_AP_TERMS = 30;

export interface Terms {
  /** Paid invoices the organisation's delays are learnt from. */
  arDelayCount: number;
  orgDelay: DelayDist;
  customerDelays: Map<string, number[]>;
  /** Median terms per customer and per supplier (days). */
  arTerms: Map<string, number>;
  apTerms: Map<string, number>;
  orgArTerms: number;
  orgApTerms: number;
  /** How late the organisation pays its bills (days, at least 0; 0 without five paid bills). */
  orgBillDelay: number;
  /** The organisation's median payment delay (0 without five paid invoices). */
  orgArDelayMedian: number;
}

/** Terms and delays; `openOverdue`: days overdue of the open receivables (openDocuments). */
export function learnTerms(history: LedgerHistory, openOverdue: readonly number[]): Terms {
  const arDelayCount = countOf(history.arDelays);
  const orgDelay = orgDelayDist(history.arDelays, openOverdue);
  const customerDelays = history.customerDelays;
  const medians = (m: Map<string, number[]>) => new Map([...m].map(([k, v]) => [k, median(v)]));
  const arTerms = medians(history.arTerms);
  const apTerms = medians(history.apTerms);
  const orgArTerms = countOf(history.orgArTerms) ? countsMedian(history.orgArTerms) : 30;
  const orgApTerms = countOf(history.orgApTerms) ? countsMedian(history.orgApTerms) : DEFAULT_AP_TERMS;
  const orgBillDelay = countOf(history.billDelays) >= 5 ? Math.max(0, countsMedian(history.billDelays)) : 0;
  const orgArDelayMedian = arDelayCount >= 5 ? countsMedian(history.arDelays) : 0;
  return { arDelayCount, orgDelay, customerDelays, arTerms, apTerms, orgArTerms, orgApTerms, orgBillDelay, orgArDelayMedian };
}
