/**
 * The forecast engine (issue 9; spec 2.3 ForecastWeek/ForecastResponse, spec 3
 * purchase-order suppression, spec 9 engine versions; docs/forecast.md), pure:
 * no store. Each test names the rule it proves.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { D, dec, isCanonical } from '../src/domain/money.js';
import { addDays } from '../src/domain/calendar.js';
import { prepareForecast, runForecast } from '../src/domain/forecast/engine.js';
import { customerDist, dailyPerWeek, DEFAULT_SCENARIO_ADJUSTMENTS, ENGINE_VERSION, forEachOpenReceivable, projectForecast } from '../src/domain/forecast/project.js';
import { matchPurchaseOrders } from '../src/domain/forecast/purchase-orders.js';
import { orderSeasonality } from '../src/domain/forecast/seasonality.js';
import { toDay } from '../src/domain/forecast/days.js';
import { cashPosition } from '../src/domain/forecast/opening.js';
import { readPayload } from '../src/store/queries/forecast-snapshots.js';
import type { ForecastInput, ForecastPayload, Scenario } from '../src/domain/forecast/types.js';
import { arbitraryBooks, AS_OF, doc, input, paidHistory } from './helpers/forecast-input.js';
import { customerDelayDist, customerPriors, DMIN, orgDelayDist, paymentProbabilities, PRIOR_WEIGHT } from '../src/domain/forecast/behaviour.js';
import { Rng } from '../src/domain/random.js';
import { toDec } from '../src/domain/forecast/cents.js';

const BASE: Scenario = { id: 'base', name: 'Base case', kind: 'BASE', adjustments: {} };
const NOW = new Date('2026-11-25T08:00:00Z');

const run = (i: ForecastInput, s: Scenario = BASE): ForecastPayload => projectForecast(prepareForecast(i), s, NOW);
const weekOf = (p: ForecastPayload, id: string) => p.weeks.map((w, k) => (w.itemIds.includes(id) ? k : -1)).filter((k) => k >= 0);

function checkArithmetic(p: ForecastPayload) {
  expect(p.weeks).toHaveLength(13);
  let opening = dec(p.startingCash);
  let tin = new D(0);
  let tout = new D(0);
  p.weeks.forEach((w) => {
    for (const v of [w.opening, w.inflow, w.outflow, w.net, w.closing, w.guaranteedInflow!, w.forecastInflow!]) expect(isCanonical(v)).toBe(true);
    expect(dec(w.opening).eq(opening)).toBe(true);
    expect(dec(w.closing).eq(dec(w.opening).plus(w.inflow).minus(w.outflow))).toBe(true);
    expect(dec(w.net).eq(dec(w.inflow).minus(w.outflow))).toBe(true);
    expect(dec(w.guaranteedInflow!).plus(w.forecastInflow!).eq(dec(w.inflow))).toBe(true);
    opening = dec(w.closing);
    tin = tin.plus(w.inflow);
    tout = tout.plus(w.outflow);
  });
  expect(dec(p.endingCash).eq(opening)).toBe(true);
  expect(dec(p.totalInflow).eq(tin)).toBe(true);
  expect(dec(p.totalOutflow).eq(tout)).toBe(true);
}

describe('forecast engine', () => {
  it('spec 2.3: 13 weekly buckets, week 1 starting on the Monday of the current week; itemIds per week', () => {
    const p = run(input({ items: [doc({ issueDate: '2026-11-20', dueDate: '2026-12-09' })] }));
    expect(p.weeks.map((w) => w.weekStart)).toEqual(Array.from({ length: 13 }, (_, k) => addDays('2026-11-23', 7 * k)));
    expect(p.weeks.map((w) => w.weekEnd)).toEqual(Array.from({ length: 13 }, (_, k) => addDays('2026-11-29', 7 * k)));
    expect(p.engineVersion).toBe(ENGINE_VERSION);
    expect(p.computedAt).toBe(NOW.toISOString());
    expect(p.asOfDate).toBe(AS_OF);
    expect(weekOf(p, p.weeks.flatMap((w) => w.itemIds)[0]!).length).toBeGreaterThan(0);
    checkArithmetic(p);
  });

  it('exact decimals (property): closing = opening + inflow - outflow every week, chained, to the cent and beyond', () => {
    fc.assert(
      fc.property(arbitraryBooks(), fc.constantFrom(...Object.values(DEFAULT_SCENARIO_ADJUSTMENTS)), ({ books, opening }, adjustments) => {
        const p = run(books, { id: 's', name: 's', kind: 'CUSTOM', adjustments });
        checkArithmetic(p);
        expect(dec(p.startingCash).eq(dec(opening).plus('0.000001'))).toBe(true);
        // Every amount that moves a week belongs to exactly one category: they add up to the week's flows exactly.
        for (const w of p.weeks) {
          const cin = Object.values(w.categories!.accounts).reduce((a, c) => a.plus(c.inflow), new D(0));
          const cout = Object.values(w.categories!.accounts).reduce((a, c) => a.plus(c.outflow), new D(0));
          expect(cin.eq(dec(w.inflow)), `week ${w.weekStart} inflow ${w.inflow} categories ${cin.toFixed()}`).toBe(true);
          expect(cout.eq(dec(w.outflow)), `week ${w.weekStart} outflow ${w.outflow} categories ${cout.toFixed()}`).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('receivables: an open invoice lands on the date its customer is likely to pay (its own delay history, else the organisation)', () => {
    const late = paidHistory('late', 8, 28);
    const prompt = paidHistory('prompt', 8, 0);
    const due = addDays(AS_OF, 10);
    const a = doc({ id: 'from-late', contactId: 'late', issueDate: addDays(due, -14), dueDate: due, total: '1000' });
    const b = doc({ id: 'from-prompt', contactId: 'prompt', issueDate: addDays(due, -14), dueDate: due, total: '1000' });
    const p = run(input({ items: [...late, ...prompt, a, b] }));
    const placed = new Map<string, number[]>();
    forEachOpenReceivable(prepareForecast(input({ items: [...late, ...prompt, a, b] })), 0, (it, k, x) => {
      const list = placed.get(it.src.id) ?? Array<number>(13).fill(0);
      list[k]! += x.cents;
      placed.set(it.src.id, list);
    });
    // The week holding the largest share of the invoice.
    const expectedWeek = (id: string) => {
      const list = placed.get(id)!;
      return list.indexOf(Math.max(...list));
    };
    expect(weekOf(p, 'from-prompt')).toContain(1);
    // The prompt payer's invoice sits mostly in the week of its due date (week 2: 30 Nov - 6 Dec holds 5 Dec);
    // the late payer's about four weeks later.
    expect(expectedWeek('from-prompt')).toBe(1);
    expect(expectedWeek('from-late')).toBeGreaterThanOrEqual(4);
    checkArithmetic(p);
  });

  it('overdue receivables are spread where they are likely to be paid (not all in week 1), less of them the more overdue they are', () => {
    // Customers pay 0-45 days late; two open invoices, 5 and 150 days overdue.
    const history = Array.from({ length: 30 }, (_, i) => paidHistory(`h${i}`, 4, (i * 3) % 46)).flat();
    const recent = doc({ id: 'five-days', contactId: 'x', issueDate: addDays(AS_OF, -19), dueDate: addDays(AS_OF, -5), total: '1000' });
    const old = doc({ id: 'old', contactId: 'y', issueDate: addDays(AS_OF, -164), dueDate: addDays(AS_OF, -150), total: '1000' });
    const p = run(input({ items: [...history, recent, old] }));
    const weeks = weekOf(p, 'five-days');
    expect(weeks.length).toBeGreaterThan(1);
    for (const k of weeks) expect(p.weeks[k]!.overdueItemIds).toContain('five-days');
    // What each invoice is expected to bring within the 13 weeks, week by week.
    const placed = new Map<string, number[]>();
    forEachOpenReceivable(prepareForecast(input({ items: [...history, recent, old] })), 0, (it, k, a) => {
      const list = placed.get(it.src.id) ?? Array<number>(13).fill(0);
      list[k]! += a.cents;
      placed.set(it.src.id, list);
    });
    const sum = (id: string) => placed.get(id)!.reduce((a, b) => a + b, 0);
    expect(placed.get('five-days')![0]!).toBeLessThan(sum('five-days'));
    expect(sum('five-days')).toBeLessThanOrEqual(100_000);
    expect(sum('five-days')).toBeGreaterThan(sum('old'));
    expect(sum('old')).toBeGreaterThan(0);
  });

  it('bills: open AUTHORISED bills on their due dates; overdue ones in week 1', () => {
    const b1 = doc({ id: 'bill-later', kind: 'AP', contactId: 's1', issueDate: '2026-11-20', dueDate: '2026-12-10', total: '300' });
    const b2 = doc({ id: 'bill-overdue', kind: 'AP', contactId: 's2', issueDate: '2026-10-01', dueDate: '2026-10-31', total: '200' });
    const p = run(input({ items: [b1, b2] }));
    expect(weekOf(p, 'bill-later')).toEqual([2]);
    expect(weekOf(p, 'bill-overdue')).toEqual([0]);
    expect(p.weeks[0]!.overdueItemIds).toContain('bill-overdue');
    expect(p.weeks[2]!.outflow).toBeMoney('300');
    expect(p.weeks[0]!.outflow).toBeMoney('200');
  });

  it('recurring outflows from bills (monthly rent) are projected, never double-counting a bill already issued', () => {
    const rent = Array.from({ length: 12 }, (_, i) => {
      const issue = `2026-${String(11 - i).padStart(2, '0')}-01`.replace('-00-', '-12-');
      return doc({ kind: 'AP', contactId: 'landlord', issueDate: issue, dueDate: issue, status: 'PAID', paidDate: issue, total: '4200', accountId: 'acc-rent' });
    }).filter((d) => d.issueDate! <= AS_OF);
    const p = run(input({ items: rent }));
    const rentWeeks = weekOf(p, 'recurring:bill:landlord');
    // 1 December, 1 January, 1 February fall in weeks 2, 6 and 11.
    expect(rentWeeks).toEqual([1, 5, 10]);
    expect(p.weeks[1]!.categories!.accounts['acc-rent']).toEqual({ name: 'Rent', code: '469', inflow: '0', outflow: '4200' });
    // December's bill issued already (open): it replaces the projected December rent, it is not added to it.
    const december = doc({ id: 'rent-dec', kind: 'AP', contactId: 'landlord', issueDate: '2026-11-24', dueDate: '2026-12-01', total: '4200', accountId: 'acc-rent' });
    const q = run(input({ items: [...rent, december] }));
    expect(weekOf(q, 'rent-dec')).toEqual([1]);
    expect(q.weeks[1]!.outflow).toBeMoney('4200');
    expect(dec(q.totalOutflow).eq(dec(p.totalOutflow))).toBe(true);
  });

  it('recurring flows from bank transactions: fortnightly payroll and monthly interest', () => {
    const bankTxns = [
      ...Array.from({ length: 20 }, (_, i) => ({ id: `pay${i}`, date: addDays('2026-11-19', -14 * i), amount: '-5200', contactId: 'employee', accountId: null, reference: 'Pay' })),
      ...Array.from({ length: 10 }, (_, i) => ({ id: `int${i}`, date: `2026-${String(11 - i).padStart(2, '0')}-28`, amount: '12.5', contactId: null, accountId: null, reference: 'Interest' })),
    ];
    const p = run(input({ bankTxns }));
    expect(weekOf(p, 'recurring:bank:out:employee:')).toEqual([1, 3, 5, 7, 9, 11]);
    expect(p.weeks[1]!.outflow).toBeMoney('5200');
    const interest = p.weeks.map((w, k) => (w.itemIds.some((i) => i.startsWith('recurring:bank:in:ref:interest')) ? k : -1)).filter((k) => k >= 0);
    expect(interest).toHaveLength(3);
    // Guaranteed (recurring) inflow: not statistical.
    for (const k of interest) expect(p.weeks[k]!.forecastInflow).toBeMoney('0');
  });

  /** Quarterly tax payments on the tax office's dates (28 October, 28 February, 28 April, 28 July: 59 to 123 days apart), from `first` to `last`. */
  const BAS_DATES = ['10-28', '02-28', '04-28', '07-28'];
  function taxPayments(fromYear: number, toDate: string, amounts = ['-9000', '-11000', '-10000', '-12000']) {
    const out: { id: string; date: string; amount: string; contactId: string; accountId: string; reference: string }[] = [];
    for (let y = fromYear; y <= fromYear + 4; y++) {
      for (const [q, md] of BAS_DATES.entries()) {
        const date = `${md.startsWith('10') ? y : y + 1}-${md}`;
        if (date <= toDate && date >= `${fromYear}-10-28`) out.push({ id: `bas-${date}`, date, amount: amounts[q]!, contactId: 'tax-office', accountId: 'acc-rent', reference: 'BAS' });
      }
    }
    return out;
  }
  const taxWeeks = (p: ForecastPayload) => weekOf(p, 'recurring:bank:out:tax-office:acc-rent');

  it("Given two years of quarterly tax payments on the tax office's dates, When forecast, Then next year's payments fall on last year's dates (no one cadence fits 59-123-day gaps)", () => {
    // 2027-01-06 (a Wednesday): weeks 4 January to 4 April 2027; last year's 28 February 2026 comes round on 28 February 2027.
    const asOf = '2027-01-06';
    const p = projectForecast(prepareForecast(input({ asOf, bankTxns: taxPayments(2024, asOf) })), BASE, NOW);
    expect(taxWeeks(p)).toEqual([7]); // 28 February: 55 days after Monday 4 January, week 8
    // The median of the last three amounts (-10,000, -12,000, -9,000 by date: 10,000).
    expect(p.weeks[7]!.outflow).toBeMoney('10000');
    const item = runForecast(input({ asOf, bankTxns: taxPayments(2024, asOf) }), [BASE], NOW).items[0]!.find((i) => i.itemId === 'recurring:bank:out:tax-office:acc-rent')!;
    expect([item.expectedDate, item.reasonCode]).toEqual(['2027-02-28', 'cadence']);
    expect(item.reason).toMatch(/on the same dates every year/);
  });

  it('Given under a year of those tax payments (no counterpart a year before), Then they are taken as quarterly from the last one; two payments are not a pattern', () => {
    const asOf = '2026-08-19'; // weeks 17 August to 15 November 2026
    const young = taxPayments(2025, asOf).filter((t) => t.date >= '2026-01-01'); // 28 February, 28 April, 28 July 2026
    expect(young.map((t) => t.date)).toEqual(['2026-02-28', '2026-04-28', '2026-07-28']);
    const p = projectForecast(prepareForecast(input({ asOf, bankTxns: young })), BASE, NOW);
    expect(taxWeeks(p)).toEqual([10]); // 28 October (quarterly from 28 July): week 11
    expect(p.weeks[10]!.outflow).toBeMoney('11000'); // the median of 11,000, 10,000 and 12,000
    const two = projectForecast(prepareForecast(input({ asOf, bankTxns: young.slice(1) })), BASE, NOW);
    expect(dec(two.totalOutflow).isZero()).toBe(true);
  });

  it("Given an accountant's fee billed on 1 February two years running, Then a third is expected on 1 February (the annual cadence would need a third to see it); a bill a year and a half before is no pattern", () => {
    const fee = (issue: string) => doc({ kind: 'AP', contactId: 'accountant', issueDate: issue, dueDate: addDays(issue, 30), status: 'PAID', paidDate: addDays(issue, 30), total: '3630', accountId: 'acc-rent' });
    const asOf = '2027-01-06'; // weeks 4 January to 4 April 2027
    const p = projectForecast(prepareForecast(input({ asOf, items: [fee('2025-02-01'), fee('2026-02-01')] })), BASE, NOW);
    // Issued on 1 February 2027, paid after the supplier's 30 days' terms: 3 March, week 9.
    expect(weekOf(p, 'recurring:bill:accountant')).toEqual([8]);
    expect(p.weeks[8]!.outflow).toBeMoney('3630');
    const once = projectForecast(prepareForecast(input({ asOf, items: [fee('2024-08-01'), fee('2026-02-01')] })), BASE, NOW);
    expect(weekOf(once, 'recurring:bill:accountant')).toEqual([]);
  });

  it('Given a weekly supplier paid for a year and a half that stopped six months ago, Then last year\'s dates do not bring it back', () => {
    const asOf = '2027-01-06';
    const weekly = Array.from({ length: 78 }, (_, i) => ({ id: `w${i}`, date: addDays('2025-01-01', 7 * i), amount: '-800', contactId: 'cleaner', accountId: 'acc-rent', reference: null }));
    expect(weekly[weekly.length - 1]!.date).toBe('2026-06-24');
    const p = projectForecast(prepareForecast(input({ asOf, bankTxns: weekly })), BASE, NOW);
    expect(dec(p.totalOutflow).isZero()).toBe(true);
  });

  it('Given the yearly pattern, Then what is already paid or ordered is not forecast again: a tax payment made two weeks early, an open order for the annual fee, last year\'s payment made in two parts', () => {
    const taxItems = (p: ForecastPayload) => p.weeks.flatMap((w) => w.itemIds).filter((id) => id === 'recurring:bank:out:tax-office:acc-rent').length;
    // February's paid on the 12th instead of the 28th: only April's is to come (weeks 15 February to 16 May 2027).
    const early = [...taxPayments(2024, '2026-12-31'), { id: 'bas-early', date: '2027-02-12', amount: '-11500', contactId: 'tax-office', accountId: 'acc-rent', reference: 'BAS' }];
    const p = projectForecast(prepareForecast(input({ asOf: '2027-02-15', bankTxns: early })), BASE, NOW);
    expect(taxWeeks(p)).toEqual([10]); // 28 April
    expect(taxItems(p)).toBe(1);
    // The accountant's fee with its order already raised for 1 February 2027: the order, not the order and the fee.
    const fee = (issue: string) => doc({ kind: 'AP', contactId: 'accountant', issueDate: issue, dueDate: addDays(issue, 30), status: 'PAID', paidDate: addDays(issue, 30), total: '3630', accountId: 'acc-rent' });
    const order = { id: 'po-fee', number: 'PO-1', reference: '', contactId: 'accountant', status: 'AUTHORISED', issueDate: '2027-01-02', deliveryDate: null, expectedArrivalDate: '2027-02-01', total: '3630' };
    const q = projectForecast(prepareForecast(input({ asOf: '2027-01-06', items: [fee('2025-02-01'), fee('2026-02-01')], purchaseOrders: [order] })), BASE, NOW);
    expect(q.totalOutflow).toBeMoney('3630');
    // Last February's payment in two parts, four days apart: one payment next February.
    // A telephone company's yearly bill does not silence its monthly direct debits.
    const telco = (issue: string) => doc({ kind: 'AP', contactId: 'telco', issueDate: issue, dueDate: addDays(issue, 14), status: 'PAID', paidDate: addDays(issue, 14), total: '1200', accountId: 'acc-rent' });
    const debits = Array.from({ length: 12 }, (_, i) => ({ id: `dd${i}`, date: `2026-${String(12 - i).padStart(2, '0')}-03`, amount: '-99', contactId: 'telco', accountId: 'acc-rent', reference: 'DD' }));
    const t = projectForecast(prepareForecast(input({ asOf: '2027-01-06', items: [telco('2025-02-01'), telco('2026-02-01')], bankTxns: debits })), BASE, NOW);
    expect(weekOf(t, 'recurring:bill:telco')).toEqual([6]); // issued 1 February 2027, paid after its 14 days: 15 February
    expect(weekOf(t, 'recurring:bank:out:telco:acc-rent')).toEqual([0, 4, 8, 12]); // 3 January's, not seen yet, today; 3 February, 3 March, 3 April
    const split = taxPayments(2024, '2026-12-31').flatMap((t) => (t.date === '2026-02-28' ? [{ ...t, id: 'a', date: '2026-02-26', amount: '-5000' }, { ...t, id: 'b', date: '2026-03-02', amount: '-5000' }] : [t]));
    const r = projectForecast(prepareForecast(input({ asOf: '2027-01-06', bankTxns: split })), BASE, NOW);
    expect(taxItems(r)).toBe(1);
  });

  it('Given the yearly pattern, Then a payment due a year to the day after the last is forecast today; a dense series that slowed down is not brought back at last year\'s rate', () => {
    const annual = [
      { id: 'y1', date: '2025-02-01', amount: '-2400', contactId: 'insurer', accountId: 'acc-rent', reference: null },
      { id: 'y2', date: '2026-02-01', amount: '-2400', contactId: 'insurer', accountId: 'acc-rent', reference: null },
    ];
    for (const asOf of ['2027-01-31', '2027-02-01']) {
      const p = projectForecast(prepareForecast(input({ asOf, bankTxns: annual })), BASE, NOW);
      expect(p.totalOutflow, asOf).toBeMoney('2400');
    }
    // Two days late, the first payment is more than the models' two years back (LOOKBACK): one payment is no pattern.
    expect(projectForecast(prepareForecast(input({ asOf: '2027-02-03', bankTxns: annual })), BASE, NOW).totalOutflow).toBeMoney('0');
    const weekly = Array.from({ length: 78 }, (_, i) => ({ id: `w${i}`, date: addDays('2025-01-01', 7 * i), amount: '-800', contactId: 'cleaner', accountId: 'acc-rent', reference: null }));
    const slowed = [...weekly, ...['2026-08-13', '2026-10-02', '2026-11-21'].map((date, i) => ({ id: `s${i}`, date, amount: '-800', contactId: 'cleaner', accountId: 'acc-rent', reference: null }))];
    const q = projectForecast(prepareForecast(input({ asOf: '2027-01-06', bankTxns: slowed })), BASE, NOW);
    expect(weekOf(q, 'recurring:bank:out:cleaner:acc-rent')).toEqual([]);
  });

  it('spec 2.3: irregular but frequent bank receipts (renewal model) are guaranteedInflow, never forecastInflow', () => {
    const gaps = [3, 5, 4, 3, 6, 4, 5, 3, 4, 5, 6, 3, 4, 5, 4, 3, 5, 4, 6, 3];
    let d = '2026-11-22';
    const bankTxns = gaps.map((g, i) => {
      d = addDays(d, -g);
      return { id: `m${i}`, date: d, amount: '300', contactId: 'market', accountId: null, reference: null };
    });
    const p = run(input({ bankTxns }));
    expect(dec(p.totalInflow).toNumber()).toBeGreaterThan(3000);
    for (const w of p.weeks) {
      expect(w.forecastInflow).toBeMoney('0');
      expect(w.guaranteedInflow).toBe(w.inflow);
    }
  });

  it('pipeline: DRAFT and SUBMITTED invoices count probability-weighted (0.5, 0.8) with probabilityWeighted true', () => {
    const draft = doc({ id: 'draft', status: 'DRAFT', issueDate: '2026-11-24', dueDate: '2026-12-08', total: '1000' });
    const sub = doc({ id: 'sub', status: 'SUBMITTED', issueDate: '2026-11-24', dueDate: '2026-12-15', total: '1000' });
    const p = run(input({ items: [draft, sub] }));
    const [wd] = weekOf(p, 'draft');
    const [ws] = weekOf(p, 'sub');
    expect(p.weeks[wd!]!.inflow).toBeMoney('500');
    expect(p.weeks[ws!]!.inflow).toBeMoney('800');
    expect(p.weeks[wd!]!.probabilityWeighted).toBe(true);
    expect(p.weeks[0]!.probabilityWeighted).toBe(false);
    expect(p.weeks[wd!]!.guaranteedInflow).toBeMoney('500');
  });

  it('spec 3: purchase orders matched to a bill are suppressed (REFERENCE, CONTACT_AMOUNT); unmatched AUTHORISED ones are outflows', () => {
    const bills = [
      doc({ id: 'b-ref', kind: 'AP', contactId: 's1', issueDate: '2026-11-20', dueDate: '2026-12-20', total: '999', reference: ' po-0001 ' }),
      doc({ id: 'b-amt', kind: 'AP', contactId: 's2', issueDate: '2026-11-22', dueDate: '2026-12-22', total: '1500.50' }),
    ];
    const po = (id: string, number: string, contactId: string, total: string, status = 'AUTHORISED') => ({
      id,
      number,
      reference: '',
      contactId,
      status,
      issueDate: '2026-11-15',
      deliveryDate: '2026-11-30',
      expectedArrivalDate: null,
      total,
    });
    const orders = [po('po1', 'PO-0001', 's1', '1000'), po('po2', 'PO-0002', 's2', '1500.5'), po('po3', 'PO-0003', 's3', '700'), po('po4', 'PO-0004', 's2', '1500.50')];
    const reasons = matchPurchaseOrders(orders, bills);
    expect(Object.fromEntries(reasons)).toEqual({ po1: 'REFERENCE', po2: 'CONTACT_AMOUNT', po3: null, po4: null });
    const p = run(input({ items: bills, purchaseOrders: orders }));
    expect(weekOf(p, 'po1')).toEqual([]);
    expect(weekOf(p, 'po2')).toEqual([]);
    // Unmatched: delivery 30 Nov + 30 days' default terms = 30 Dec (week 6).
    expect(weekOf(p, 'po3')).toEqual([5]);
    expect(weekOf(p, 'po4')).toEqual([5]);
  });

  it('schedules: a repeating bill places its next documents on their due dates and replaces the detected pattern of its supplier', () => {
    const rent = Array.from({ length: 12 }, (_, i) => {
      const issue = `2026-${String(11 - i).padStart(2, '0')}-01`.replace('-00-', '-12-');
      return doc({ kind: 'AP', contactId: 'landlord', issueDate: issue, dueDate: issue, status: 'PAID', paidDate: issue, total: '4200', accountId: 'acc-rent' });
    }).filter((d) => d.issueDate! <= AS_OF);
    const schedule = {
      id: 'rep-rent',
      kind: 'AP' as const,
      contactId: 'landlord',
      status: 'AUTHORISED',
      period: 1,
      unit: 'MONTHLY' as const,
      dueDate: 7,
      dueDateType: 'DAYSAFTERBILLDATE',
      startDate: '2025-01-01',
      endDate: '2027-01-31',
      nextScheduledDate: '2026-12-01',
      total: '4620',
      accountId: 'acc-rent',
      reference: 'Rent',
    };
    const p = run(input({ items: rent, schedules: [schedule] }));
    // 1 December and 1 January, due 7 days later (weeks 3 and 7); nothing after the end date; no detected rent besides.
    expect(weekOf(p, 'scheduled:rep-rent')).toEqual([2, 6]);
    expect(weekOf(p, 'recurring:bill:landlord')).toEqual([]);
    expect(p.weeks[2]!.outflow).toBeMoney('4620');
    expect(p.weeks[2]!.categories!.accounts['acc-rent']!.outflow).toBeMoney('4620');
    expect(dec(p.totalOutflow).eq('9240')).toBe(true);
    // A DRAFT schedule generates nothing: detection takes over again.
    const q = run(input({ items: rent, schedules: [{ ...schedule, status: 'DRAFT' }] }));
    expect(weekOf(q, 'scheduled:rep-rent')).toEqual([]);
    expect(weekOf(q, 'recurring:bill:landlord')).toEqual([1, 5, 10]);
    checkArithmetic(p);
  });

  it('schedules: a repeating sales invoice is collected after its due date by its customer\'s own delay, moved by the scenario\'s delay shift', () => {
    const history = paidHistory('club', 8, 14);
    const schedule = {
      id: 'rep-club',
      kind: 'AR' as const,
      contactId: 'club',
      status: 'AUTHORISED',
      period: 1,
      unit: 'MONTHLY' as const,
      dueDate: 0,
      dueDateType: 'DAYSAFTERINVOICEDATE',
      startDate: '2026-01-26',
      endDate: null,
      nextScheduledDate: '2026-11-26',
      total: '1000',
      accountId: 'acc-sales',
      reference: null,
    };
    const p = run(input({ items: history, schedules: [schedule] }));
    // Invoiced 26 Nov, 26 Dec, 26 Jan, 26 Feb, each paid 14 days after: 10 Dec (week 3), 9 Jan (week 7), 9 Feb (week 12).
    expect(weekOf(p, 'scheduled:rep-club')).toEqual([2, 6, 11]);
    expect(weekOf(p, 'predicted:club')).toEqual([]);
    expect(p.weeks[2]!.guaranteedInflow).toBeMoney('1000');
    const later = run(input({ items: history, schedules: [schedule] }), { id: 'c', name: 'Later', kind: 'CUSTOM', adjustments: { paymentDelayShiftDays: 7 } });
    // 17 Dec (week 4), 16 Jan (week 8), 16 Feb (week 13).
    expect(weekOf(later, 'scheduled:rep-club')).toEqual([3, 7, 12]);
  });

  it("credits: a customer's unallocated credit (credit notes, overpayments, prepayments) is netted off its open invoices, oldest first", () => {
    const history = Array.from({ length: 10 }, (_, i) => paidHistory(`h${i}`, 3, 0)).flat();
    const older = doc({ id: 'older', contactId: 'acme', issueDate: addDays(AS_OF, -10), dueDate: addDays(AS_OF, 4), total: '1000' });
    const newer = doc({ id: 'newer', contactId: 'acme', issueDate: addDays(AS_OF, -3), dueDate: addDays(AS_OF, 11), total: '1000' });
    const bill = doc({ id: 'bill', kind: 'AP', contactId: 'acme', issueDate: addDays(AS_OF, -3), dueDate: addDays(AS_OF, 11), total: '500' });
    const expected = (i: ForecastInput) => {
      const placed = new Map<string, number>();
      forEachOpenReceivable(prepareForecast(i), 0, (it, _k, a) => placed.set(it.src.id, (placed.get(it.src.id) ?? 0) + a.cents));
      return placed;
    };
    const without = expected(input({ items: [...history, older, newer, bill] }));
    const credits = [
      { contactId: 'acme', kind: 'AR' as const, amount: '1200' },
      { contactId: 'acme', kind: 'AP' as const, amount: '200' },
    ];
    const withCredit = expected(input({ items: [...history, older, newer, bill], credits }));
    // 1,200 of credit: all of the older invoice, 200 of the newer; what is expected of the newer is 800 / 1,000 of before.
    expect(without.get('older')).toBeGreaterThan(90_000);
    expect(withCredit.get('older')).toBeUndefined();
    expect(Math.abs(withCredit.get('newer')! - Math.round(without.get('newer')! * 0.8))).toBeLessThanOrEqual(1);
    const p = run(input({ items: [...history, older, newer, bill], credits }));
    expect(dec(p.totalOutflow).eq('300')).toBe(true);
    // Credit beyond what is open waits for the next documents: nothing negative is projected.
    const all = run(input({ items: [...history, older, newer, bill], credits: [{ contactId: 'acme', kind: 'AR', amount: '5000' }] }));
    for (const w of all.weeks) expect(dec(w.inflow).gte(0)).toBe(true);
    expect(expected(input({ items: [...history, older, newer], credits: [{ contactId: 'acme', kind: 'AR', amount: '5000' }] })).size).toBe(0);
    checkArithmetic(p);
  });

  it('predicted repeat purchases (hazard model) are forecastInflow; guaranteedInflow is the rest', () => {
    // A weekly customer paying on the day of its orders.
    const weekly = Array.from({ length: 30 }, (_, i) => {
      const d = addDays(AS_OF, -7 * (i + 1));
      return doc({ contactId: 'weekly', issueDate: d, dueDate: d, status: 'PAID', paidDate: d, total: '700', accountId: 'acc-sales' });
    });
    const p = run(input({ items: weekly }));
    const predicted = p.weeks.filter((w) => w.itemIds.includes('predicted:weekly'));
    expect(predicted.length).toBeGreaterThanOrEqual(12);
    for (const w of p.weeks.slice(1, 10)) {
      expect(dec(w.forecastInflow!).toNumber()).toBeGreaterThan(500);
      expect(dec(w.forecastInflow!).toNumber()).toBeLessThan(900);
      expect(w.guaranteedInflow).toBeMoney('0');
    }
    expect(p.weeks[3]!.categories!.accounts['acc-sales']!.name).toBe('Sales');
    // A customer silent for far longer than its usual gap is not predicted to come back soon.
    const gone = weekly.map((d) => ({ ...d, issueDate: addDays(d.issueDate!, -300), dueDate: addDays(d.dueDate!, -300), paidDate: addDays(d.paidDate!, -300) }));
    const q = run(input({ items: gone }));
    expect(dec(q.totalInflow).toNumber()).toBeLessThan(100);
  });

  it('seasonality from the first year, as far as the ledger shows one: a December that sold 60% more lifts this December; order noise alone lifts nothing', () => {
    // Ten weekly customers for 56 weeks (one December seen), paying on the day of their orders; `noise` spreads each
    // order's value (a fixed pseudo-random draw per order, the same in every ledger below).
    let seed = 7;
    const draw = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
    const spread = Array.from({ length: 560 }, draw);
    const ledger = (december: number, noise: number) =>
      Array.from({ length: 10 }, (_, c) =>
        Array.from({ length: 56 }, (_, i) => {
          const d = addDays(AS_OF, -7 * (i + 1) - c);
          const total = (1000 * (d.slice(5, 7) === '12' ? december : 1) * (1 + noise * spread[c * 56 + i]!)).toFixed(2);
          return doc({ contactId: `w${c}`, issueDate: d, dueDate: d, status: 'PAID', paidDate: d, total, accountId: 'acc-sales' });
        }),
      ).flat();
    const weekly = (p: ForecastPayload, ks: number[]) => ks.reduce((a, k) => a + dec(p.weeks[k]!.forecastInflow!).toNumber(), 0) / ks.length;
    const DECEMBER = [2, 3, 4]; // 7-27 December 2026
    const FEBRUARY = [10, 11]; // 1-14 February 2027
    const lift = (december: number, noise: number) => {
      const p = run(input({ items: ledger(december, noise) }));
      return weekly(p, DECEMBER) / weekly(p, FEBRUARY);
    };
    // No noise: the season is all there is, taken whole.
    expect(lift(1.6, 0)).toBeCloseTo(1.6, 1);
    expect(Math.abs(lift(1, 0) - 1)).toBeLessThan(0.02);
    // Orders spread +-40%: the season still shows through (a month's mean of 40 orders is far surer than one order);
    // the same noise with no season is not taken for one.
    expect(lift(1.6, 0.4)).toBeGreaterThan(1.4);
    expect(Math.abs(lift(1, 0.4) - 1)).toBeLessThan(0.05);
  });

  it('seasonality is learnt from the ledger itself (empirical Bayes): noise in few orders is not taken for a season; a real one is', () => {
    let seed = 11;
    const draw = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
    const asOf = toDay('2026-11-25');
    // Customers ordering every `every` days for a year, each order's value 1000 x season x (1 +- noise).
    const book = (customers: number, every: number, season: (month: number) => number, noise: number) => {
      const orders = new Map<string, { day: number; value: number }[]>();
      for (let c = 0; c < customers; c++) {
        const list: { day: number; value: number }[] = [];
        for (let day = asOf - 365 + c; day < asOf; day += every) list.push({ day, value: 1000 * season(new Date(day * 86_400_000).getUTCMonth()) * (1 + noise * draw()) });
        orders.set(`c${c}`, list);
      }
      return orders;
    };
    const rawMonthMeans = (orders: Map<string, { day: number; value: number }[]>) => {
      const sum = Array<number>(12).fill(0);
      const n = Array<number>(12).fill(0);
      for (const list of orders.values()) {
        const mean = list.reduce((a, o) => a + o.value, 0) / list.length;
        for (const o of list) {
          const m = new Date(o.day * 86_400_000).getUTCMonth();
          sum[m]! += o.value / mean;
          n[m]! += 1;
        }
      }
      return sum.map((x, m) => x / n[m]!);
    };
    // Given two fortnightly customers and orders spread +-80% with no season, the months' means stray by chance...
    const noisy = book(2, 14, () => 1, 0.8);
    expect(Math.max(...rawMonthMeans(noisy).map((x) => Math.abs(x - 1)))).toBeGreaterThan(0.15);
    // ...then the seasons learnt stay near 1: the months vary no more than their noise says they would.
    expect(Math.max(...orderSeasonality(noisy, asOf).map((x) => Math.abs(x - 1)))).toBeLessThan(0.06);
    // Given forty weekly customers with a December 50% up and the same noise, the season is learnt nearly whole.
    const december = (m: number) => (m === 11 ? 1.5 : 1);
    const seasonal = orderSeasonality(book(40, 7, december, 0.8), asOf);
    expect(seasonal[11]! / seasonal[1]!).toBeGreaterThan(1.4);
    expect(seasonal[11]! / seasonal[1]!).toBeLessThan(1.6);
  });

  it('scenarios: BEST >= BASE >= WORST; CUSTOM factors, delay shift and excluded items as documented', () => {
    const items = [
      ...paidHistory('c1', 6, 3),
      doc({ id: 'open1', contactId: 'c1', issueDate: '2026-11-10', dueDate: '2026-12-01', total: '5000' }),
      doc({ id: 'bill1', kind: 'AP', contactId: 's1', issueDate: '2026-11-10', dueDate: '2026-12-10', total: '2000' }),
    ];
    const prepared = prepareForecast(input({ items }));
    const sc = (kind: 'BASE' | 'BEST' | 'WORST') => projectForecast(prepared, { id: kind, name: kind, kind, adjustments: DEFAULT_SCENARIO_ADJUSTMENTS[kind] }, NOW);
    const [base, best, worst] = [sc('BASE'), sc('BEST'), sc('WORST')];
    expect(dec(best.endingCash).gt(base.endingCash)).toBe(true);
    expect(dec(base.endingCash).gt(worst.endingCash)).toBe(true);
    const custom = (adjustments: Scenario['adjustments']) => projectForecast(prepared, { id: 'c', name: 'c', kind: 'CUSTOM', adjustments }, NOW);
    expect(custom({ inflowFactor: '0' }).totalInflow).toBeMoney('0');
    expect(dec(custom({ outflowFactor: '2' }).totalOutflow).eq(dec(base.totalOutflow).times(2))).toBe(true);
    expect(dec(custom({ excludedItemIds: ['bill1'] }).totalOutflow).eq(dec(base.totalOutflow).minus(2000))).toBe(true);
    const later = custom({ paymentDelayShiftDays: 21 });
    expect(Math.min(...weekOf(later, 'open1'))).toBeGreaterThan(Math.min(...weekOf(base, 'open1')));
    expect(custom({ manualItems: [{ id: 'grant', date: '2026-12-02', amount: '250.25' }] }).weeks[1]!.itemIds).toContain('grant');
  });

  it('opening cash (spec 2.2): ledgerReconciledTotal; unreconciled adjustment; statement balance; the manual override', () => {
    const accounts = [
      { id: 'a', name: 'Cheque', currency: 'AUD', reconciledBalance: '1000.10', statementBalance: null, unreconciledNet: '-200.05' },
      { id: 'b', name: 'Savings', currency: 'AUD', reconciledBalance: '500', statementBalance: '520', unreconciledNet: '20' },
    ];
    const ledger = cashPosition({ asOf: AS_OF, currency: 'AUD', bankAccounts: accounts, override: null });
    expect(ledger).toMatchObject({
      source: 'ledger_reconciled',
      // spec 2.2: the RECONCILED accounts only (b is read from its statement)
      ledgerReconciledTotal: '1000.1',
      effectiveStartingCash: '1320.05',
      startingCash: '1320.05',
      adjustment: '319.95',
    });
    expect(ledger.accounts.map((a) => a.balanceSource)).toEqual(['RECONCILED', 'STATEMENT']);
    const manual = cashPosition({ asOf: AS_OF, currency: 'AUD', bankAccounts: accounts, override: { amount: '9000', setAt: '2026-11-20T00:00:00Z', movementsSince: '-123.45' } });
    expect(manual).toMatchObject({ source: 'manual', ledgerReconciledTotal: '1000.1', effectiveStartingCash: '8876.55', startingCash: '8876.55', adjustment: '-123.45' });
    const p = run(input({ bankAccounts: accounts }));
    expect(p.startingCash).toBeMoney('1320.05');
    expect(p.cashPosition.effectiveStartingCash).toBe('1320.05');
  });

  it('deterministic: the same input gives the same payload, whatever the order of the ledger rows', () => {
    const items = [...paidHistory('c1', 10, 5), ...paidHistory('c2', 10, 20), doc({ contactId: 'c2', issueDate: '2026-11-01' }), doc({ kind: 'AP', contactId: 's', issueDate: '2026-11-02' })];
    const a = runForecast(input({ items }), [BASE], NOW).payloads[0]!;
    const b = runForecast(input({ items: [...items].reverse() }), [BASE], NOW).payloads[0]!;
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('spec 9: an engineVersion 1 snapshot (no split) reads with forecastInflow 0 and no guaranteedInflow', () => {
    const current = run(input({ items: [doc({ issueDate: '2026-11-20' })] }));
    const v1Raw = { ...current, engineVersion: 1, weeks: current.weeks.map(({ guaranteedInflow: _g, forecastInflow: _f, ...w }) => w) };
    const read = readPayload(1, v1Raw, NOW);
    expect(read.weeks.every((w) => w.forecastInflow === '0' && w.guaranteedInflow === undefined)).toBe(true);
    // A snapshot of the current engine reads as stored.
    expect(readPayload(ENGINE_VERSION, current, NOW)).toEqual(current);
  });
});

describe("the run-rate of the bills no series models (session 21: paid on each supplier's terms)", () => {
  // A wholesaler billing monthly on 30 days' terms for two years (its own series), paid on time: the business's usual terms are 30.
  const wholesaler = Array.from({ length: 24 }, (_, i) => {
    const issue = addDays(AS_OF, -20 - 30 * i);
    const paid = addDays(issue, 30) < AS_OF;
    return doc({ kind: 'AP', contactId: 'wholesaler', issueDate: issue, dueDate: addDays(issue, 30), status: paid ? 'PAID' : 'AUTHORISED', paidDate: paid ? addDays(issue, 30) : null, total: '5000' });
  });
  // Eight small suppliers, one or two bills each in the last half year, on `terms(i)` days, paid on time: no series of their own.
  const irregular = (terms: (i: number) => number) =>
    Array.from({ length: 8 }, (_, i) =>
      [0, 1].slice(0, 1 + (i % 2)).map((j) => {
        const issue = addDays(AS_OF, -170 + 20 * i + 9 * j);
        return doc({ kind: 'AP', contactId: `small-${i}`, issueDate: issue, dueDate: addDays(issue, terms(i)), status: 'PAID', paidDate: addDays(issue, terms(i)), total: '400' });
      }),
    ).flat();
  const otherBills = (items: ReturnType<typeof doc>[]) => prepareForecast(input({ items })).daily.find((d) => d.id === 'predicted:other-bills')!;

  it('Given small suppliers on 7 days while the usual terms are 30, Then their bills to come are paid 7 days after them', () => {
    const dp = otherBills([...wholesaler, ...irregular(() => 7)]);
    expect(dp.lag).toBe(7);
    expect(dp.lags).toBeUndefined();
    expect(dp.why.reason).toContain("spread evenly, paid 7 days later (each supplier's terms and the business's bill delay)");
  });

  it('Given small suppliers on 7 and on 21 days, Then each bill counts at its own supplier\'s terms', () => {
    // Suppliers 0-3 on 7 days (6 bills), 4-7 on 21 days (6 bills).
    const dp = otherBills([...wholesaler, ...irregular((i) => (i < 4 ? 7 : 21))]);
    expect(dp.lags).toEqual([7, 7, 21, 21, 21]);
    expect(dp.why.reason).toContain('paid 7-21 days later');
  });

  it('Given two large bills on 60 days among many small ones on 7, Then each bill weighs by its money', () => {
    const big = ['big-1', 'big-2'].map((contactId, i) => {
      const issue = addDays(AS_OF, -100 + 30 * i);
      return doc({ kind: 'AP', contactId, issueDate: issue, dueDate: addDays(issue, 60), status: 'PAID', paidDate: addDays(issue, 60), total: '3000' });
    });
    // 12 bills of 400 on 7 days (4,800) and 6,000 on 60 days: by count the 90th percentile alone would be 60 days.
    const dp = otherBills([...wholesaler, ...irregular(() => 7), ...big]);
    expect(dp.lags).toEqual([7, 7, 60, 60, 60]);
  });
});

describe('a scenario paid sooner (session 21 review)', () => {
  it('Given orders paid within days of being placed, When the scenario pays 3 days sooner, Then no money is lost before the order is placed', () => {
    const p = prepareForecast(input());
    const H = p.end - p.asOf;
    const dp = { id: 'x', inflow: true, base: p.asOf, values: new Float64Array(H + 1).fill(1), lag: 0, lags: [0, 0, 0, 2, 5], customer: true, accountId: null, unit: 1, why: { kind: 'predicted' as const, documentId: null, contactId: null, reasonCode: 'new_customers' as const, reason: '' } };
    dp.values[0] = 0;
    const sum = (shift: number) => Array.from(dailyPerWeek(p, dp, shift)).reduce((a, b) => a + b, 0);
    // Paid sooner, at least as much falls within the 13 weeks (only the last days' orders paid 2 days on fall beyond them).
    expect(sum(-3)).toBeGreaterThanOrEqual(sum(0));
    expect(sum(-3)).toBeCloseTo(H - 0.4, 6);
  });
});

describe("a customer's payment delays and its peers (docs/forecast.md#when-customers-pay)", () => {
  /** 12 paid invoices of a customer, a month apart, paid `delays[i]` days after their due dates (14 days' terms). */
  const paidWith = (contactId: string, delays: readonly number[]) =>
    delays.map((delay, i) => {
      const issue = addDays(AS_OF, -30 * (i + 1) - 80);
      const due = addDays(issue, 14);
      return doc({ contactId, issueDate: issue, dueDate: due, status: 'PAID', paidDate: addDays(due, delay), total: '500' });
    });
  const PROMPT = [-2, 0, 1, 2, 4, 6, 8, 1, 0, 3, 5, 7];
  const LATE = [30, 35, 40, 45, 50, 38, 42, 33, 47, 36, 44, 39];
  // Six customers who pay within about a week, six who pay 30-50 days late, and one very regular prompt payer whose
  // invoice is 5 days overdue today: later than any of its own twelve payments.
  const items = [
    ...Array.from({ length: 6 }, (_, c) => paidWith(`prompt-${c}`, PROMPT.map((d) => d + (c % 2)))).flat(),
    ...Array.from({ length: 6 }, (_, c) => paidWith(`late-${c}`, LATE.map((d) => d + c))).flat(),
    ...paidWith('regular', [0, 1, 1, 2, 0, 1, 2, 1, 0, 1, 2, 1]),
    doc({ id: 'overdue', contactId: 'regular', issueDate: addDays(AS_OF, -19), dueDate: addDays(AS_OF, -5), total: '1000' }),
  ];

  it("its prior is the customers that pay like it: a prompt payer's overdue invoice is expected this week, not among the late payers' weeks", () => {
    const p = prepareForecast(input({ items }));
    const due = toDay(addDays(AS_OF, -5));
    const own = p.customerDelays.get('regular')!;
    const weekOne = (dist: ReturnType<typeof customerDist>) => paymentProbabilities(dist, due, p.asOf, 0, p.starts, p.ends)[0]!;
    // Mixed with the whole organisation's habit, what is left of its distribution 5 days after the due date is mostly the late payers'.
    expect(weekOne(customerDelayDist(p.orgDelay, own))).toBeLessThan(0.5);
    // Mixed with its peers' (the prompt payers), it is paid in the days left of this week (5 to 9 days late) most likely.
    expect(weekOne(customerDist(p, 'regular'))).toBeGreaterThan(0.8);
    // The point forecast places it so too.
    let week1 = 0;
    forEachOpenReceivable(p, 0, (it, k, a) => {
      if (it.src.id === 'overdue' && k === 0) week1 += Number(toDec(a));
    });
    expect(week1).toBeGreaterThan(800);
  });

  it("a late payer's prior is the late payers'; a customer's first payments already find its peers; with none, or no peers, the organisation's", () => {
    const p = prepareForecast(input({ items }));
    const priors = customerPriors(p.orgDelay, p.customerDelays);
    const prior = (own: readonly number[]) => priors.forCustomer(own).prior;
    const late = prior(p.customerDelays.get('late-0')!);
    const median = (d: { cdf: Float64Array }) => d.cdf.findIndex((c) => c >= 0.5 * d.cdf[d.cdf.length - 1]!) + DMIN;
    expect(median(late)).toBeGreaterThanOrEqual(35);
    expect(median(prior(p.customerDelays.get('prompt-0')!))).toBeLessThanOrEqual(5);
    // Two payments, or one, of a new customer: the prompt payers' or the late payers' habit, not everyone's.
    expect(median(prior([3, 4]))).toBeLessThanOrEqual(5);
    expect(median(prior([2]))).toBeLessThanOrEqual(5);
    expect(median(prior([40]))).toBeGreaterThanOrEqual(35);
    // No payment, or one nobody's habit is near: the organisation's.
    expect(prior([])).toBe(p.orgDelay);
    expect(prior([150])).toBe(p.orgDelay);
  });

  it("Given a customer with one or two payments (not in its peers' pool, which holds customers of three or more), When its prior is built, Then nothing of its own is taken out of the pool: the prior is the peers' as they are, and adds up", () => {
    const p = prepareForecast(input({ items }));
    const priors = customerPriors(p.orgDelay, p.customerDelays);
    // The prompt payers' pool, whose medians lie within [-2, 6] (a window of [0] or [3, 4] alike): the prior of a
    // customer of three payments there takes its own out of the pool; one of one or two payments has none to take out.
    for (const own of [[0], [3, 4], [2, 1]]) {
      const { prior } = priors.forCustomer(own);
      const mass = prior.cdf[prior.cdf.length - 1]! + prior.never;
      expect(mass).toBeCloseTo(1, 12);
      for (const x of prior.pmf) expect(x).toBeGreaterThanOrEqual(0);
    }
    // [0] and [0, 0] read the same peers (a window of [-2, 2]) and neither is in the pool: the same prior.
    const one = priors.forCustomer([0]).prior;
    const two = priors.forCustomer([0, 0]).prior;
    expect(Array.from(two.pmf)).toEqual(Array.from(one.pmf));
  });

  it("Given a new customer that paid its one invoice on time, When its next invoice is 5 days overdue, Then it is expected this week as the prompt payers pay, not the late payers' weeks", () => {
    const p = prepareForecast(input({ items: [...items, ...paidWith('new', [1]), doc({ id: 'new-overdue', contactId: 'new', issueDate: addDays(AS_OF, -19), dueDate: addDays(AS_OF, -5), total: '1000' })] }));
    const due = toDay(addDays(AS_OF, -5));
    const weekOne = paymentProbabilities(customerDist(p, 'new'), due, p.asOf, 0, p.starts, p.ends)[0]!;
    // With the organisation's prior (half its customers pay 30-50 days late), what is left 5 days after the due date is
    // mostly the late payers'.
    expect(paymentProbabilities(customerDelayDist(p.orgDelay, [1]), due, p.asOf, 0, p.starts, p.ends)[0]!).toBeLessThan(0.5);
    expect(weekOne).toBeGreaterThan(0.7);
  });
});

describe("how much a customer's prior weighs, learnt from the organisation's customers (docs/forecast.md#when-customers-pay)", () => {
  /** Each customer's last 12 delays, as the history keeps them (oldest first). */
  const books = (lists: readonly (readonly number[])[]) => new Map(lists.map((l, c) => [`c${c}`, l] as const));
  const orgOf = (lists: readonly (readonly number[])[]) => prepareForecast(input({ items: lists.flatMap((l, c) => paidHistoryOf(`c${c}`, l)) })).orgDelay;
  /** Paid invoices of a customer, a month apart, paid `delays[i]` days after their due dates. */
  const paidHistoryOf = (contactId: string, delays: readonly number[]) =>
    delays.map((delay, i) => {
      const due = addDays(AS_OF, -30 * (delays.length - i) - 60);
      return doc({ contactId, issueDate: addDays(due, -14), dueDate: due, status: 'PAID', paidDate: addDays(due, delay), total: '500' });
    });
  const alike = (seed: number, customers: number) => {
    const rng = new Rng(seed);
    return Array.from({ length: customers }, (_, c) =>
      Array.from({ length: 12 }, () => (c % 5 === 0 ? Math.max(12, Math.round(rng.normal(32, 12))) : Math.max(-5, Math.min(9, Math.round(rng.normal(1, 3)))))),
    );
  };

  it('Given customers that pay alike (each prompt payer draws from one habit, each late payer from another), When the weight is learnt, Then their peers weigh more than their own dozen payments', () => {
    const lists = alike(7, 40);
    const { fits } = customerPriors(orgOf(lists), books(lists));
    // Every payment after a customer's first is foretold, nearly all with its peers' prior (from its first payment on).
    expect(fits.org.predictions + fits.peers.predictions).toBe(40 * 11);
    expect(fits.peers.predictions).toBeGreaterThan(40 * 10);
    expect(fits.peers.weight()).toBeGreaterThanOrEqual(16);
    expect(fits.org.weight()).toBeLessThan(fits.peers.weight());
  });

  it('Given customers each with a habit of its own (each pays on its own day, 0 to 39 days late, give or take a day), When the weight is learnt, Then its own payments weigh more than its peers\'', () => {
    const rng = new Rng(11);
    const lists = Array.from({ length: 40 }, (_, c) => Array.from({ length: 12 }, () => c + rng.int(-1, 1)));
    const priors = customerPriors(orgOf(lists), books(lists));
    expect(priors.fits.peers.weight()).toBeLessThanOrEqual(1);
    // A customer's distribution is then mostly its own: its median is its own day.
    const { prior, share } = priors.forCustomer(lists[20]!);
    const dist = customerDelayDist(prior, lists[20]!, share);
    expect(dist.cdf[19 - DMIN]!).toBeLessThan(0.5 * (1 - dist.never));
    expect(dist.cdf[21 - DMIN]!).toBeGreaterThan(0.5 * (1 - dist.never));
  });

  it('Given too few payments to judge by (14 payments, or two customers), When the weight is learnt, Then it is the default', () => {
    const lists = [
      [0, 1, 2, 1, 0, 1],
      [30, 32, 35, 31, 33, 34],
      [2, 2, 3, 1, 0],
    ];
    const { fits } = customerPriors(orgOf(lists), books(lists));
    expect(fits.org.predictions + fits.peers.predictions).toBe(5 + 5 + 4);
    expect(fits.peers.weight()).toBeCloseTo(PRIOR_WEIGHT, 9);
    // 2 customers x 11 payments: enough payments, one customer short, all foretold from the organisation's (no peers).
    const apart = Array.from({ length: 2 }, (_, c) => Array.from({ length: 12 }, () => 10 * c));
    const few = customerPriors(orgOf(apart), books(apart)).fits.org;
    expect(few.predictions).toBe(22);
    expect(few.posterior).toBeNull();
    expect(few.weight()).toBeCloseTo(PRIOR_WEIGHT, 9);
  });

  it("Given customers each paying on a day of its own, 10 days apart, When the weight is judged, Then a customer's own payments are not among those it is judged against", () => {
    // No customer has a peer: judged against a prior holding its own payments, the prior would foretell them well.
    const lists = Array.from({ length: 12 }, (_, c) => Array.from({ length: 12 }, () => 10 * c));
    const org = orgOf(lists);
    const priors = customerPriors(org, books(lists));
    expect(priors.forCustomer(lists[3]!).prior).toBe(org);
    expect(priors.fits.org.predictions).toBe(12 * 11);
    // The organisation's distribution without the customer has nothing on its day: its own payments decide, the least weight.
    expect(priors.fits.org.weight()).toBeCloseTo(0.5, 2);
  });

  it('Given more customers than are judged (4,100), When the weight is learnt, Then an even sample of them is judged, and the weight is as high', () => {
    const lists = alike(3, 4100);
    const counts = new Map<number, number>();
    for (const l of lists) for (const d of l) counts.set(d, (counts.get(d) ?? 0) + 1);
    const { fits } = customerPriors(orgDelayDist(counts, []), books(lists));
    // Every third customer: 1,367 of them, each with 11 payments foretold.
    expect(fits.org.predictions + fits.peers.predictions).toBe(1367 * 11);
    expect(fits.peers.weight()).toBeGreaterThanOrEqual(16);
  });

  it('Given customers whose delays lie beyond the grid (a year and more late), When the weight is judged, Then those payments are not judged', () => {
    const lists = alike(5, 30);
    const withFar = [...lists, ...Array.from({ length: 5 }, () => Array.from({ length: 12 }, (_, i) => 400 + 50 * i))];
    const a = customerPriors(orgOf(lists), books(lists)).fits;
    const b = customerPriors(orgOf(withFar), books(withFar)).fits;
    expect(b.org.predictions + b.peers.predictions).toBe(a.org.predictions + a.peers.predictions);
  });
});
