/**
 * The review of the settlement model (session 22, a subagent's concrete
 * cases; each failed on the model's first version): liabilities.ts.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../src/domain/calendar.js';
import { dec, type Dec } from '../src/domain/money.js';
import { runForecast } from '../src/domain/forecast/engine.js';
import { accruals, settlementModel } from '../src/domain/forecast/liabilities.js';
import { fromDay, toDay } from '../src/domain/forecast/days.js';
import type { BankTxn, LiabilityLine } from '../src/domain/forecast/types.js';
import { input } from './helpers/forecast-input.js';
import { accounts, BASE, GST, gstDays, NOW } from './helpers/gst-books.js';

describe("today's lines in a live forecast, and a monthly payday", () => {
  const W = 'acc-paygw';
  const accounts = { ...input().accounts, [W]: { name: 'PAYG Withholdings Payable', code: '825' } };

  /** Monthly payroll on the 25th withholding 5000; each month's paid on the 21st of the next. Lines up to `last` inclusive. */
  function payroll(last: string) {
    const lines: LiabilityLine[] = [];
    const bankTxns: BankTxn[] = [];
    let owed = dec(0);
    for (let date = '2024-01-01'; date <= last; date = addDays(date, 1)) {
      if (date.endsWith('-21') && owed.gt(0)) {
        lines.push({ accountId: W, date, amount: owed.negated().toFixed() });
        bankTxns.push({ id: `w-${date}`, date, amount: owed.negated().toFixed(), contactId: 'ato', accountId: W, reference: null });
        owed = dec(0);
      }
      if (date.endsWith('-25')) {
        lines.push({ accountId: W, date, amount: '5000' });
        owed = owed.plus(5000);
      }
    }
    return { lines, bankTxns };
  }
  const items = (last: string, asOf: string) => {
    const { lines, bankTxns } = payroll(last);
    const i = input({ asOf, accounts, bankTxns, liabilityLines: lines });
    return runForecast(i, [BASE], NOW).items[0]!.filter((x) => x.itemId === `recurring:bank:out:ato:${W}`).map((x) => [x.expectedDate, x.amount, x.reason.slice(x.reason.indexOf('this one'))]);
  };

  describe('live asOf (lines of today included, as loadLiabilityLines(asOf) gives them)', () => {
    it('payday = today', () => {
      const replay = items('2026-11-24', '2026-11-25'); // replay: lines before the cut-off
      const live = items('2026-11-25', '2026-11-25'); // live: today's payroll line included
      expect(live).toEqual(replay);
    });
  });

  describe('monthly payroll (5000 withheld on the 25th), the November period, replay cut-offs', () => {
    it('forecast of the 21 December payment (truth: 5000)', () => {
      const out: string[] = [];
      for (const asOf of ['2026-11-03', '2026-11-10', '2026-11-20', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-29']) {
        const r = items(addDays(asOf, -1), asOf).find((x) => x[0] === '2026-12-21');
        out.push(`${asOf}: ${r?.[1]}`);
      }
      expect(out.every((s) => s.endsWith(': 5000'))).toBe(true);
    });
  });
});

describe('a return paid another way', () => {

  /** 100 a day of GST; each quarter's return on the tax office's day; `how(date)` says how that return is paid. */
  function books(asOf: string, how: (date: string) => 'bank' | 'bill' | 'other-contact' | 'other-account') {
    const bankTxns: BankTxn[] = [];
    const lines = gstDays(asOf, () => dec(100), (date, due, ls) => {
      const h = how(date);
      ls.push({ accountId: GST, date, amount: due.negated().toFixed() }); // a debit whichever way it is paid
      if (h === 'bank') bankTxns.push({ id: `bas-${date}`, date, amount: due.negated().toFixed(), contactId: 'ato', accountId: GST, reference: 'BAS' });
      if (h === 'other-contact') bankTxns.push({ id: `bas-${date}`, date, amount: due.negated().toFixed(), contactId: 'ato-new', accountId: GST, reference: 'BAS' });
      // 'bill': a bill to the tax office coded to GST (its journal debits GST), paid through AP; 'other-account': paid from an account not synced / a clearing account
    });
    return input({ asOf, accounts, bankTxns, liabilityLines: lines });
  }
  const show = (asOf: string, how: Parameters<typeof books>[1]) =>
    runForecast(books(asOf, how), [BASE], NOW).items[0]!.filter((x) => x.itemId.startsWith('recurring:bank:out:ato') || x.itemId.startsWith('predicted:')).map((x) => [x.itemId, x.expectedDate, x.amount, x.reason.slice(x.reason.indexOf('this one'), x.reason.indexOf('this one') + 120)]);

  describe('the July quarter (9,200) paid on 28 October 2026 another way', () => {
    for (const how of ['bank', 'bill', 'other-contact'] as const) {
      it(how, () => {
        const got = show('2026-11-25', (d) => (d === '2026-10-28' ? how : 'bank'));
        // Nothing still owed today (the next return, for the October quarter, is due after the 13 weeks).
        expect(got).toEqual([]);
      });
    }
    it('every return paid by a bill from October: never a phantom owed today, and each quarter at what it accrued on its own day', () => {
      const expected: Record<string, string[]> = {
        '2026-11-25': [],
        '2027-01-20': ['2027-02-28 9200'],
        '2027-02-27': ['2027-02-28 9200', '2027-04-28 9000'],
        '2027-03-05': ['2027-04-28 9000'],
        '2027-03-08': ['2027-04-28 9000'],
      };
      for (const [asOf, want] of Object.entries(expected)) {
        const got = show(asOf, (d) => (d >= '2026-10-01' ? 'bill' : 'bank'));
        expect(got.map((x) => `${x[1]} ${x[2]}`), asOf).toEqual(want);
      }
    });
  });
});

describe('a change of cadence', () => {

  /** 100 a day; quarterly returns on the 28th of the month after each quarter until `switchAt`, then each month's on the 21st of the next. */
  function books(asOf: string, switchAt: string) {
    const lines: LiabilityLine[] = [];
    const bankTxns: BankTxn[] = [];
    const monthAcc = new Map<string, Dec>();
    const pay = (date: string, months: string[]) => {
      const due = months.reduce((s, m) => s.plus(monthAcc.get(m) ?? 0), dec(0));
      if (due.isZero()) return;
      lines.push({ accountId: GST, date, amount: due.negated().toFixed() });
      bankTxns.push({ id: `t-${date}`, date, amount: due.negated().toFixed(), contactId: 'ato', accountId: GST, reference: null });
    };
    const mk = (y: number, m: number) => `${y}-${String(m).padStart(2, '0')}`;
    for (let date = '2023-07-01'; date < asOf; date = addDays(date, 1)) {
      const [y, m, d] = date.split('-').map(Number) as [number, number, number];
      const prev = (k: number) => { const i = y * 12 + (m - 1) - k; return mk(Math.floor(i / 12), (i % 12) + 1); };
      if (date < switchAt) {
        if (d === 28 && [1, 4, 7, 10].includes(m)) pay(date, [prev(1), prev(2), prev(3)]);
      } else if (d === 21) pay(date, [prev(1)]);
      lines.push({ accountId: GST, date, amount: '100' });
      monthAcc.set(mk(y, m), (monthAcc.get(mk(y, m)) ?? dec(0)).plus(100));
    }
    return input({ asOf, accounts, bankTxns, liabilityLines: lines });
  }

  describe('quarterly returns, then monthly from August 2026 (21 Aug: July, 21 Sep: August, 21 Oct: September, 21 Nov: October)', () => {
    it('the next ones are monthly', () => {
      const got = runForecast(books('2026-11-25', '2026-08-01'), [BASE], NOW).items[0]!
        .filter((x) => x.itemId.startsWith('recurring:bank:out:ato'))
        .map((x) => [x.expectedDate, x.amount, x.reason.slice(x.reason.indexOf('each what'), x.reason.indexOf('each what') + 70), x.reason.slice(x.reason.indexOf('this one'), x.reason.indexOf('this one') + 95)]);
      expect(got.map((x) => x[0])).toEqual(['2026-12-21', '2027-01-21', '2027-02-21']);
    });
  });
});

describe('a one-off in the year before', () => {

  /** 100 a day, plus one-offs; each quarter's return (a refund when negative) on the tax office's day. */
  function books(asOf: string, oneOff: Record<string, string>) {
    const bankTxns: BankTxn[] = [];
    const lines = gstDays(asOf, (date) => dec(100).plus(oneOff[date] ?? 0), (date, due, ls) => {
      ls.push({ accountId: GST, date, amount: due.negated().toFixed() });
      bankTxns.push({ id: `bas-${date}`, date, amount: due.negated().toFixed(), contactId: 'ato', accountId: GST, reference: 'BAS' });
    });
    return input({ asOf, accounts, bankTxns, liabilityLines: lines });
  }
  const show = (i: ReturnType<typeof books>) =>
    runForecast(i, [BASE], NOW).items[0]!.filter((x) => x.itemId === `recurring:bank:out:ato:${GST}`).map((x) => [x.expectedDate, x.amount, x.reason.slice(x.reason.indexOf('this one'))]);

  describe('pace', () => {
    it('a truck bought in March 2025 (34,000 of GST credits): this December quarter', () => {
      const plain = show(books('2026-12-02', {}));
      const truck = show(books('2026-12-02', { '2025-03-14': '-34000' }));
      expect(truck).toEqual(plain);
    });
  });
});

describe('other money coded to the account', () => {

  /** 200 a day of GST on sales; on the 5th of each month the customs broker is paid 1000 of GST on imports, coded to the GST account (an input credit: a debit). */
  function books(asOf: string) {
    const bankTxns: BankTxn[] = [];
    // The day's GST on sales, less the import GST of the day the broker is paid (both on the account that day).
    const day = (date: string) => {
      if (!date.endsWith('-15') || [1, 4, 7, 10].includes(+date.slice(5, 7))) return dec(200);
      bankTxns.push({ id: `imp-${date}`, date, amount: '-1000', contactId: 'broker', accountId: GST, reference: 'import GST' });
      return dec(200 - 1000);
    };
    const lines = gstDays(asOf, day, (date, due, ls) => {
      ls.push({ accountId: GST, date, amount: due.negated().toFixed() });
      bankTxns.push({ id: `bas-${date}`, date, amount: due.negated().toFixed(), contactId: 'ato', accountId: GST, reference: 'BAS' });
    });
    return input({ asOf, accounts, bankTxns, liabilityLines: lines });
  }

  describe('GST on imports paid by spend-money coded to the GST account', () => {
    it('the October quarter (18,400 - 2,000 = 16,400)', () => {
      const i = books('2027-01-06');
      const got = runForecast(i, [BASE], NOW).items[0]!.filter((x) => x.itemId === `recurring:bank:out:ato:${GST}`).map((x) => [x.expectedDate, x.amount, x.reason.slice(x.reason.indexOf('this one'), x.reason.indexOf('this one') + 110)]);
      expect(got[0]![1]).toBe('16400');
    });
  });
});

describe('a return paid late once', () => {
  function books(asOf: string, moved: Record<string, string>) {
    const bankTxns: BankTxn[] = [];
    const lines = gstDays(asOf, () => dec(100), (date, due, ls) => {
      const d = moved[date] ?? date;
      ls.push({ accountId: GST, date: d, amount: due.negated().toFixed() });
      bankTxns.push({ id: `b-${date}`, date: d, amount: due.negated().toFixed(), contactId: 'ato', accountId: GST, reference: null });
    });
    lines.sort((a, b) => a.date.localeCompare(b.date));
    bankTxns.sort((a, b) => a.date.localeCompare(b.date));
    return { lines, bankTxns };
  }
  describe('a return paid late once, last year', () => {
    it('this year\'s July quarter', () => {
      const asOf = '2026-09-01';
      const { lines, bankTxns } = books(asOf, { '2025-10-28': '2026-01-03' });
      const m = settlementModel(bankTxns.map((t) => toDay(t.date)), bankTxns.map((t) => dec(t.amount).negated()), accruals(lines).get(GST), toDay(asOf))!;
      const s = m.schedule(toDay('2027-03-31'));
      expect(fromDay(s[0]!.due)).toBe('2026-10-28');
    });
  });
});
