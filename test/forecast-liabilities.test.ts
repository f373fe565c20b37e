/**
 * Payments that settle a liability account (session 22; liabilities.ts,
 * docs/forecast.md#settles): a quarterly GST return pays what the GST
 * account accrued over its quarter, which the journals know, rather than the
 * median of the last three returns.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../src/domain/calendar.js';
import { dec, type Dec } from '../src/domain/money.js';
import { prepareForecast, runForecast } from '../src/domain/forecast/engine.js';
import { projectForecast } from '../src/domain/forecast/project.js';
import { accruals, settlementModel } from '../src/domain/forecast/liabilities.js';
import { fromDay, toDay } from '../src/domain/forecast/days.js';
import type { BankTxn, ForecastInput, LiabilityLine } from '../src/domain/forecast/types.js';
import { doc, input } from './helpers/forecast-input.js';
import { accounts, BASE, GST, gstDays, NOW, quarterOf } from './helpers/gst-books.js';

const ITEM = `recurring:bank:out:tax-office:${GST}`;
const PAYG = 'acc-payg';

/**
 * The GST account from 1 July 2023 to the day before `asOf`: `perDay(date)`
 * accrued each day (the tax on that day's sales less that on its purchases),
 * and each quarter's return, paid on the tax office's dates, settling
 * exactly what its quarter accrued (its journal line and its bank payment).
 */
function gstBooks(asOf: string, perDay: (date: string) => string): { lines: LiabilityLine[]; bankTxns: BankTxn[]; accrued: (from: string, to: string) => Dec } {
  const bankTxns: BankTxn[] = [];
  const daily = new Map<string, Dec>();
  const day = (date: string) => {
    const a = dec(perDay(date));
    daily.set(date, a);
    return a;
  };
  const lines = gstDays(asOf, day, (date, due, ls) => {
    ls.push({ accountId: GST, date, amount: due.negated().toFixed() });
    bankTxns.push({ id: `bas-${date}`, date, amount: due.negated().toFixed(), contactId: 'tax-office', accountId: GST, reference: 'BAS' });
  });
  const accrued = (from: string, to: string) => [...daily].filter(([d]) => d >= from && d <= to).reduce((s, [, a]) => s.plus(a), dec(0));
  return { lines, bankTxns, accrued };
}

/** A day's accrual that moves with the day of the week and the month (a seasonal business), in cents. */
const seasonal = (date: string) => {
  const d = toDay(date);
  return dec(40 + ((d * 7) % 23) + 15 * Math.sin((2 * Math.PI * d) / 365)).toDecimalPlaces(2).toFixed();
};

const books = (asOf: string, perDay: (date: string) => string, over: Partial<ForecastInput> = {}) => {
  const g = gstBooks(asOf, perDay);
  return { g, input: input({ asOf, accounts, bankTxns: g.bankTxns, liabilityLines: g.lines, ...over }) };
};
const itemOf = (i: ForecastInput) => runForecast(i, [BASE], NOW).items[0]!.filter((x) => x.itemId === ITEM);

describe('a GST return pays what its quarter accrued', () => {
  it('Given three years of returns each settling its quarter, When forecast after the October quarter ended, Then its return (28 February) is what the account accrued from October to December, to the cent', () => {
    const asOf = '2027-01-06'; // weeks 4 January to 4 April 2027
    const { g, input: i } = books(asOf, seasonal);
    const [item, ...more] = itemOf(i);
    expect(more).toEqual([]);
    expect(item!.expectedDate).toBe('2027-02-28');
    expect(item!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').toFixed(2));
    expect(item!.reason).toMatch(/^bank payments of this contact that settle GST \(\d+ of the last \d+ each what it owed at the end of a 3-month period, the last on 2026-10-28\): this one paying what accrued in GST from 2026-10-01 to 2026-12-31 \([\d.]+, all known\), due as the same period was a year before$/);
    // The median of the last three returns would have said otherwise: the quarters differ.
    const plain = itemOf({ ...i, liabilityLines: undefined })[0]!;
    expect(plain.reason).toMatch(/the median of the last three amounts/);
    expect(dec(plain.amount).eq(dec(item!.amount))).toBe(false);
  });

  it('Given the quarter still running, Then what accrued so far and, for the rest, the same days a year before: all of it for a steady accrual', () => {
    const asOf = '2026-12-02'; // weeks 30 November 2026 to 28 February 2027: the return of 28 February is the last day
    const { input: i } = books(asOf, () => '10');
    const [item] = itemOf(i);
    expect(item!.expectedDate).toBe('2027-02-28');
    // 1 October to 1 December known (62 days), 2 to 31 December expected (30 days): 92 days of 10.
    expect(item!.amount).toBeMoney('920');
    expect(item!.reason).toMatch(/from 2026-10-01 to 2026-12-31 \(620\.00 so far, 300\.00 expected: the same days last year at this year's pace\)/);
  });

  it('Given a business whose accrual grows by half every year, Then the days to come are last year\'s at that pace: within 2% of what accrues (at last year\'s, a third short)', () => {
    const asOf = '2026-12-02';
    const growing = (date: string) => dec(100).times(dec(1.5).pow((toDay(date) - toDay('2023-07-01')) / 365)).toDecimalPlaces(2).toFixed();
    const { input: i } = books(asOf, growing);
    const whole = gstBooks('2027-01-01', growing).accrued('2026-10-01', '2026-12-31');
    const amount = dec(itemOf(i)[0]!.amount);
    expect(amount.div(whole).minus(1).abs().toNumber()).toBeLessThan(0.02);
    // The part to come alone, against last year's same days: half as much again.
    const m = settlementModel(
      i.bankTxns.filter((t) => t.accountId === GST).map((t) => toDay(t.date)),
      i.bankTxns.filter((t) => t.accountId === GST).map((t) => dec(t.amount).negated()),
      accruals(i.liabilityLines).get(GST),
      toDay(asOf),
    )!;
    const s = m.schedule(toDay('2027-02-28'))[0]!;
    const lastYear = gstBooks('2026-01-01', growing).accrued('2025-12-02', '2025-12-31');
    expect(s.expected.div(lastYear).toNumber()).toBeCloseTo(1.5, 1);
    expect(m.months).toBe(3);
  });

  it('Given a known return, Then it does not vary in the futures; one mostly to come varies as the returns have', () => {
    const known = prepareForecast(books('2027-01-06', seasonal).input).points.find((p) => p.id === ITEM)!;
    expect(known.spread).toBeUndefined();
    const plain = prepareForecast({ ...books('2027-01-06', seasonal).input, liabilityLines: undefined }).points.find((p) => p.id === ITEM)!;
    const early = prepareForecast(books('2026-12-02', seasonal).input).points.find((p) => p.id === ITEM)!;
    expect(plain.spread).toBeGreaterThan(0);
    // From 2 December a third of the quarter is to come.
    expect(early.spread).toBeGreaterThan(0.2 * plain.spread!);
    expect(early.spread).toBeLessThan(0.5 * plain.spread!);
  });

  it('Given a return paid late, after the next quarter had ended, Then the next one is still matched (what was owed at its quarter\'s end less what was paid since) and the model holds', () => {
    const asOf = '2027-03-03'; // weeks 1 March to 30 May 2027: the return of 28 April
    const { input: i } = books(asOf, () => '10');
    // The July quarter's return paid on 3 January 2027 instead of 28 October 2026: on 28 February the account owed two quarters at 31 December.
    const moved = (date: string) => (date === '2026-10-28' ? '2027-01-03' : date);
    const late = i.bankTxns.map((t) => ({ ...t, date: moved(t.date) }));
    const lines = i.liabilityLines!.map((l) => (dec(l.amount).isNegative() ? { ...l, date: moved(l.date) } : l));
    const gst = late.filter((t) => t.accountId === GST).sort((x, y) => x.date.localeCompare(y.date));
    const m = settlementModel(gst.map((t) => toDay(t.date)), gst.map((t) => dec(t.amount).negated()), accruals(lines).get(GST), toDay(asOf));
    expect(m).not.toBeNull();
    // 1 January to 2 March known (61 days), 3 to 31 March expected (29 days).
    const s = m!.schedule(toDay('2027-04-28'))[0]!;
    expect([s.periodStart, s.periodEnd].map(fromDay)).toEqual(['2027-01-01', '2027-03-31']);
    expect([s.known.toFixed(2), s.expected.toFixed(2), s.amount.cents]).toEqual(['610.00', '290.00', 90_000]);
    // Read as owed at 31 December without what was paid since, the return of 28 February (one quarter) would not match two.
    const owedTwo = accruals(lines).get(GST)!;
    expect(owedTwo.balance[owedTwo.days.indexOf(toDay('2026-12-31'))]!.toFixed(2)).toBe('1840.00');
  });

  it('Given payments coded to a liability account that do not settle it (a director\'s fixed drawings against the loan account), Then the median of the last three, as before', () => {
    const asOf = '2026-11-25';
    const loan = 'acc-loan';
    const drawings = Array.from({ length: 24 }, (_, k) => addDays('2024-12-15', 0) && `${2024 + Math.floor((11 + k) / 12)}-${String(((11 + k) % 12) + 1).padStart(2, '0')}-15`)
      .filter((d) => d < asOf)
      .map((date, k) => ({ id: `dr-${k}`, date, amount: k % 2 ? '-3000' : '-3100', contactId: 'director', accountId: loan, reference: 'Drawings' }));
    // The loan account: 40,000 lent on 1 December 2024, each drawing repaying it.
    const lines: LiabilityLine[] = [{ accountId: loan, date: '2024-12-01', amount: '40000' }, ...drawings.map((t) => ({ accountId: loan, date: t.date, amount: t.amount }))];
    const i = input({ asOf, bankTxns: drawings, liabilityLines: lines, accounts: { ...accounts, [loan]: { name: "Director's Loan", code: '880' } } });
    const items = runForecast(i, [BASE], NOW).items[0]!.filter((x) => x.itemId === `recurring:bank:out:director:${loan}`);
    expect(items.length).toBeGreaterThan(0);
    for (const it of items) expect(it.reason).toMatch(/the median of the last three amounts/);
    expect(items.map((x) => x.amount)).toEqual(items.map(() => '3000'));
  });

  it('Given no journals, Then the forecast is what it was: nothing is settled', () => {
    const { input: i } = books('2027-01-06', seasonal);
    const without = { ...i, liabilityLines: undefined };
    const p = projectForecast(prepareForecast(without), BASE, NOW);
    expect(projectForecast(prepareForecast({ ...without, liabilityLines: [] }), BASE, NOW)).toEqual(p);
    // Journals of an account no payment is coded to change nothing either.
    const other = i.liabilityLines!.map((l) => ({ ...l, accountId: 'acc-payg' }));
    expect(projectForecast(prepareForecast({ ...i, liabilityLines: other }), BASE, NOW)).toEqual(p);
  });

  /**
   * The GST account of `books` and the tax withheld (PAYG) accruing `payg` a day, both settled by one
   * bank transaction on each return's day, its lines split over the two accounts (in either order).
   */
  function splitReturns(asOf: string, payg: (date: string) => string) {
    const { g, input: i } = books(asOf, seasonal);
    const lines = [...i.liabilityLines!];
    const withheld = new Map<number, Dec>();
    for (let date = '2023-07-01'; date < asOf; date = addDays(date, 1)) {
      lines.push({ accountId: PAYG, date, amount: payg(date) });
      withheld.set(quarterOf(date), (withheld.get(quarterOf(date)) ?? dec(0)).plus(payg(date)));
    }
    const bankTxns = g.bankTxns.map((t, n) => {
      const w = withheld.get(quarterOf(t.date) - 3)!;
      lines.push({ accountId: PAYG, date: t.date, amount: w.negated().toFixed() });
      return { ...t, amount: dec(t.amount).minus(w).toFixed(), accountId: n % 2 ? PAYG : GST, accountIds: [GST, PAYG] };
    });
    const accruedPayg = (from: string, to: string) => {
      let sum = dec(0);
      for (let date = from; date <= to; date = addDays(date, 1)) sum = sum.plus(payg(date));
      return sum;
    };
    return { g, accruedPayg, input: { ...i, bankTxns, liabilityLines: lines, accounts: { ...accounts, [PAYG]: { name: 'PAYG Withholdings Payable', code: '825' } } } };
  }

  it('Given each quarter\'s GST and tax withheld paid in one transaction split over both accounts, Then the next pays what both accrued over the quarter, whichever line comes first', () => {
    const asOf = '2027-01-06';
    const payg = (date: string) => (toDay(date) % 14 === 3 ? '900' : '0'); // a fortnightly payday's withholding
    const { g, accruedPayg, input: i } = splitReturns(asOf, payg);
    const items = runForecast(i, [BASE], NOW).items[0]!.filter((x) => x.direction === 'out');
    expect(items.map((x) => x.itemId)).toEqual([`recurring:bank:out:tax-office:${GST}+${PAYG}`]);
    expect(items[0]!.expectedDate).toBe('2027-02-28');
    expect(items[0]!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').plus(accruedPayg('2026-10-01', '2026-12-31')).toFixed(2));
    expect(items[0]!.reason).toMatch(/that settle GST and PAYG Withholdings Payable \(\d+ of the last \d+ each what it owed at the end of a 3-month period, the last on 2026-10-28\): this one paying what accrued in GST and PAYG Withholdings Payable from 2026-10-01 to 2026-12-31 /);
    // Read as one account each (its first line's, as before), the returns settle neither: two series (each every other
    // quarter), neither read off the accounts.
    const asBefore = runForecast({ ...i, bankTxns: i.bankTxns.map(({ accountIds: _, ...t }) => t) }, [BASE], NOW).items[0]!.filter((x) => x.direction === 'out');
    expect(asBefore.length).toBeGreaterThan(0);
    for (const x of asBefore) {
      expect([`recurring:bank:out:tax-office:${GST}`, `recurring:bank:out:tax-office:${PAYG}`]).toContain(x.itemId);
      expect(x.reason).not.toMatch(/settle/);
    }
  });

  it('Given each return raised as a bill to the tax office on its day (as Xero\'s published activity statement leaves one) and paid 14 days later, Then the next is the bill of what the quarter accrued, paid 14 days after its day', () => {
    const asOf = '2027-01-06';
    const { g, input: i } = books(asOf, seasonal);
    // The same returns as bills: each raised on the tax office's date (its journal line debits the account that day), paid 14 days on.
    const bills = i.bankTxns.map((t) => doc({ kind: 'AP', contactId: 'tax-office', issueDate: t.date, dueDate: addDays(t.date, 14), status: 'PAID', paidDate: addDays(t.date, 14), total: dec(t.amount).negated().toFixed(), accountId: GST }));
    const out = runForecast({ ...i, bankTxns: [], items: bills }, [BASE], NOW).items[0]!.filter((x) => x.direction === 'out');
    const bas = out.filter((x) => x.itemId === 'recurring:bill:tax-office');
    expect(bas).toHaveLength(1);
    // The October quarter's bill on 28 February (as a year before), its cash on 14 March.
    expect(bas[0]!.expectedDate).toBe('2027-03-14');
    expect(bas[0]!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').toFixed(2));
    expect(bas[0]!.reason).toMatch(/^bills of this supplier that settle GST \(\d+ of the last \d+ each what it owed at the end of a 3-month period, the last on 2026-10-28\): this one paying what accrued in GST from 2026-10-01 to 2026-12-31 .*, due as the same period was a year before, paid 14 days after each bill/);
    // The latest bill still a draft (not approved: it has not touched the account): the series keeps its cadence rather than take
    // the draft for a payment of the account (which put its amount back into the next quarter's accrual: twice the return).
    const latest = bills[bills.length - 1]!;
    const drafted = [...bills.slice(0, -1), { ...latest, status: 'DRAFT' as const, paidDate: null, amountDue: latest.total }];
    const lines = i.liabilityLines!.filter((l) => !(l.date === latest.issueDate && dec(l.amount).negated().eq(dec(latest.total))));
    const withDraft = runForecast({ ...i, bankTxns: [], items: drafted, liabilityLines: lines }, [BASE], NOW).items[0]!.filter((x) => x.itemId === 'recurring:bill:tax-office');
    expect(withDraft.length).toBeGreaterThan(0);
    for (const x of withDraft) expect(x.reason).not.toMatch(/settle/);
  });

  it('Given each return a bill to the tax office with a line for GST and one for the tax withheld, Then the next bill is what both accrued, its cash after the bill\'s terms', () => {
    const asOf = '2027-01-06';
    const payg = (date: string) => (toDay(date) % 14 === 3 ? '900' : '0');
    const { g, accruedPayg, input: i } = splitReturns(asOf, payg);
    const bills = i.bankTxns.map((t) => doc({ kind: 'AP', contactId: 'tax-office', issueDate: t.date, dueDate: addDays(t.date, 14), status: 'PAID', paidDate: addDays(t.date, 14), total: dec(t.amount).negated().toFixed(), accountId: GST, accountIds: [GST, PAYG] }));
    const bas = runForecast({ ...i, bankTxns: [], items: bills }, [BASE], NOW).items[0]!.filter((x) => x.itemId === 'recurring:bill:tax-office');
    expect(bas).toHaveLength(1);
    expect(bas[0]!.expectedDate).toBe('2027-03-14');
    expect(bas[0]!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').plus(accruedPayg('2026-10-01', '2026-12-31')).toFixed(2));
    expect(bas[0]!.reason).toMatch(/^bills of this supplier that settle GST and PAYG Withholdings Payable \(/);
    // Read by their largest line's account alone (as before), they settle nothing.
    const asBefore = runForecast({ ...i, bankTxns: [], items: bills.map(({ accountIds: _, ...b }) => b) }, [BASE], NOW).items[0]!.filter((x) => x.itemId === 'recurring:bill:tax-office');
    for (const x of asBefore) expect(x.reason).not.toMatch(/settle/);
  });

  /** A sales tax account from `start`: 10 accrued a day, each month's paid on the 21st of the next (but those in `unpaid`, and those `moved` to another day of the month). */
  function monthly(asOf: string, start: string, unpaid: string[] = [], moved: Record<string, string> = {}) {
    const lines: LiabilityLine[] = [];
    const bankTxns: BankTxn[] = [];
    const paydays = new Set<string>();
    for (let date = addDays(start, 41); date < asOf; date = addDays(date, 1)) {
      if (date.endsWith('-21') && !unpaid.includes(date)) paydays.add(moved[date] ?? date);
    }
    let month = dec(0);
    for (let date = start; date < asOf; date = addDays(date, 1)) {
      if (paydays.has(date)) {
        const due = month.minus(dec(10).times(Number(date.slice(8)) - 1)); // the month before: what accrued to its end (the days since are this month's)
        lines.push({ accountId: GST, date, amount: due.negated().toFixed() });
        bankTxns.push({ id: `tax-${date}`, date, amount: due.negated().toFixed(), contactId: 'tax-office', accountId: GST, reference: null });
        month = month.minus(due);
      }
      lines.push({ accountId: GST, date, amount: '10' });
      month = month.plus(10);
    }
    return input({ asOf, accounts, bankTxns, liabilityLines: lines });
  }

  it('Given a young business paying each month\'s sales tax on the 21st of the next (no year before), Then each month\'s on the 21st, as it usually pays: the month just ended known, the one running partly expected', () => {
    const i = monthly('2026-11-25', '2026-03-01'); // paid 21 May (April's) to 21 November (October's)
    const items = itemOf(i);
    expect(items.slice(0, 3).map((x) => [x.expectedDate, x.amount])).toEqual([
      ['2026-12-21', '300'], // November: 24 days known, 6 expected (the last year's daily average)
      ['2027-01-21', '310'],
      ['2027-02-21', '310'],
    ]);
    expect(items[0]!.reason).toMatch(/each what it owed at the end of a month.*from 2026-11-01 to 2026-11-30 \(240\.00 so far, 60\.00 expected: the last year's daily average\), due as the business usually pays after a period$/);
  });

  it('Given the latest month\'s tax paid three days later than the seven before (no year before), Then the next on the 21st: the day it most often pays, not the latest', () => {
    const i = monthly('2026-11-25', '2026-03-01', [], { '2026-11-21': '2026-11-24' });
    const items = itemOf(i);
    expect(items[0]!.reason).toMatch(/8 of the last 8 each what it owed at the end of a month, the last on 2026-11-24/);
    expect(items.slice(0, 3).map((x) => x.expectedDate)).toEqual(['2026-12-21', '2027-01-21', '2027-02-21']);
    // Three months only (August's, September's on the 21st, October's on the 24th): the first counts too, two to one.
    const few = itemOf(monthly('2026-11-25', '2026-08-01', [], { '2026-11-21': '2026-11-24' }));
    expect(few[0]!.reason).toMatch(/3 of the last 3 each what it owed at the end of a month/);
    expect(few[0]!.expectedDate).toBe('2026-12-21');
  });

  it('Given a month\'s tax not paid on its day, Then it is still owed: forecast today; two months unpaid and the series has stopped being paid this way', () => {
    const owed = itemOf(monthly('2026-11-25', '2026-03-01', ['2026-11-21']));
    expect(owed[0]!.expectedDate).toBe('2026-11-25');
    expect(owed[0]!.amount).toBeMoney('310'); // October's
    expect(owed[0]!.reason).toMatch(/from 2026-10-01 to 2026-10-31 \(310\.00, all known\), due 2026-11-21 and still owed$/);
    expect(owed[1]!.expectedDate).toBe('2026-12-21');
    // September's and October's unpaid, a week after October's day: not paid this way any more (within the week, still owed).
    const stopped = itemOf(monthly('2026-11-29', '2026-03-01', ['2026-10-21', '2026-11-21']));
    for (const x of stopped) expect(x.reason).not.toMatch(/still owed|settle GST/);
    expect(itemOf(monthly('2026-11-28', '2026-03-01', ['2026-10-21', '2026-11-21']))[0]!.reason).toMatch(/from 2026-09-01 to 2026-09-30 .*due 2026-10-21 and still owed$/);
  });
});

/**
 * Session 26: quarters of refunds and small payments between returns (the
 * known limits of session 22, docs/forecast.md#settles).
 */
describe('refund quarters and payments between returns', () => {
  /** 10 a day until March 2026; `refunds` quarters of capital purchases (25 a day back); 20 a day from October 2026. */
  const withRefunds = (refunds: readonly string[]) => (date: string) =>
    refunds.some((q) => date.startsWith(q.slice(0, 4)) && quarterOf(date) === quarterOf(q)) ? '-25' : date >= '2026-10-01' ? '20' : '10';

  it('Given two quarters of refunds (the business bought equipment; the tax office paid back each on its day), When forecast after the October quarter ended, Then its return is what October to December accrued: the series is not taken as stopped, and the refund received in October is not owed again', () => {
    const asOf = '2027-01-06';
    const { g, input: i } = books(asOf, withRefunds(['2026-04-01', '2026-07-01']));
    expect(g.accrued('2026-07-01', '2026-09-30').toFixed(2)).toBe('-2300.00'); // paid back on 28 October, inside the October quarter
    const [item, ...more] = itemOf(i);
    expect(more).toEqual([]);
    expect(item!.expectedDate).toBe('2027-02-28');
    expect(item!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').toFixed(2)); // 1,840
    expect(item!.reason).toMatch(/that settle GST .*: this one paying what accrued in GST from 2026-10-01 to 2026-12-31 \(4140\.00, all known\), less 2300\.00 carried from an earlier period of refunds, due/);
  });

  it('Given one quarter of refunds, Then the next return is what its own quarter accrued: the refund received in it is the earlier quarter\'s, not tax of this one', () => {
    const asOf = '2027-01-06';
    const { g, input: i } = books(asOf, withRefunds(['2026-07-01']));
    const [item] = itemOf(i);
    expect(item!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').toFixed(2));
    // A refund not yet paid back nets off the next quarter's return (the tax office offsets it).
    const unpaid = { ...i, bankTxns: i.bankTxns.filter((t) => t.date !== '2026-10-28'), liabilityLines: i.liabilityLines!.filter((l) => !(l.date === '2026-10-28' && dec(l.amount).gt(1000))) };
    expect(g.accrued('2026-07-01', '2026-12-31').toFixed(2)).toBe('-460.00');
    expect(itemOf(unpaid)).toEqual([]); // 1,840 owed less 2,300 still to come back: nothing to pay on 28 February
  });

  it('Given a business that is owed GST back every quarter (its sales GST-free, as a grocer\'s fresh food; its purchases taxed) and refunded on the tax office\'s dates, When forecast after the October quarter ended, Then the refund of 28 February is what the account was owed for October to December, to the cent', () => {
    const asOf = '2027-01-06';
    const grocer = (date: string) => dec(seasonal(date)).negated().toFixed();
    const { g, input: i } = books(asOf, grocer);
    const refunds = runForecast(i, [BASE], NOW).items[0]!.filter((x) => x.itemId === `recurring:bank:in:tax-office:${GST}`);
    expect(refunds.map((x) => [x.expectedDate, x.direction])).toEqual([['2027-02-28', 'in']]);
    expect(refunds[0]!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').negated().toFixed(2));
    expect(refunds[0]!.reason).toMatch(/^bank receipts of this contact that settle GST \(\d+ of the last \d+ each what it was owed at the end of a 3-month period, the last on 2026-10-28\): this one refunding what GST was owed back from 2026-10-01 to 2026-12-31 \([\d.]+, all known\), due as the same period was a year before$/);
    // As before: the median of the last three refunds, which the quarters' purchases make differ.
    const plain = runForecast({ ...i, liabilityLines: undefined }, [BASE], NOW).items[0]!.find((x) => x.itemId === `recurring:bank:in:tax-office:${GST}`)!;
    expect(plain.reason).toMatch(/the median of the last three amounts/);
    // One quarter that owed tax instead (July to September, paid on 28 October): the refund after it is its own quarter's, the
    // tax paid in it not taken for GST owed back.
    const owedOnce = books(asOf, (date) => (quarterOf(date) === quarterOf('2026-07-01') ? '10' : grocer(date)));
    const [after] = runForecast(owedOnce.input, [BASE], NOW).items[0]!.filter((x) => x.itemId === `recurring:bank:in:tax-office:${GST}`);
    expect(after!.amount).toBeMoney(owedOnce.g.accrued('2026-10-01', '2026-12-31').negated().toFixed(2));
    expect(after!.reason).toMatch(/less 920\.00 carried from an earlier period that owed tax/);
  });

  it('Given a penalty paid to the tax office between returns and coded to the GST account, Then the next return is still what its quarter accrued; a payment between returns as large as one turns the model off', () => {
    const asOf = '2027-01-06';
    const { g, input: i } = books(asOf, seasonal);
    const paidBetween = (amount: string) => ({
      ...i,
      bankTxns: [...i.bankTxns, { id: 'between', date: '2026-11-16', amount: `-${amount}`, contactId: 'tax-office', accountId: GST, reference: 'Penalty' }],
      liabilityLines: [...i.liabilityLines!, { accountId: GST, date: '2026-11-16', amount: `-${amount}` }],
    });
    const [item] = itemOf(paidBetween('150'));
    expect(item!.expectedDate).toBe('2027-02-28');
    expect(item!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').toFixed(2));
    expect(item!.reason).toMatch(/that settle GST/);
    // As large as a return, and settling nothing: the series is not paying its returns as it did.
    const large = g.accrued('2026-07-01', '2026-09-30').toFixed(2);
    for (const x of itemOf(paidBetween(large))) expect(x.reason).not.toMatch(/settle GST/);
  });
});

describe('a return whose coding changes (session 27)', () => {
  const HIRE = '2025-07-01';
  const withPayg = { ...accounts, [PAYG]: { name: 'PAYG Withholdings Payable', code: '825' } };
  /**
   * The GST account of `books` (seasonal) and, from the first employee's start (1 July 2025), the tax withheld: 900 every other
   * week. Each quarter's return on the tax office's dates settles both, as `how(date)` says: a bank transaction coded to GST alone
   * while nothing was withheld, then split over both accounts (`bank`); the same as bills to the tax office (`bill`); or a bank
   * transaction of `contact(date)`, GST alone (no tax withheld at all when `payg` is false).
   */
  function coded(asOf: string, how: 'bank' | 'bill', opts: { payg?: boolean; contact?: (date: string) => string } = {}) {
    const payg = (date: string) => (opts.payg !== false && date >= HIRE && toDay(date) % 14 === 3 ? '900' : '0');
    const withheld = new Map<number, Dec>();
    const lines: LiabilityLine[] = [];
    for (let date = '2023-07-01'; date < asOf; date = addDays(date, 1)) {
      if (payg(date) !== '0') lines.push({ accountId: PAYG, date, amount: payg(date) });
      withheld.set(quarterOf(date), (withheld.get(quarterOf(date)) ?? dec(0)).plus(payg(date)));
    }
    const bankTxns: BankTxn[] = [];
    const bills: ReturnType<typeof doc>[] = [];
    const daily = new Map<string, Dec>();
    const gst = gstDays(
      asOf,
      (date) => {
        daily.set(date, dec(seasonal(date)));
        return daily.get(date)!;
      },
      (date, due, ls) => {
        ls.push({ accountId: GST, date, amount: due.negated().toFixed() });
        const w = withheld.get(quarterOf(date) - 3)!;
        if (w.gt(0)) lines.push({ accountId: PAYG, date, amount: w.negated().toFixed() });
        const split = w.gt(0) ? { accountIds: [GST, PAYG] } : {};
        const total = due.plus(w);
        if (how === 'bill') bills.push(doc({ kind: 'AP', contactId: 'tax-office', issueDate: date, dueDate: addDays(date, 14), status: 'PAID', paidDate: addDays(date, 14), total: total.toFixed(), accountId: GST, ...split }));
        else bankTxns.push({ id: `bas-${date}`, date, amount: total.negated().toFixed(), contactId: opts.contact?.(date) ?? 'tax-office', accountId: GST, reference: 'BAS', ...split });
      },
    );
    const sum = (from: string, to: string, f: (date: string) => string | Dec) => {
      let s = dec(0);
      for (let date = from; date <= to; date = addDays(date, 1)) s = s.plus(f(date));
      return s;
    };
    const accrued = (from: string, to: string) => sum(from, to, (d) => daily.get(d) ?? dec(0)).plus(sum(from, to, payg));
    const i = input({ asOf, accounts: withPayg, bankTxns, items: bills, liabilityLines: [...gst, ...lines] });
    return { accrued, outs: runForecast(i, [BASE], NOW).items[0]!.filter((x) => x.direction === 'out') };
  }

  it('Given returns paid from the bank coded to GST alone, then, from the first employee, split over GST and the tax withheld, Then one series settles both from the first split return on: each next return what both accrued (before, the GST-only series went on paying GST beside the new one, which paid it too: each quarter\'s GST forecast twice)', () => {
    // The first split return was paid on 28 October 2025; each cut-off sees it (and the later ones), and the next return, its
    // quarter ended (all of it known), in its 13 weeks.
    const cases: [string, string, string, string][] = [
      ['2026-01-06', '2026-02-28', '2025-10-01', '2025-12-31'],
      ['2026-02-06', '2026-02-28', '2025-10-01', '2025-12-31'],
      ['2026-10-06', '2026-10-28', '2026-07-01', '2026-09-30'],
      ['2027-01-06', '2027-02-28', '2026-10-01', '2026-12-31'],
    ];
    for (const [asOf, due, from, to] of cases) {
      const { accrued, outs } = coded(asOf, 'bank');
      const next = outs.filter((x) => x.expectedDate === due);
      expect(outs.map((x) => x.itemId), asOf).toEqual(outs.map(() => `recurring:bank:out:tax-office:${GST}+${PAYG}`));
      expect(next, asOf).toHaveLength(1);
      expect(next[0]!.amount, asOf).toBeMoney(accrued(from, to).toFixed(2));
      expect(next[0]!.reason, asOf).toMatch(/^bank payments of this contact that settle GST and PAYG Withholdings Payable \((\d+) of the last \1 /);
    }
  });

  it('Given the tax withheld only since the first employee (a year ago), When forecast while a quarter runs, Then the days to come are each account\'s same days last year at its own pace: within 2% of what the quarter accrues (with one pace for both, read off months with the tax withheld against months without, nearly half as much again)', () => {
    const truth = coded('2026-10-06', 'bank').accrued('2026-07-01', '2026-09-30');
    for (const asOf of ['2026-08-06', '2026-08-20', '2026-09-10']) {
      const next = coded(asOf, 'bank').outs.find((x) => x.expectedDate === '2026-10-28')!;
      expect(next.reason, asOf).toMatch(/expected: the same days last year at this year's pace/);
      expect(Math.abs(Number(next.amount) / truth.toNumber() - 1), `${asOf}: ${next.amount} against ${truth.toFixed(2)}`).toBeLessThan(0.02);
    }
  });

  it('Given the first employee less than a year ago (the tax withheld has no year before), When forecast while a quarter runs, Then the account with no year before adds its own daily average: within 2% of what the quarter accrues (review: read only off the other account\'s year before, the withholding still to come was left out)', () => {
    const truth = coded('2026-07-06', 'bill').accrued('2026-04-01', '2026-06-30');
    const next = coded('2026-06-01', 'bill').outs.find((x) => x.itemId === 'recurring:bill:tax-office')!;
    expect(next.expectedDate).toBe('2026-08-11');
    expect(Math.abs(Number(next.amount) / truth.toNumber() - 1), `${next.amount} against ${truth.toFixed(2)}`).toBeLessThan(0.02);
  });

  it('Given a regular GST return series and one payment split over GST and the tax withheld after it (review), Then the returns still settle GST: the next what its quarter accrued less what that payment paid of it', () => {
    const asOf = '2027-01-06';
    const { g, input: i } = books(asOf, seasonal);
    const extra = {
      ...i,
      accounts: withPayg,
      bankTxns: [...i.bankTxns, { id: 'split', date: '2026-11-20', amount: '-420', contactId: 'tax-office', accountId: GST, accountIds: [GST, PAYG], reference: null }],
      liabilityLines: [...i.liabilityLines!, { accountId: GST, date: '2026-11-20', amount: '-120' }, { accountId: PAYG, date: '2026-11-20', amount: '-300' }, { accountId: PAYG, date: '2026-11-01', amount: '300' }],
    };
    const [item, ...more] = itemOf(extra);
    expect(more).toEqual([]);
    expect(item!.expectedDate).toBe('2027-02-28');
    expect(item!.amount).toBeMoney(g.accrued('2026-10-01', '2026-12-31').minus(120).toFixed(2));
    expect(item!.reason).toMatch(/that settle GST \(/);
  });

  it('Given returns split over GST and the tax withheld, then from August 2025 the tax withheld paid monthly on its own and GST alone (review), Then the monthly payments are a series of their own that settles the tax withheld, not joined to the returns before (joined, they matched too few of them to settle it and fell into the run-rate)', () => {
    const asOf = '2025-12-06';
    const bankTxns: BankTxn[] = [];
    const lines: LiabilityLine[] = [];
    const quarter = new Map<number, Dec>();
    const switchAt = '2025-08-01';
    const gst = gstDays(
      asOf,
      (date) => {
        // 1800 withheld on the 15th; from August each month's paid on the 21st of the next (July's on 21 August).
        if (date >= switchAt && date.endsWith('-21')) {
          lines.push({ accountId: PAYG, date, amount: '-1800' });
          bankTxns.push({ id: `w-${date}`, date, amount: '-1800', contactId: 'tax-office', accountId: PAYG, reference: null });
        }
        if (date.endsWith('-15')) {
          lines.push({ accountId: PAYG, date, amount: '1800' });
          quarter.set(quarterOf(date), (quarter.get(quarterOf(date)) ?? dec(0)).plus(1800));
        }
        return dec(seasonal(date));
      },
      (date, due, ls) => {
        ls.push({ accountId: GST, date, amount: due.negated().toFixed() });
        const w = date < switchAt ? (quarter.get(quarterOf(date) - 3) ?? dec(0)) : dec(0);
        if (w.gt(0)) lines.push({ accountId: PAYG, date, amount: w.negated().toFixed() });
        bankTxns.push({ id: `bas-${date}`, date, amount: due.plus(w).negated().toFixed(), contactId: 'tax-office', accountId: GST, reference: 'BAS', ...(w.gt(0) ? { accountIds: [GST, PAYG] } : {}) });
      },
    );
    const items = runForecast(input({ asOf, accounts: withPayg, bankTxns, liabilityLines: [...gst, ...lines] }), [BASE], NOW).items[0]!.filter((x) => x.direction === 'out');
    for (const x of items) console.log("DBG", x.itemId, x.expectedDate, x.amount, x.reason.slice(0, 150));
    console.log("TX", bankTxns.filter((t) => t.date >= "2025-06-01").map((t) => `${t.date} ${t.amount} ${t.accountId}`).join("; "));
    const withheld = items.filter((x) => x.itemId === `recurring:bank:out:tax-office:${PAYG}`);
    expect(withheld.map((x) => [x.expectedDate, x.amount])).toEqual([['2025-12-21', '1800'], ['2026-01-21', '1800'], ['2026-02-21', '1800']]);
    for (const x of withheld) expect(x.reason).toMatch(/^bank payments of this contact that settle PAYG Withholdings Payable \(4 of the last 4 /);
  });

  it('Given monthly returns, some months refunded (a settling series of receipts), and the returns paid from an unsynced account since August (review), Then the payments\' series still forecasts them: a series of refunds pays no return, and a return paid another way is found on its day though that day\'s sales put tax on the account too', () => {
    const asOf = '2026-12-06';
    // 50 a day accrued; January, May and September 60 a day owed back (refunded). Each month's on the 21st of the next.
    const lines: LiabilityLine[] = [];
    const byMonth = new Map<string, Dec>();
    for (let date = '2024-01-01'; date < asOf; date = addDays(date, 1)) {
      const a = ['01', '05', '09'].includes(date.slice(5, 7)) ? dec(-60) : dec(50);
      lines.push({ accountId: GST, date, amount: a.toFixed() });
      byMonth.set(date.slice(0, 7), (byMonth.get(date.slice(0, 7)) ?? dec(0)).plus(a));
    }
    const bankTxns: BankTxn[] = [];
    for (const [m, v] of byMonth) {
      const [y, mo] = m.split('-').map(Number) as [number, number];
      const date = `${mo === 12 ? y + 1 : y}-${String(mo === 12 ? 1 : mo + 1).padStart(2, '0')}-21`;
      if (date >= asOf) continue;
      lines.push({ accountId: GST, date, amount: v.negated().toFixed() });
      // Refunds come into the bank; from August 2026 the payments leave from an account the books do not sync.
      if (v.lt(0) || date < '2026-08-01') bankTxns.push({ id: `m-${date}`, date, amount: v.negated().toFixed(), contactId: 'tax-office', accountId: GST, reference: null });
    }
    const items = runForecast(input({ asOf, accounts, bankTxns, liabilityLines: lines }), [BASE], NOW).items[0]!;
    const refunds = items.filter((x) => x.itemId === `recurring:bank:in:tax-office:${GST}`);
    expect(refunds.length).toBeGreaterThan(0);
    expect(refunds[0]!.reason).toMatch(/that settle GST/);
    const payments = items.filter((x) => x.itemId === ITEM);
    // (The February one, for a January that was refunded a year before, is read off the last year's average: refunds are not forecast as such.)
    expect(payments.slice(0, 2).map((x) => [x.expectedDate, x.amount])).toEqual([['2026-12-21', '1500'], ['2027-01-21', '1550']]);
  });

  it('Given the same returns as bills to the tax office (lines for GST alone, then for both), Then the bills settle both: the next bill what both accrued', () => {
    const { accrued, outs } = coded('2027-01-06', 'bill');
    const bas = outs.filter((x) => x.itemId === 'recurring:bill:tax-office');
    expect(bas.map((x) => x.expectedDate)).toEqual(['2027-03-14']);
    expect(bas[0]!.amount).toBeMoney(accrued('2026-10-01', '2026-12-31').toFixed(2));
    expect(bas[0]!.reason).toMatch(/^bills of this supplier that settle GST and PAYG Withholdings Payable \((\d+) of the last \1 /);
  });

  it('Given returns paid to the tax office under a new contact from October 2025 (GST alone), Then the old contact\'s series forecasts them until the new one has paid three (three periods running paid by it), and only the new one after: never both', () => {
    const contact = (date: string) => (date < '2025-08-01' ? 'tax-office' : 'ato');
    // Each cut-off's next return has its quarter ended (all of it known).
    const want: Record<string, [string, string]> = {
      // One or two payments of the new contact: the old series still forecasts (the new one is not a series that settles yet).
      '2026-02-06': ['tax-office', '2026-02-28'],
      '2026-04-06': ['tax-office', '2026-04-28'],
      '2026-07-06': ['ato', '2026-07-28'],
      '2026-10-06': ['ato', '2026-10-28'],
      '2027-01-06': ['ato', '2027-02-28'],
    };
    for (const [asOf, [who, due]] of Object.entries(want)) {
      const { accrued, outs } = coded(asOf, 'bank', { payg: false, contact });
      const settling = outs.filter((x) => /that settle GST/.test(x.reason));
      expect(new Set(settling.map((x) => x.itemId)), asOf).toEqual(new Set([`recurring:bank:out:${who}:${GST}`]));
      const next = settling.find((x) => x.expectedDate === due)!;
      const q = quarterOf(addDays(due, -60));
      const from = `${Math.floor(q / 12)}-${String((q % 12) + 1).padStart(2, '0')}-01`;
      expect(next.amount, asOf).toBeMoney(accrued(from, addDays(addMonthsText(from, 3), -1)).toFixed(2));
      // The same period is never forecast twice.
      expect(outs.filter((x) => x.expectedDate === due), asOf).toHaveLength(1);
    }
  });

  it('Given three periods running paid another way and no series that pays them (the returns paid from an account the books do not sync), Then the series still forecasts the next: nothing else would', () => {
    // 100 a day; from October 2026 the returns leave only the journals' debit (as a payment from an unsynced account).
    const bankTxns: BankTxn[] = [];
    const lines = gstDays('2027-05-06', () => dec(100), (date, due, ls) => {
      ls.push({ accountId: GST, date, amount: due.negated().toFixed() });
      if (date < '2026-10-01') bankTxns.push({ id: `bas-${date}`, date, amount: due.negated().toFixed(), contactId: 'tax-office', accountId: GST, reference: 'BAS' });
    });
    const got = itemOf(input({ asOf: '2027-05-06', accounts, bankTxns, liabilityLines: lines }));
    expect(got.map((x) => [x.expectedDate, x.amount])).toEqual([['2027-07-28', '9100']]);
  });
});

/** `date` (a month's first) so many months on. */
const addMonthsText = (date: string, months: number) => {
  const i = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 + months;
  return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`;
};
