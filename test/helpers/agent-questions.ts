/**
 * The questions owners, bookkeepers and advisors ask (issue 19), each with
 * the MCP tool calls that answer it (at most three; a later call may use an
 * earlier answer) and how the answer is read from them. The replay
 * (test/agent-questions.test.ts) runs them through an MCP client against the
 * demo and writes docs/agent-questions.md from what came back; each answer
 * names the figures it quotes (`evidence`), which must appear verbatim in
 * the responses.
 */
import type { z } from 'zod';
import type { AgedPayablesResponse, AgedReceivablesResponse } from '../../src/schemas/aged.js';
import type {
  AccountBalancesResponse,
  BankAccountsResponse,
  BillsResponse,
  ContactDrillResponse,
  ContactsListResponse,
  CreditNotesResponse,
  InvoicesResponse,
  PurchaseOrderDrillResponse,
  PurchaseOrdersResponse,
} from '../../src/schemas/ledger.js';
import type { CashPositionResponse, DailySummaryResponse, ForecastResponse, ScenariosResponse } from '../../src/schemas/forecast.js';
import type {
  CohortRetentionResponse,
  CohortSummaryResponse,
  ContactsSummaryResponse,
  ExpensesSummaryResponse,
  RevenueSummaryResponse,
} from '../../src/schemas/analytics.js';
import type { StatusResponse } from '../../src/schemas/status.js';
import type { DailyBriefResponse } from '../../src/schemas/brief.js';
import type { OrgsResponse } from '../../src/schemas/orgs.js';
import type { ForecastItemsResponse } from '../../src/schemas/forecast-items.js';
import type { PortfolioResponse } from '../../src/schemas/portfolio.js';
import type { CollectionsResponse } from '../../src/schemas/collections.js';
import type { ForecastAccuracyResponse } from '../../src/schemas/accuracy.js';
import type { ForecastChangesResponse } from '../../src/schemas/changes.js';

export interface Call {
  tool: string;
  args: Record<string, unknown>;
}
export interface Answer {
  text: string;
  /** Values the text quotes, each of which must appear verbatim in one of the responses (a missing one fails the replay). */
  evidence: (string | null | undefined)[];
}
export interface Question {
  q: string;
  who: 'owner' | 'bookkeeper' | 'advisor';
  /** The demo key the calls use: the owner's full key by default, or the advisor practice's partner key. */
  key?: 'partner';
  /** Each step builds its call from the answers before it. */
  steps: ((prev: readonly unknown[]) => Call)[];
  answer: (res: readonly unknown[]) => Answer;
}

type R<S extends z.ZodType> = z.infer<S>;
const call = (tool: string, args: Record<string, unknown> = {}) => () => ({ tool, args });

/** 1234567.8 as "AUD 1,234,567.80" (the text; the evidence keeps the API's own string). */
export function money(currency: string | undefined, amount: string | null | undefined): string {
  if (amount === null || amount === undefined) return 'n/a';
  const neg = amount.startsWith('-');
  const [int, frac = ''] = (neg ? amount.slice(1) : amount).split('.');
  return `${neg ? '-' : ''}${currency ? `${currency} ` : ''}${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${(frac + '00').slice(0, 2)}`;
}
const pct = (x: number) => `${Math.round(x * 100)}%`;
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const byAmountDesc = <T extends { total: string }>(a: T, b: T) => Number(b.total) - Number(a.total);

function lowestWeek(f: R<typeof ForecastResponse>) {
  const i = f.minClosingCashWeekIndex ?? 0;
  return { w: f.weeks[i]!, i };
}

export const QUESTIONS: Question[] = [
  // -- Cash now and ahead ---------------------------------------------------
  {
    q: 'How much cash do we have right now?',
    who: 'owner',
    steps: [call('cash_position')],
    answer: ([r]) => {
      const c = r as R<typeof CashPositionResponse>;
      return {
        text: `${money(c.currency, c.effectiveStartingCash)} across ${c.accounts.length} bank account${c.accounts.length === 1 ? '' : 's'} (source ${c.source}).`,
        evidence: [c.effectiveStartingCash],
      };
    },
  },
  {
    q: 'How much is in each bank account?',
    who: 'owner',
    steps: [call('bank_accounts')],
    answer: ([r]) => {
      const b = r as R<typeof BankAccountsResponse>;
      const rows = b.bankAccounts.map((a) => `${a.name}: ${money(a.currency, a.reconciledBalance)} reconciled, ${money(a.currency, a.statementBalance)} on the statement`);
      return { text: rows.join('; ') + '.', evidence: b.bankAccounts.map((a) => a.reconciledBalance) };
    },
  },
  {
    q: 'How is the business going today?',
    who: 'owner',
    steps: [call('daily_summary')],
    answer: ([r]) => {
      const d = r as R<typeof DailySummaryResponse>;
      return { text: d.narrative, evidence: [d.cashToday.amount] };
    },
  },
  {
    q: 'Will we run out of cash in the next three months?',
    who: 'owner',
    steps: [call('forecast')],
    answer: ([r]) => {
      const f = r as R<typeof ForecastResponse>;
      const { w } = lowestWeek(f);
      const p = f.shortfall?.probability;
      return {
        text:
          `The lowest point is ${money(f.currency, f.minClosingCash)} in the week of ${w.weekStart}; ` +
          (p === undefined ? 'no shortfall probability yet.' : `the chance of going below ${f.shortfall!.threshold} in the 13 weeks is ${pct(p)}.`),
        evidence: [f.minClosingCash, w.weekStart],
      };
    },
  },
  {
    q: 'How sure is that forecast?',
    who: 'owner',
    steps: [call('forecast')],
    answer: ([r]) => {
      const f = r as R<typeof ForecastResponse>;
      const { w } = lowestWeek(f);
      const b = w.bands!.closing;
      const cal = f.calibration;
      return {
        text:
          `In the lowest week, closing cash is between ${money(f.currency, b.p10)} and ${money(f.currency, b.p90)} in 8 futures out of 10 (median ${money(f.currency, b.p50)}). ` +
          (cal ? `On this business's own history, replayed over ${cal.cutoffs} past dates, such ranges held ${cal.coverage80 === null ? 'n/a' : pct(cal.coverage80)} of the time (80% is right).` : 'The ranges are not calibrated yet.'),
        evidence: [b.p10, b.p90, b.p50],
      };
    },
  },
  {
    q: 'Where will cash be at the end of the quarter?',
    who: 'owner',
    steps: [call('forecast')],
    answer: ([r]) => {
      const f = r as R<typeof ForecastResponse>;
      const last = f.weeks.at(-1)!;
      return {
        text: `${money(f.currency, f.endingCash)} at the end of the week of ${last.weekStart} (80% range ${money(f.currency, last.bands!.closing.p10)} to ${money(f.currency, last.bands!.closing.p90)}).`,
        evidence: [f.endingCash, last.bands!.closing.p10, last.bands!.closing.p90],
      };
    },
  },
  {
    q: 'What happens if things go badly?',
    who: 'owner',
    steps: [call('scenarios')],
    answer: ([r]) => {
      const s = r as R<typeof ScenariosResponse>;
      const worst = s.scenarios.find((x) => x.kind === 'WORST')!;
      const base = s.scenarios.find((x) => x.kind === 'BASE')!;
      const lf = worst.latestForecast!;
      return {
        text: `In the worst case (${worst.name}) cash ends the 13 weeks at ${money(undefined, lf.endingCash)} and its lowest point is ${money(undefined, lf.minClosingCash)}, against ${money(undefined, base.latestForecast!.endingCash)} and ${money(undefined, base.latestForecast!.minClosingCash)} in the base case.`,
        evidence: [lf.endingCash, lf.minClosingCash, base.latestForecast!.endingCash],
      };
    },
  },
  {
    q: 'What are the chances cash goes below zero in week 6?',
    who: 'owner',
    steps: [call('forecast')],
    answer: ([r]) => {
      const f = r as R<typeof ForecastResponse>;
      const w = f.weeks[5]!;
      return {
        text: `Week 6 (from ${w.weekStart}): ${pct(w.shortfallProbability ?? 0)} chance of closing below ${f.shortfall?.threshold ?? '0'}; the forecast closing is ${money(f.currency, w.closing)}.`,
        evidence: [w.weekStart, w.closing],
      };
    },
  },
  {
    q: 'How much money comes in and goes out over the next 13 weeks?',
    who: 'owner',
    steps: [call('forecast')],
    answer: ([r]) => {
      const f = r as R<typeof ForecastResponse>;
      return {
        text: `In ${money(f.currency, f.totalInflow)}, out ${money(f.currency, f.totalOutflow)}, from ${money(f.currency, f.startingCash)} to ${money(f.currency, f.endingCash)}.`,
        evidence: [f.totalInflow, f.totalOutflow, f.startingCash, f.endingCash],
      };
    },
  },
  {
    q: 'What do the forecast notes say I should know?',
    who: 'owner',
    steps: [call('forecast')],
    answer: ([r]) => {
      const f = r as R<typeof ForecastResponse>;
      const notes = f.notesForAgent ?? [];
      return { text: notes.map((n) => `(${n.severity}) ${n.text}`).join(' '), evidence: notes.slice(0, 2).map((n) => n.text) };
    },
  },
  {
    q: 'What drives my lowest week?',
    who: 'owner',
    steps: [call('forecast'), (prev) => ({ tool: 'forecast_items', args: { week: (prev[0] as R<typeof ForecastResponse>).minClosingCashWeekIndex ?? 0, limit: 5, totals: true } })],
    answer: ([f0, r]) => {
      const f = f0 as R<typeof ForecastResponse>;
      const it = r as R<typeof ForecastItemsResponse>;
      const top = it.items.slice(0, 3);
      return {
        text:
          `The week of ${it.week.weekStart} (lowest closing, ${money(f.currency, f.minClosingCash)}) has ${it.totalCount} items: ${money(it.currency, it.totals!.inflow)} in and ${money(it.currency, it.totals!.outflow)} out. ` +
          `The largest: ${top.map((x) => `${x.kind} ${x.direction} ${money(it.currency, x.amount)}${x.contactName ? ` (${x.contactName})` : ''}: ${x.reason}`).join('; ')}.`,
        evidence: [it.week.weekStart, it.totals!.inflow, it.totals!.outflow, ...top.map((x) => x.amount)],
      };
    },
  },
  {
    q: 'Which invoices do we expect to be paid next week?',
    who: 'owner',
    steps: [call('forecast_items', { week: 1, kind: 'invoice', limit: 5, totals: true })],
    answer: ([r]) => {
      const it = r as R<typeof ForecastItemsResponse>;
      const top = it.items.slice(0, 3);
      return {
        text:
          `${money(it.currency, it.totals!.inflow)} expected from ${it.totalCount} invoices in the week of ${it.week.weekStart} (each counted at its chance of being paid that week). ` +
          `The largest: ${top.map((x) => `${money(it.currency, x.amount)} from ${x.contactName ?? 'no contact'} (${Math.round(x.probability * 100)}% chance, around ${x.expectedDate})`).join('; ')}.`,
        evidence: [it.week.weekStart, it.totals!.inflow, ...top.map((x) => x.amount), ...top.map((x) => x.contactName)],
      };
    },
  },
  {
    q: 'What should I do about my lowest week?',
    who: 'owner',
    steps: [call('collections', { limit: 3 })],
    answer: ([r]) => {
      const c = r as R<typeof CollectionsResponse>;
      const top = c.receivables;
      return {
        text:
          `Cash is lowest in week ${c.lowestWeekIndex + 1} (${money(c.currency, c.minClosingCash)}). Chase first: ` +
          top.map((x) => `${x.number ?? x.documentId} from ${x.contactName ?? 'no contact'} (${money(c.currency, x.amountDue)}, ${x.daysOverdue ? `${x.daysOverdue} days overdue` : `due ${x.dueDate}`}; collecting it on its due date lifts the lowest week by ${money(c.currency, x.lift)}; ${x.history})`).join('; ') +
          `. ${c.payableCount ? `${c.payableCount} bills could wait until their due dates.` : 'No bill is paid before its due date, so none can wait.'}`,
        evidence: [c.minClosingCash, ...top.map((x) => x.lift), ...top.map((x) => x.contactName)],
      };
    },
  },
  {
    q: 'How accurate has the forecast been? Can I trust its ranges?',
    who: 'owner',
    steps: [call('forecast_accuracy')],
    answer: ([r]) => {
      const a = r as R<typeof ForecastAccuracyResponse>;
      const at = (k: number) => a.horizons.find((h) => h.weeksAhead === k)!;
      const pct = (x: number) => `${Math.round(x * 100)}%`;
      return {
        text:
          `Over the last 13 weeks (${a.overall.weeksMeasured} weeks measured from ${a.forecastsMeasured} ${a.source} forecasts), closing cash was off by ${pct(at(1).closing.wape)} one week ahead and ${pct(at(13).closing.wape)} thirteen weeks ahead (WAPE ${at(1).closing.wape} and ${at(13).closing.wape}). ` +
          `The 80% ranges held ${pct(a.overall.closing.coverage80)} of the time for closing cash and ${pct(a.overall.receipts.coverage80)} for receipts (coverage80 ${a.overall.closing.coverage80} and ${a.overall.receipts.coverage80}; 80% means they hold as stated).`,
        evidence: [String(a.overall.weeksMeasured), String(at(1).closing.wape), String(at(13).closing.wape), String(a.overall.closing.coverage80), String(a.overall.receipts.coverage80)],
      };
    },
  },
  {
    q: 'Why did the forecast change since yesterday?',
    who: 'owner',
    steps: [call('forecast_changes', { limit: 1 })],
    answer: ([r]) => {
      const c = r as R<typeof ForecastChangesResponse>;
      const big = [...c.causes].sort((a, b) => Math.abs(Number(b.total)) - Math.abs(Number(a.total))).slice(0, 3);
      return {
        text:
          `Ending cash moved by ${money(c.currency, c.endingCashChange)} since the forecast of ${c.from!.asOfDate} (the lowest week by ${money(c.currency, c.minClosingCashChange)}). The largest causes: ` +
          big.map((x) => `${x.cause} ${money(c.currency, x.total)} (${x.count} items${x.items[0] ? `, the largest ${x.items[0].number ?? x.items[0].itemId}${x.items[0].contactName ? ` of ${x.items[0].contactName}` : ''}` : ''})`).join('; ') +
          '. The causes add up exactly to the change.',
        evidence: [c.endingCashChange, c.minClosingCashChange, ...big.map((x) => x.total)],
      };
    },
  },
  {
    q: 'What if our biggest debtor never pays us?',
    who: 'owner',
    steps: [
      call('receivables_aged', { limit: 1 }),
      (prev) => ({ tool: 'forecast', args: { excludeContact: (prev[0] as R<typeof AgedReceivablesResponse>).contacts[0]!.contactId } }),
    ],
    answer: ([a0, r]) => {
      const top = (a0 as R<typeof AgedReceivablesResponse>).contacts[0]!;
      const f = r as R<typeof ForecastResponse>;
      const w = f.whatIf!;
      return {
        text:
          `Without ${top.contactName}'s ${w.excludedReceiptCount} expected receipts, the lowest closing cash would be ${money(f.currency, f.minClosingCash)} (against ${money(f.currency, w.baseline.minClosingCash)}: ${money(f.currency, w.change.minClosingCash)}) ` +
          `and the quarter would end at ${money(f.currency, f.endingCash)} (${money(f.currency, w.change.endingCash)}); the chance of a shortfall ${pct(f.shortfall?.probability ?? 0)}.`,
        evidence: [top.contactName, f.minClosingCash, w.baseline.minClosingCash, w.change.minClosingCash, w.change.endingCash],
      };
    },
  },
  {
    q: 'Can we afford a 25,000 tax payment on 15 December?',
    who: 'owner',
    steps: [call('forecast', { oneOff: '-25000@2026-12-15' })],
    answer: ([r]) => {
      const f = r as R<typeof ForecastResponse>;
      const { w } = lowestWeek(f);
      return {
        text:
          `With it, cash is lowest at ${money(f.currency, f.minClosingCash)} in the week of ${w.weekStart} (${money(f.currency, f.whatIf!.change.minClosingCash)} on the forecast), ` +
          `with a ${pct(f.shortfall?.probability ?? 0)} chance of going below ${f.shortfall?.threshold ?? '0'} in the 13 weeks: ${Number(f.minClosingCash) > 0 ? 'yes, on this forecast' : 'not without other changes'}.`,
        evidence: [f.minClosingCash, w.weekStart, f.whatIf!.change.minClosingCash],
      };
    },
  },
  {
    q: 'What scenarios do we have?',
    who: 'bookkeeper',
    steps: [call('scenarios')],
    answer: ([r]) => {
      const s = r as R<typeof ScenariosResponse>;
      return { text: s.scenarios.map((x) => `${x.name} (${x.kind}, id ${x.id})`).join(', ') + '.', evidence: s.scenarios.map((x) => x.id) };
    },
  },

  // -- Receivables ----------------------------------------------------------
  {
    q: 'Who owes me the most, and for how long?',
    who: 'owner',
    steps: [call('receivables_aged')],
    answer: ([r]) => {
      const a = r as R<typeof AgedReceivablesResponse>;
      const top = a.contacts[0]!;
      return {
        text: `${top.contactName}: ${money(a.currency, top.total)} owed, ${money(a.currency, top.overdue)} of it overdue, across ${top.documents} invoices; the oldest was due ${top.oldestDueDate}.`,
        evidence: [top.contactName, top.total, top.overdue],
      };
    },
  },
  {
    q: 'How much is overdue in total?',
    who: 'bookkeeper',
    steps: [call('receivables_aged')],
    answer: ([r]) => {
      const a = r as R<typeof AgedReceivablesResponse>;
      const t = a.totals;
      return {
        text: `${money(a.currency, t.overdue)} overdue of ${money(a.currency, t.total)} owed: 1-30 days ${money(a.currency, t.days30)}, 31-60 ${money(a.currency, t.days60)}, 61-90 ${money(a.currency, t.days90)}, over 90 ${money(a.currency, t.days90plus)}.`,
        evidence: [t.overdue, t.total, t.days30, t.days60, t.days90, t.days90plus],
      };
    },
  },
  {
    q: 'Which invoices are more than 30 days overdue?',
    who: 'bookkeeper',
    steps: [
      call('cash_position'),
      (prev) => ({ tool: 'invoices', args: { overdue: true, dueTo: addDays((prev[0] as R<typeof CashPositionResponse>).asOfDate, -31), autoPaginate: true } }),
    ],
    answer: ([, r]) => {
      const l = r as R<typeof InvoicesResponse>;
      const items = [...l.invoices].sort((a, b) => Number(b.amountDue) - Number(a.amountDue));
      const shown = items.slice(0, 3).map((i) => `${i.invoiceNumber ?? i.id} (${i.contactName}, due ${i.expectedDate.slice(0, 10)}, ${i.amountDue} still due)`);
      return {
        text: `${l.invoices.length} invoice${l.invoices.length === 1 ? '' : 's'}${shown.length ? `; the largest: ${shown.join('; ')}` : ''}.`,
        evidence: items.slice(0, 3).map((i) => i.amountDue),
      };
    },
  },
  {
    q: 'Which invoices fall due in the next 7 days?',
    who: 'bookkeeper',
    steps: [
      call('cash_position'),
      (prev) => {
        const today = (prev[0] as R<typeof CashPositionResponse>).asOfDate;
        return { tool: 'invoices', args: { status: 'AUTHORISED', dueFrom: today, dueTo: addDays(today, 6), totals: true } };
      },
    ],
    answer: ([, r]) => {
      const l = r as R<typeof InvoicesResponse>;
      const t = l.totals!.grandTotal!;
      return { text: `${l.totalCount} invoices, ${t.amount} in all (gross).`, evidence: [t.amount] };
    },
  },
  {
    q: 'How long does our biggest debtor usually take to pay?',
    who: 'owner',
    steps: [call('receivables_aged'), (prev) => ({ tool: 'contact', args: { id: (prev[0] as R<typeof AgedReceivablesResponse>).contacts[0]!.contactId } })],
    answer: ([, r]) => {
      const c = (r as R<typeof ContactDrillResponse>).contact;
      return {
        text: `${c.name} pays a median ${c.paymentDelayMedianDays ?? 'unknown number of'} days after the due date${c.cadence ? `, and buys on a ${c.cadence.toLowerCase()} cadence` : ''}.`,
        evidence: [c.name, ...(c.paymentDelayMedianDays ? [c.paymentDelayMedianDays] : [])],
      };
    },
  },
  {
    q: 'Does any customer hold credit we have not used?',
    who: 'bookkeeper',
    steps: [call('credit_notes', { status: 'AUTHORISED', totals: true })],
    answer: ([r]) => {
      const l = r as R<typeof CreditNotesResponse>;
      const c = l.creditNotes[0];
      return { text: `${l.totalCount} open credit notes${c ? `; the newest: ${c.creditNoteNumber ?? c.id} (${c.contactName}, ${c.remainingCredit} remaining)` : ''}.`, evidence: c ? [c.remainingCredit ?? ''] : [] };
    },
  },

  {
    q: 'What does Harbour Bar owe us, invoice by invoice?',
    who: 'owner',
    steps: [call('invoices', { q: 'harbour bar', status: 'AUTHORISED' })],
    answer: ([r]) => {
      const l = r as R<typeof InvoicesResponse>;
      return {
        text: l.invoices.map((i) => `${i.invoiceNumber} issued ${i.issueDate?.slice(0, 10)}, due ${i.expectedDate.slice(0, 10)}: ${money(i.currency, i.amountDue)} still due`).join('; ') + '.',
        evidence: l.invoices.flatMap((i) => [i.invoiceNumber, i.amountDue]),
      };
    },
  },
  {
    q: 'Find invoice INV-01610 for me.',
    who: 'bookkeeper',
    steps: [call('invoices', { q: 'inv-01610' })],
    answer: ([r]) => {
      const l = r as R<typeof InvoicesResponse>;
      const i = l.invoices.find((x) => x.invoiceNumber === 'INV-01610')!;
      return {
        text: `${i.invoiceNumber}: ${i.contactName}, ${money(i.currency, i.amount)} issued ${i.issueDate?.slice(0, 10)}, ${i.ledgerStatus}${i.ledgerStatus === 'PAID' ? ` on ${i.actualDate?.slice(0, 10)}` : `, ${money(i.currency, i.amountDue)} due ${i.expectedDate.slice(0, 10)}`}.`,
        evidence: [i.invoiceNumber, i.contactName, i.amount],
      };
    },
  },
  {
    q: 'Is Cedar Cafe one of our customers?',
    who: 'bookkeeper',
    steps: [call('contacts', { q: 'cedar caf', type: 'customer' })],
    answer: ([r]) => {
      const l = r as R<typeof ContactsListResponse>;
      return { text: `${l.totalCount} match: ${l.contacts.map((c) => `${c.name} (id ${c.id})`).join(', ')}.`, evidence: l.contacts.map((c) => c.name) };
    },
  },

  // -- Payables -------------------------------------------------------------
  {
    q: 'Who do we owe the most?',
    who: 'owner',
    steps: [call('payables_aged')],
    answer: ([r]) => {
      const a = r as R<typeof AgedPayablesResponse>;
      const top = [...a.contacts].sort(byAmountDesc)[0]!;
      return { text: `${top.contactName}: ${money(a.currency, top.total)} across ${top.documents} bills (${money(a.currency, top.overdue)} overdue). In all: ${money(a.currency, a.totals.total)}.`, evidence: [top.total, a.totals.total] };
    },
  },
  {
    q: 'Which bills are overdue?',
    who: 'bookkeeper',
    steps: [call('bills', { overdue: true, totals: true })],
    answer: ([r]) => {
      const l = r as R<typeof BillsResponse>;
      const t = l.totals!.grandTotal!;
      return { text: `${l.totalCount} bills past their due date and still owed, ${t.amount} in all (gross).`, evidence: [t.amount] };
    },
  },
  {
    q: 'What are my three biggest bills due next month?',
    who: 'owner',
    steps: [
      call('cash_position'),
      (prev) => {
        const today = (prev[0] as R<typeof CashPositionResponse>).asOfDate;
        const first = `${today.slice(0, 7)}-01`;
        const next = addDays(first, 32).slice(0, 7);
        const last = addDays(`${addDays(`${next}-01`, 32).slice(0, 7)}-01`, -1);
        return { tool: 'bills', args: { dueFrom: `${next}-01`, dueTo: last, autoPaginate: true } };
      },
    ],
    answer: ([, r]) => {
      const l = r as R<typeof BillsResponse>;
      const top = [...l.bills].sort((a, b) => Number(b.amountDue) - Number(a.amountDue)).slice(0, 3);
      return { text: top.map((b) => `${b.contactName} ${b.amountDue} due ${b.expectedDate.slice(0, 10)}`).join('; ') + '.', evidence: top.map((b) => b.amountDue) };
    },
  },
  {
    q: 'Which purchase orders are still open?',
    who: 'bookkeeper',
    steps: [call('purchase_orders', { status: 'AUTHORISED' })],
    answer: ([r]) => {
      const l = r as R<typeof PurchaseOrdersResponse>;
      const first = l.purchaseOrders[0];
      return { text: `${l.totalCount} authorised purchase orders${first ? `; the newest: ${first.purchaseOrderNumber} to ${first.contactName}, ${first.total}` : ''}.`, evidence: first ? [first.total] : [] };
    },
  },
  {
    q: 'What have we ordered from Yarra Foods that is not billed yet?',
    who: 'bookkeeper',
    steps: [call('purchase_orders', { q: 'yarra foods', status: 'AUTHORISED' })],
    answer: ([r]) => {
      const l = r as R<typeof PurchaseOrdersResponse>;
      return {
        text: `${l.totalCount} order${l.totalCount === 1 ? '' : 's'}: ${l.purchaseOrders.map((o) => `${o.purchaseOrderNumber} of ${o.issueDate.slice(0, 10)}, ${money(o.currency, o.total)}`).join('; ')}.`,
        evidence: l.purchaseOrders.map((o) => o.total),
      };
    },
  },
  {
    q: 'What is on our latest purchase order?',
    who: 'bookkeeper',
    steps: [call('purchase_orders', { limit: 1 }), (prev) => ({ tool: 'purchase_order', args: { id: (prev[0] as R<typeof PurchaseOrdersResponse>).purchaseOrders[0]!.id } })],
    answer: ([, r]) => {
      const p = (r as R<typeof PurchaseOrderDrillResponse>).purchaseOrder;
      return { text: `${p.purchaseOrderNumber} to ${p.contactName}: ${p.lines.length} line${p.lines.length === 1 ? '' : 's'}, ${p.total} in all (${p.status}).`, evidence: [p.total] };
    },
  },

  // -- Customers, suppliers, trends -----------------------------------------
  {
    q: 'Who are my five best customers?',
    who: 'owner',
    steps: [call('contacts_summary', { topN: 5 })],
    answer: ([r]) => {
      const s = r as R<typeof ContactsSummaryResponse>;
      return { text: s.topByRevenue.map((c) => `${c.name} (${c.amount})`).join(', ') + ` (by ${s.topByRevenueBasis}).`, evidence: s.topByRevenue.map((c) => c.amount) };
    },
  },
  {
    q: 'How dependent are we on our biggest customers?',
    who: 'advisor',
    steps: [call('contacts_summary', { topN: 3 })],
    answer: ([r]) => {
      const s = r as R<typeof ContactsSummaryResponse>;
      const d = s.abcDistribution;
      return {
        text: `${d.A} customers make up the first 80% of realised revenue (class A), ${d.B} the next 15%, ${d.C} the rest; the top three: ${s.topByRevenue.map((c) => c.name).join(', ')}.`,
        evidence: s.topByRevenue.map((c) => c.name),
      };
    },
  },
  {
    q: 'How much did our best customer buy in the last 12 months?',
    who: 'owner',
    steps: [call('contacts_summary', { topN: 1 }), (prev) => ({ tool: 'contact', args: { id: (prev[0] as R<typeof ContactsSummaryResponse>).topByRevenue[0]!.contactId } })],
    answer: ([, r]) => {
      const c = (r as R<typeof ContactDrillResponse>).contact;
      return { text: `${c.name}: ${c.revenueTrailing12m} paid in the last 12 months, ${c.revenueAllTime} in all.`, evidence: [c.revenueTrailing12m, c.revenueAllTime] };
    },
  },
  {
    q: 'What were our sales by month this financial year?',
    who: 'owner',
    steps: [call('revenue')],
    answer: ([r]) => {
      const s = r as R<typeof RevenueSummaryResponse>;
      return {
        text: `${money(s.currency, s.grandTotal.amount)} paid (ex-tax) from ${s.window.from} to ${s.window.to}: ` + s.byMonth.map((m) => `${m.month} ${m.amount}`).join(', ') + '.',
        evidence: [s.grandTotal.amount, ...s.byMonth.map((m) => m.amount)],
      };
    },
  },
  {
    q: 'What is our gross margin?',
    who: 'advisor',
    steps: [call('revenue')],
    answer: ([r]) => {
      const g = (r as R<typeof RevenueSummaryResponse>).grossProfit;
      return { text: `${g.amount} gross profit on ${g.revenue} of sales from ${g.window.from} to ${g.window.to}${g.marginPercent === null ? '' : ` (${(g.marginPercent * 100).toFixed(1)}%)`}.`, evidence: [g.amount, g.revenue] };
    },
  },
  {
    q: 'Who are our biggest suppliers this year?',
    who: 'owner',
    steps: [call('expenses', { topN: 3 })],
    answer: ([r]) => {
      const s = r as R<typeof ExpensesSummaryResponse>;
      return { text: s.topContacts.map((c) => `${c.name} ${c.amount}`).join(', ') + ` of ${s.grandTotal.amount} paid since ${s.window.from}.`, evidence: [...s.topContacts.map((c) => c.amount), s.grandTotal.amount] };
    },
  },
  {
    q: 'Are we winning new customers faster or slower than before?',
    who: 'advisor',
    steps: [call('cohorts')],
    answer: ([r]) => {
      const s = r as R<typeof CohortSummaryResponse>;
      const k = s.kpis.newCustomers;
      return { text: `${k.value} new customers in the latest 6 months${k.delta === null ? '' : `, ${k.delta >= 0 ? 'up' : 'down'} ${pct(Math.abs(k.delta))} on the 6 before`}.`, evidence: [String(k.value)] };
    },
  },
  {
    q: 'How many customers come back within 90 days?',
    who: 'advisor',
    steps: [call('cohorts')],
    answer: ([r]) => {
      const s = r as R<typeof CohortSummaryResponse>;
      const k = s.kpis.retention90d;
      return { text: `${pct(k.value)} of new customers bought again within 90 days (latest 6 months).`, evidence: [String(k.value)] };
    },
  },
  {
    q: 'How did the customers we won six months ago stick around?',
    who: 'advisor',
    steps: [call('retention', { periods: 7 })],
    answer: ([r]) => {
      const s = r as R<typeof CohortRetentionResponse>;
      const row = [...s.cohorts].reverse().find((c) => c.values.every((v) => v !== null)) ?? s.cohorts[0]!;
      return { text: `Cohort ${row.cohort} (${row.customers} customers): ${row.values.map((v) => (v === null ? '-' : pct(Number(v)))).join(', ')} active in months 0-6.`, evidence: [row.cohort] };
    },
  },
  {
    q: 'How much GST do we owe?',
    who: 'bookkeeper',
    steps: [call('account_balances')],
    answer: ([r]) => {
      const b = r as R<typeof AccountBalancesResponse>;
      const gst = b.accounts.find((a) => /gst/i.test(a.name))!;
      return { text: `${gst.name}: ${gst.balance} as at ${b.asOfDate}.`, evidence: [gst.balance] };
    },
  },
  {
    q: 'How did cash move in the last 7 days?',
    who: 'owner',
    steps: [call('daily_summary')],
    answer: ([r]) => {
      const d = r as R<typeof DailySummaryResponse>;
      const l = d.last7d;
      return { text: `In ${l.inflow}, out ${l.outflow}, net ${l.net}${l.topInflows[0] ? `; the largest receipt: ${l.topInflows[0].contactName} ${l.topInflows[0].amount}` : ''}.`, evidence: [l.inflow, l.outflow, l.net] };
    },
  },
  {
    q: 'What should I do today?',
    who: 'owner',
    steps: [call('brief')],
    answer: ([r]) => {
      const b = (r as R<typeof DailyBriefResponse>).payload;
      return { text: `${b.recommendedAction.headline}. (Risk: ${b.riskSignal.headline}.)`, evidence: [b.recommendedAction.headline] };
    },
  },

  // -- The service ------------------------------------------------------------
  {
    q: 'How many questions can I still ask today?',
    who: 'owner',
    steps: [call('status')],
    answer: ([r]) => {
      const s = r as R<typeof StatusResponse>;
      return { text: `${s.usage!.remaining} query credits left in the rolling 5 hours on the ${s.subscription.plan} plan (status itself is free).`, evidence: [s.subscription.plan] };
    },
  },
  {
    q: 'Are the books up to date?',
    who: 'bookkeeper',
    steps: [call('status')],
    answer: ([r]) => {
      const s = r as R<typeof StatusResponse>;
      return { text: s.ledgerAlert ? `No: ${s.ledgerAlert.message}` : 'Yes: no ledger alert.', evidence: s.ledgerAlert ? [s.ledgerAlert.message] : [] };
    },
  },
  {
    q: 'Which of my clients is most at risk of running out of cash?',
    who: 'advisor',
    key: 'partner',
    steps: [call('portfolio', { limit: 5 })],
    answer: ([r]) => {
      const p = r as R<typeof PortfolioResponse>;
      const first = p.orgs[0]!;
      return {
        text:
          `${first.name}: lowest closing ${money(first.currency, first.minClosingCash)} in the week of ${first.minClosingCashWeekStart ?? 'n/a'}` +
          `${first.shortfallProbability === null ? '' : `, ${pct(first.shortfallProbability)} chance of a shortfall`}; then ${p.orgs.slice(1).map((o) => o.name).join(', ') || 'no other client'} (${p.charged} credits, one per client).`,
        evidence: [first.name, first.minClosingCash, ...p.orgs.map((o) => o.name)],
      };
    },
  },
  {
    q: 'Which client has the most overdue invoices, and who owes it?',
    who: 'advisor',
    key: 'partner',
    steps: [
      call('portfolio', { limit: 5 }),
      (prev) => {
        const p = prev[0] as R<typeof PortfolioResponse>;
        const most = [...p.orgs].sort((a, b) => Number(b.overdueReceivables ?? 0) - Number(a.overdueReceivables ?? 0))[0]!;
        return { tool: 'receivables_aged', args: { orgId: most.orgId, limit: 3 } };
      },
    ],
    answer: ([p0, r]) => {
      const p = p0 as R<typeof PortfolioResponse>;
      const most = [...p.orgs].sort((a, b) => Number(b.overdueReceivables ?? 0) - Number(a.overdueReceivables ?? 0))[0]!;
      const a = r as R<typeof AgedReceivablesResponse>;
      const top = a.contacts[0];
      return {
        text: `${most.name}: ${money(most.currency, most.overdueReceivables)} overdue${top ? `; the most from ${top.contactName} (${money(most.currency, top.overdue)})` : ''}.`,
        evidence: [most.name, most.overdueReceivables, top?.contactName, top?.overdue],
      };
    },
  },
  {
    q: 'Which organisations can I see?',
    who: 'advisor',
    steps: [call('orgs')],
    answer: ([r]) => {
      const o = r as R<typeof OrgsResponse>;
      return { text: `${o.keyKind} key: ${o.orgs.map((x) => x.name).join(', ')}.`, evidence: o.orgs.map((x) => x.name) };
    },
  },
];

