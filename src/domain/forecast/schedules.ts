/**
 * Xero repeating invoices and bills (GET /RepeatingInvoices): schedules the
 * ledger itself will turn into documents. Where an organisation has one, the
 * forecast knows the future invoices and bills instead of guessing them
 * (docs/forecast.md#schedules): each occurrence in the window is a known item,
 * and the customer's or supplier's detected pattern is not also projected.
 *
 * Pure calendar rules, on day numbers (days.ts):
 * - WEEKLY every `period` weeks from the next scheduled date;
 * - MONTHLY every `period` months, on the start date's day of the month (the
 *   month's last day when it is shorter: 31 January, 28 February, 31 March);
 * - nothing after the end date; DRAFT and DELETED schedules generate nothing.
 * Due dates follow Xero's DueDateType: N days after the document date
 * (DAYSAFTERBILLDATE, DAYSAFTERINVOICEDATE), N days after the end of its
 * month (DAYSAFTERBILLMONTH, DAYSAFTERINVOICEMONTH), day N of its month
 * (OFCURRENTMONTH) or of the next (OFFOLLOWINGMONTH), never before the
 * document date.
 */
import { fromDay, toDay } from './days.js';

export type ScheduleUnit = 'WEEKLY' | 'MONTHLY';

export interface RepeatingSchedule {
  id: string;
  /** AR: a repeating sales invoice (ACCREC); AP: a repeating bill (ACCPAY). */
  kind: 'AR' | 'AP';
  contactId: string | null;
  /** DRAFT, AUTHORISED or DELETED: only AUTHORISED schedules generate documents. */
  status: string;
  period: number;
  unit: ScheduleUnit;
  dueDate: number;
  dueDateType: string;
  startDate: string | null;
  endDate: string | null;
  nextScheduledDate: string | null;
  /** Each document's total, in the organisation's base currency (decimal string). */
  total: string;
  /** The account of the largest line. */
  accountId: string | null;
  reference: string | null;
}

interface Ymd {
  y: number;
  m: number; // 1-12
  d: number;
}

function ymd(day: number): Ymd {
  const s = fromDay(day);
  return { y: +s.slice(0, 4), m: +s.slice(5, 7), d: +s.slice(8, 10) };
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Day `d` of month `m` of year `y` (months may run past 12), clamped to the month's length. */
function dayOfMonth(y: number, m: number, d: number): number {
  const yy = y + Math.floor((m - 1) / 12);
  const mm = ((((m - 1) % 12) + 12) % 12) + 1;
  const dd = Math.min(Math.max(1, d), daysInMonth(yy, mm));
  return toDay(`${yy}-${String(mm).padStart(2, '0')}-${String(dd).padStart(2, '0')}`);
}

/** Whether a schedule generates documents at all (AUTHORISED, a positive period, a date to start from). */
export function isGenerating(s: RepeatingSchedule): boolean {
  return s.status === 'AUTHORISED' && s.period >= 1 && (s.unit === 'WEEKLY' || s.unit === 'MONTHLY') && (s.nextScheduledDate ?? s.startDate) !== null;
}

/**
 * The document dates (day numbers) a schedule generates in [from, to]: the
 * next scheduled date and its successors, none after the end date. A next
 * scheduled date already past (the ledger has not run it yet) counts from
 * `from` on: Xero generates it on its next run.
 */
export function scheduleOccurrences(s: RepeatingSchedule, from: number, to: number): number[] {
  if (!isGenerating(s)) return [];
  const anchor = toDay((s.nextScheduledDate ?? s.startDate)!);
  const last = s.endDate ? Math.min(to, toDay(s.endDate)) : to;
  const a = ymd(anchor);
  // The day of the month Xero keeps to: the start date's (a 31st stays the 31st after a short month).
  const dom = s.startDate ? ymd(toDay(s.startDate)).d : a.d;
  const nth = (k: number) => (s.unit === 'WEEKLY' ? anchor + 7 * s.period * k : dayOfMonth(a.y, a.m + k * s.period, dom));
  const out: number[] = [];
  // The next scheduled date, if already past, is generated on the ledger's next run: today.
  const first = Math.max(anchor, from);
  if (first <= last) out.push(first);
  for (let k = 1; ; k++) {
    const d = nth(k);
    if (d > last) break;
    if (d > first) out.push(d);
  }
  return out;
}

/** The due date (day number) of a document the schedule generates on `docDay`. */
export function scheduledDueDay(s: RepeatingSchedule, docDay: number): number {
  const n = s.dueDate;
  const { y, m } = ymd(docDay);
  let due: number;
  switch (s.dueDateType) {
    case 'DAYSAFTERBILLDATE':
    case 'DAYSAFTERINVOICEDATE':
      due = docDay + n;
      break;
    case 'DAYSAFTERBILLMONTH':
    case 'DAYSAFTERINVOICEMONTH':
      due = dayOfMonth(y, m, 31) + n;
      break;
    case 'OFCURRENTMONTH':
      due = dayOfMonth(y, m, n);
      break;
    case 'OFFOLLOWINGMONTH':
      due = dayOfMonth(y, m + 1, n);
      break;
    default:
      due = docDay;
  }
  return Math.max(docDay, due);
}
