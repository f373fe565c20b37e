/**
 * What actually moved (docs/forecast.md#backtest, #accuracy): the ledger's
 * money movements - payments of invoices and bills, and bank transactions
 * (transfers between the organisation's own accounts move cash between
 * accounts but are not receipts or payments) - and, from them and today's
 * book balances, the cash at the start of any day and each forecast week's
 * receipts, payments and closing cash. One definition for the backtest's
 * replay and the accuracy of stored forecasts.
 */
import { D, dec, type Dec } from '../money.js';
import { mondayOf, toDay } from './days.js';

export interface Movement {
  day: number;
  amount: Dec;
  bankAccountId: string | null;
  /** Counted in receipts/payments (false for transfers between own accounts). */
  flow: boolean;
}

/** A payment as the ledger holds it: signed, money in positive, in the base currency. */
export interface PaymentMovement {
  date: string;
  amount: string;
  bankAccountId: string | null;
}

/** A bank transaction, signed (spend negative), with whether it is a transfer between own accounts. */
export interface BankMovement {
  date: string;
  amount: string;
  bankAccountId: string;
  transfer: boolean;
}

/** Every movement, oldest first. */
export function movementsOf(payments: readonly PaymentMovement[], bankTxns: readonly BankMovement[]): Movement[] {
  const out: Movement[] = [];
  for (const p of payments) out.push({ day: toDay(p.date), amount: dec(p.amount), bankAccountId: p.bankAccountId, flow: true });
  for (const t of bankTxns) out.push({ day: toDay(t.date), amount: dec(t.amount), bankAccountId: t.bankAccountId, flow: !t.transfer });
  return out.sort((a, b) => a.day - b.day);
}

/** Per bank account, the movements dated `day` or later (what today's book balance holds beyond the start of that day). */
export function movedSince(movements: readonly Movement[], day: number): Map<string, Dec> {
  const after = new Map<string, Dec>();
  for (const m of movements) {
    if (m.day < day || !m.bankAccountId) continue;
    after.set(m.bankAccountId, (after.get(m.bankAccountId) ?? new D(0)).plus(m.amount));
  }
  return after;
}

/** Per bank account, its balance at the start of `day`: today's book balance less every movement dated that day or later. */
export function balancesAtStartOf(movements: readonly Movement[], bankAccounts: readonly { id: string; book: string }[], day: number): Map<string, Dec> {
  const after = movedSince(movements, day);
  return new Map(bankAccounts.map((b) => [b.id, dec(b.book).minus(after.get(b.id) ?? 0)]));
}

/** Cash at the start of `day`: the sum of the bank accounts' balances then (`balancesAtStartOf`). */
export function cashAtStartOf(movements: readonly Movement[], bankAccounts: readonly { id: string; book: string }[], day: number): Dec {
  let cash = new D(0);
  for (const b of balancesAtStartOf(movements, bankAccounts, day).values()) cash = cash.plus(b);
  return cash;
}

export interface ActualWeek {
  receipts: Dec;
  payments: Dec;
  closing: Dec;
}

/**
 * What actually moved in each of `weeks` forecast weeks from `asOf` (the
 * first from `asOf` to its Sunday, then Monday to Sunday): receipts and
 * payments (transfers left out), and closing cash from `opening` with every
 * movement.
 */
export function actualWeeks(movements: readonly Movement[], asOf: string, opening: Dec, weeks: number): ActualWeek[] {
  const C = toDay(asOf);
  const w0 = mondayOf(C);
  const end = w0 + 7 * weeks - 1;
  const sums = Array.from({ length: weeks }, () => ({ receipts: new D(0), payments: new D(0), all: new D(0) }));
  for (const m of movements) {
    if (m.day < C || m.day > end) continue;
    const w = sums[Math.floor((m.day - w0) / 7)]!;
    w.all = w.all.plus(m.amount);
    if (!m.flow) continue;
    if (m.amount.gt(0)) w.receipts = w.receipts.plus(m.amount);
    else w.payments = w.payments.minus(m.amount);
  }
  let closing = opening;
  return sums.map((w) => {
    closing = closing.plus(w.all);
    return { receipts: w.receipts, payments: w.payments, closing };
  });
}
