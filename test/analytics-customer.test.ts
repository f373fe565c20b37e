/**
 * Per-customer analytics (src/domain/analytics/customer.ts), spec 2.5
 * ContactDrill and 3 ("A customer's churn-retention factor for projectedLtv
 * is Active 1.0, At-risk 0.5, Churned 0.0"), spec 8 (expectedLifetimeYears
 * clamped to [1,5]). Each block names the field it proves.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addDays } from '../src/domain/calendar.js';
import { D } from '../src/domain/money.js';
import {
  abcClasses,
  availableCredit,
  CADENCE_BANDS,
  churnState,
  detectCadence,
  expectedGapDays,
  expectedLifetimeYears,
  grossMarginPercent,
  historicalLtv,
  type MarginMonth,
  paymentDelayMedianDays,
  projectedLtv,
  purchaseDays,
  revenueAllTime,
  revenueTrailing12m,
  type SalesInvoice,
} from '../src/domain/analytics/customer.js';

const TODAY = '2026-11-23';

function inv(v: Partial<SalesInvoice> & { date: string }): SalesInvoice {
  const paid = (v.ledgerStatus ?? 'PAID') === 'PAID';
  return {
    contactId: 'c1',
    ledgerStatus: 'PAID',
    status: paid ? 'ACTUAL' : 'FORECAST',
    dueDate: v.date,
    paidDate: paid ? v.date : null,
    total: '100',
    subTotal: '90.91',
    ...v,
  };
}

/** Purchase days every `gap` days, `n` of them, ending at `last`. */
const periodic = (last: string, gap: number, n: number) => Array.from({ length: n }, (_, k) => addDays(last, -gap * (n - 1 - k)));

const amountArb = fc.integer({ min: 0, max: 10_000_000 }).map((c) => new D(c).div(100).toFixed());
const dayArb = fc.integer({ min: -2000, max: 0 }).map((k) => addDays(TODAY, k));

describe('revenueAllTime and revenueTrailing12m (spec 2.5: sums of ACTUAL inflows; trailing = last 365 days)', () => {
  it('Given paid, open and voided invoices, When summed, Then only ACTUAL (paid) totals count, and the trailing sum keeps the last 365 days by payment date', () => {
    const invoices = [
      inv({ date: '2026-11-01', total: '100.50' }),
      inv({ date: '2025-11-23', paidDate: '2025-11-24', total: '200' }), // paid 364 days ago: in
      inv({ date: '2025-11-20', paidDate: '2025-11-23', total: '300' }), // paid exactly 365 days ago: out
      inv({ date: '2026-10-01', ledgerStatus: 'AUTHORISED', total: '999' }),
      inv({ date: '2026-10-01', ledgerStatus: 'VOIDED', status: 'CANCELLED', total: '999' }),
      inv({ date: '2020-01-01', total: '0.25' }),
    ];
    expect(revenueAllTime(invoices)).toBe('600.75');
    expect(revenueTrailing12m(invoices, TODAY)).toBe('300.5');
    expect(revenueAllTime([])).toBe('0');
    expect(revenueTrailing12m([], TODAY)).toBe('0');
  });

  it('Given an invoice whose amount cannot be converted to the base currency (null), Then it adds nothing', () => {
    expect(revenueAllTime([inv({ date: '2026-01-01', total: null }), inv({ date: '2026-01-02', total: '5' })])).toBe('5');
  });

  it('property: the sums are exact, order-independent, and the trailing sum never exceeds the all-time sum (non-negative amounts)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ date: dayArb, total: amountArb, paid: fc.boolean() }), { maxLength: 40 }), (rows) => {
        const invoices = rows.map((r) => inv({ date: r.date, total: r.total, ledgerStatus: r.paid ? 'PAID' : 'AUTHORISED' }));
        const expected = rows.filter((r) => r.paid).reduce((s, r) => s.plus(r.total), new D(0));
        expect(new D(revenueAllTime(invoices)).eq(expected)).toBe(true);
        expect(revenueAllTime([...invoices].reverse())).toBe(revenueAllTime(invoices));
        expect(new D(revenueTrailing12m(invoices, TODAY)).lte(revenueAllTime(invoices))).toBe(true);
      }),
    );
  });
});

describe('paymentDelayMedianDays (spec 2.5: median days late on paid invoices, a decimal string)', () => {
  it('Given paid invoices 2, 10 and 5 days late and one 3 days early, When the median is taken, Then it is 3.5 (the mean of the middle two)', () => {
    const invoices = [
      inv({ date: '2026-01-01', dueDate: '2026-01-10', paidDate: '2026-01-12' }),
      inv({ date: '2026-02-01', dueDate: '2026-02-10', paidDate: '2026-02-20' }),
      inv({ date: '2026-03-01', dueDate: '2026-03-10', paidDate: '2026-03-15' }),
      inv({ date: '2026-04-01', dueDate: '2026-04-10', paidDate: '2026-04-07' }),
      inv({ date: '2026-05-01', dueDate: '2026-05-10', ledgerStatus: 'AUTHORISED' }), // open: ignored
    ];
    expect(paymentDelayMedianDays(invoices)).toBe('3.5');
    expect(paymentDelayMedianDays(invoices.slice(0, 3))).toBe('5');
  });

  it('Given no paid invoice with a due date, Then it is null', () => {
    expect(paymentDelayMedianDays([])).toBeNull();
    expect(paymentDelayMedianDays([inv({ date: '2026-01-01', dueDate: null })])).toBeNull();
  });

  it('property: the median lies between the smallest and largest delay, and paying every invoice k days later moves it by exactly k', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -30, max: 200 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: -10, max: 50 }), (delays, k) => {
        const mk = (shift: number) => delays.map((d, i) => inv({ date: addDays('2025-01-01', i), dueDate: addDays('2025-02-01', i), paidDate: addDays('2025-02-01', i + d + shift) }));
        const m = Number(paymentDelayMedianDays(mk(0)));
        expect(m).toBeGreaterThanOrEqual(Math.min(...delays));
        expect(m).toBeLessThanOrEqual(Math.max(...delays));
        expect(Number(paymentDelayMedianDays(mk(k)))).toBe(m + k);
        expect(paymentDelayMedianDays(mk(0))).toMatch(/^-?\d+(\.5)?$/);
      }),
    );
  });
});

describe('cadence and cadenceConfidence (spec 3: WEEKLY, FORTNIGHTLY, MONTHLY, QUARTERLY, ANNUAL, NONE)', () => {
  it('Given purchases exactly every 7, 14, 30, 91 and 365 days, Then the cadences are weekly to annual with confidence from the evidence alone', () => {
    expect(detectCadence(periodic(TODAY, 7, 27))).toMatchObject({ cadence: 'WEEKLY', medianGapDays: 7, confidence: 93 }); // 26 gaps: 26/28
    expect(detectCadence(periodic(TODAY, 14, 7))).toMatchObject({ cadence: 'FORTNIGHTLY', confidence: 75 }); // 6 gaps: 6/8
    expect(detectCadence(periodic(TODAY, 30, 13))).toMatchObject({ cadence: 'MONTHLY', confidence: 86 });
    expect(detectCadence(periodic(TODAY, 91, 5))).toMatchObject({ cadence: 'QUARTERLY', confidence: 67 });
    expect(detectCadence(periodic(TODAY, 365, 3))).toMatchObject({ cadence: 'ANNUAL', confidence: 50 });
  });

  it('Given fewer than three purchase days, or several invoices on the same two days, Then the cadence is NONE with confidence 0', () => {
    expect(detectCadence([])).toEqual({ cadence: 'NONE', confidence: 0, medianGapDays: null, gaps: 0 });
    expect(detectCadence(['2026-01-01'])).toMatchObject({ cadence: 'NONE', confidence: 0 });
    expect(detectCadence(['2026-01-01', '2026-01-01', '2026-01-08', '2026-01-08'])).toMatchObject({ cadence: 'NONE', confidence: 0, medianGapDays: 7 });
  });

  it('Given a weekly buyer with a 6-week holiday break and one extra top-up order, When detected, Then the outliers do not change the cadence', () => {
    const days = [...periodic('2026-06-01', 7, 12), ...periodic(TODAY, 7, 12), '2026-09-03'];
    const c = detectCadence(days);
    expect(c.cadence).toBe('WEEKLY');
    expect(c.medianGapDays).toBe(7);
    expect(c.confidence).toBeGreaterThan(70);
  });

  it('Given monthly orders with a few days of jitter, Then MONTHLY with a lower confidence than a perfectly regular buyer', () => {
    const jitter = [0, 3, -2, 4, -4, 1, 2, -3, 0, 3, -1, 2];
    const days = jitter.map((j, k) => addDays('2025-11-01', 30 * k + j));
    const c = detectCadence(days);
    expect(c.cadence).toBe('MONTHLY');
    expect(c.confidence).toBeLessThan(detectCadence(periodic(TODAY, 30, 12)).confidence);
    expect(c.confidence).toBeGreaterThan(50);
  });

  it('Given erratic buying (gaps 2, 90, 5, 200, 11, 60 days), Then NONE: the dispersion is too high for any cadence', () => {
    let d = '2024-01-01';
    const days = [d];
    for (const g of [2, 90, 5, 200, 11, 60]) days.push((d = addDays(d, g)));
    expect(detectCadence(days).cadence).toBe('NONE');
  });

  it('Given a median gap beyond 500 days, Then NONE', () => {
    expect(detectCadence(periodic(TODAY, 600, 4)).cadence).toBe('NONE');
  });

  it('property: the result depends only on the set of purchase days (order and duplicates do not matter) and confidence is an integer in 0..100', () => {
    fc.assert(
      fc.property(fc.array(dayArb, { maxLength: 30 }), (days) => {
        const c = detectCadence(days);
        expect(Number.isInteger(c.confidence)).toBe(true);
        expect(c.confidence).toBeGreaterThanOrEqual(0);
        expect(c.confidence).toBeLessThanOrEqual(100);
        expect(detectCadence([...days].reverse().concat(days.slice(0, 3)))).toEqual(c);
        if (c.cadence === 'NONE') expect(c.confidence).toBe(0);
      }),
    );
  });

  it('property: a perfectly periodic buyer gets the band of its period, and one outlier gap among at least 5 regular ones changes nothing', () => {
    const bandOf = (g: number) => CADENCE_BANDS.find((b) => g <= b.maxGap)!.cadence;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 6, max: 30 }), fc.integer({ min: 1, max: 2000 }), (gap, n, outlier) => {
        const days = periodic(TODAY, gap, n);
        const c = detectCadence(days);
        expect(c.cadence).toBe(bandOf(gap));
        expect(c.confidence).toBe(Math.round((100 * (n - 1)) / (n + 1)));
        // an outlier gap before the first purchase
        const withOutlier = detectCadence([addDays(days[0]!, -outlier), ...days]);
        expect(withOutlier.cadence).toBe(c.cadence);
        expect(withOutlier.medianGapDays).toBe(gap);
      }),
    );
  });
});

describe('churn state (spec 2.5, 3: Active, At-risk, Churned from how overdue the next expected purchase is)', () => {
  const monthly = detectCadence(periodic('2026-06-01', 30, 12));
  it('Given a monthly buyer (g = 30), When 60, 61, 120 and 121 days have passed since the last purchase, Then Active, At-risk, At-risk, Churned', () => {
    expect(expectedGapDays(monthly)).toBe(30);
    expect(churnState('2026-06-01', monthly, addDays('2026-06-01', 60))).toBe('Active'); // 30 overdue <= max(30, 14)
    expect(churnState('2026-06-01', monthly, addDays('2026-06-01', 61))).toBe('At-risk');
    expect(churnState('2026-06-01', monthly, addDays('2026-06-01', 120))).toBe('At-risk'); // 90 overdue <= max(90, 60)
    expect(churnState('2026-06-01', monthly, addDays('2026-06-01', 121))).toBe('Churned');
  });

  it('Given a weekly buyer, Then the minimum grace applies: Active up to 21 days, At-risk up to 67 days', () => {
    const weekly = detectCadence(periodic('2026-06-01', 7, 10));
    expect(churnState('2026-06-01', weekly, addDays('2026-06-01', 21))).toBe('Active');
    expect(churnState('2026-06-01', weekly, addDays('2026-06-01', 22))).toBe('At-risk');
    expect(churnState('2026-06-01', weekly, addDays('2026-06-01', 67))).toBe('At-risk');
    expect(churnState('2026-06-01', weekly, addDays('2026-06-01', 68))).toBe('Churned');
  });

  it('Given a one-off buyer (expected gap 180), Then Active for 360 days, At-risk to 720, Churned after; no purchase at all is null', () => {
    const once = detectCadence(['2025-01-01']);
    expect(expectedGapDays(once)).toBe(180);
    expect(churnState('2025-01-01', once, addDays('2025-01-01', 360))).toBe('Active');
    expect(churnState('2025-01-01', once, addDays('2025-01-01', 361))).toBe('At-risk');
    expect(churnState('2025-01-01', once, addDays('2025-01-01', 721))).toBe('Churned');
    expect(churnState(null, once, TODAY)).toBeNull();
  });

  it('property: as time passes the state only worsens (Active -> At-risk -> Churned), and on the day of the last purchase it is Active', () => {
    const rank = { Active: 0, 'At-risk': 1, Churned: 2 } as const;
    fc.assert(
      fc.property(fc.array(dayArb, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3000 }), (days, a, b) => {
        const c = detectCadence(days);
        const last = purchaseDays(days.map((d) => inv({ date: d }))).at(-1)!;
        expect(churnState(last, c, last)).toBe('Active');
        const s1 = churnState(last, c, addDays(last, Math.min(a, b)))!;
        const s2 = churnState(last, c, addDays(last, Math.max(a, b)))!;
        expect(rank[s2]).toBeGreaterThanOrEqual(rank[s1]);
      }),
    );
  });
});

describe('grossMarginPercent (spec 2.5: override, else cost history, else null; a fraction in [0,1])', () => {
  const months = (rows: [string, string, number][]): MarginMonth[] => rows.map(([revenue, costOfSales, costLines], k) => ({ month: `2026-${String(k + 1).padStart(2, '0')}`, revenue, costOfSales, costLines }));

  it("Given the operator's override, Then it wins over any cost history", () => {
    expect(grossMarginPercent('0.35', months([['1000', '900', 5], ['1000', '900', 5], ['1000', '900', 5]]))).toBe(0.35);
    expect(grossMarginPercent('1.2', [])).toBe(1);
  });

  it('Given cost-of-sales lines in three months, Then (revenue - cost) / revenue over the window, to 4 places', () => {
    expect(grossMarginPercent(null, months([['1000', '600', 2], ['2000', '1300', 1], ['0', '0', 0], ['1000', '700', 3]]))).toBe(0.35);
    expect(grossMarginPercent(null, months([['3000', '1000', 1], ['0', '0', 0], ['0', '0', 0]]))).toBeNull(); // 1 month of cost history
    expect(grossMarginPercent(null, months([['0', '100', 1], ['0', '100', 1], ['0', '100', 1]]))).toBeNull(); // no revenue
    expect(grossMarginPercent(null, months([['100', '300', 1], ['100', '300', 1], ['100', '300', 1]]))).toBe(0); // clamped
  });

  it('property: the margin is null or in [0,1]', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(amountArb, amountArb, fc.integer({ min: 0, max: 3 })), { maxLength: 12 }), (rows) => {
        const m = grossMarginPercent(null, months(rows));
        if (m !== null) expect(m >= 0 && m <= 1).toBe(true);
      }),
    );
  });
});

describe('expectedLifetimeYears (spec 2.5 and 8: median lifetime of engaged customers, clamped to [1,5])', () => {
  it('Given engaged customers of 0.5, 2 and 3 years, Then the median is 2 years; none gives 1; ten years is clamped to 5', () => {
    const span = (days: number) => ({ firstPurchase: '2015-01-01', lastPurchase: addDays('2015-01-01', days) });
    expect(expectedLifetimeYears([span(183), span(730.5 | 0), span(1096)])).toBe(2);
    expect(expectedLifetimeYears([])).toBe(1);
    expect(expectedLifetimeYears([span(3653)])).toBe(5);
    expect(expectedLifetimeYears([span(10)])).toBe(1);
  });

  it('property: always within [1,5]', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 8000 }), { maxLength: 30 }), (spans) => {
        const y = expectedLifetimeYears(spans.map((d) => ({ firstPurchase: '2000-01-01', lastPurchase: addDays('2000-01-01', d) })));
        expect(y >= 1 && y <= 5).toBe(true);
      }),
    );
  });
});

describe('projectedLtv and historicalLtv (spec 2.5: run-rate x margin x lifetime x churn factor; revenueAllTime x margin)', () => {
  it('Given run-rate 12,000, margin 0.4 and lifetime 2.5 years, Then Active 12,000, At-risk 6,000, Churned 0', () => {
    expect(projectedLtv('12000', 0.4, 2.5, 'Active')).toBe('12000');
    expect(projectedLtv('12000', 0.4, 2.5, 'At-risk')).toBe('6000');
    expect(projectedLtv('12000', 0.4, 2.5, 'Churned')).toBe('0');
  });

  it('Given no margin, Then both are null; the historical value is revenue times margin to the cent', () => {
    expect(projectedLtv('12000', null, 2.5, 'Active')).toBeNull();
    expect(historicalLtv('1000', null)).toBeNull();
    expect(historicalLtv('1234.56', 0.3333)).toBe('411.48');
  });

  it('property: At-risk is half of Active (to the cent), Churned is 0, and both are canonical decimals', () => {
    fc.assert(
      fc.property(amountArb, fc.integer({ min: 0, max: 10000 }).map((m) => m / 10000), fc.integer({ min: 100, max: 500 }).map((y) => y / 100), (rate, margin, years) => {
        const active = new D(projectedLtv(rate, margin, years, 'Active')!);
        const risk = new D(projectedLtv(rate, margin, years, 'At-risk')!);
        expect(risk.minus(active.div(2)).abs().lte('0.01')).toBe(true);
        expect(projectedLtv(rate, margin, years, 'Churned')).toBe('0');
        expect(historicalLtv(rate, margin)).toMatch(/^(0|[1-9]\d*)(\.\d*[1-9])?$/);
      }),
    );
  });
});

describe('abcClass (spec 2.5: 80/20 customer tier; A = first 80% of value, B = next 15%, C = rest)', () => {
  it('Given values 500, 300, 100, 50, 30, 20 (total 1,000), Then A A B B C C', () => {
    const m = abcClasses([
      { id: 'a', value: '500' },
      { id: 'b', value: '300' },
      { id: 'c', value: '100' },
      { id: 'd', value: '50' },
      { id: 'e', value: '30' },
      { id: 'f', value: '20' },
      { id: 'z', value: '0' },
    ]);
    // before a: 0 -> A; before b: 50% -> A; before c: 80% -> B; before d: 90% -> B; before e: 95% -> C; f: C
    expect(Object.fromEntries(m)).toEqual({ a: 'A', b: 'A', c: 'B', d: 'B', e: 'C', f: 'C' });
    expect(m.has('z')).toBe(false); // no value: unclassified
  });

  it('Given equal values straddling a cut, Then they share a tier (decided by the first of them)', () => {
    const m = abcClasses([
      { id: 'a', value: '70' },
      { id: 'b', value: '10' },
      { id: 'c', value: '10' },
      { id: 'd', value: '10' },
    ]);
    expect(Object.fromEntries(m)).toEqual({ a: 'A', b: 'A', c: 'A', d: 'A' });
  });

  it('property: tiers are ordered by value, equal values share a tier, A covers at least 80% of the value, and input order does not matter', () => {
    const rank = { A: 0, B: 1, C: 2 } as const;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 1e6 }), amountArb), { maxLength: 60 }), (rows) => {
        const values = rows.map(([k, v], i) => ({ id: `c${k}-${i}`, value: v }));
        const m = abcClasses(values);
        const shuffled = abcClasses([...values].reverse());
        expect(Object.fromEntries(shuffled)).toEqual(Object.fromEntries(m));
        const pos = values.filter((v) => new D(v.value).gt(0));
        expect(m.size).toBe(pos.length);
        for (const x of pos) for (const y of pos) {
          const c = new D(x.value).comparedTo(y.value);
          if (c > 0) expect(rank[m.get(x.id)!]).toBeLessThanOrEqual(rank[m.get(y.id)!]);
          if (c === 0) expect(m.get(x.id)).toBe(m.get(y.id));
        }
        const total = pos.reduce((s, v) => s.plus(v.value), new D(0));
        const a = pos.filter((v) => m.get(v.id) === 'A').reduce((s, v) => s.plus(v.value), new D(0));
        if (total.gt(0)) expect(a.div(total).gte(0.8)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('availableCredit (spec 2.5: AUTHORISED receivable credit notes in the base currency; foreign excluded)', () => {
  it('Given credit notes of every kind, Then only AUTHORISED ACCRECCREDIT in AUD count', () => {
    expect(
      availableCredit(
        [
          { ledgerType: 'ACCRECCREDIT', ledgerStatus: 'AUTHORISED', currency: 'AUD', remainingCredit: '50.5' },
          { ledgerType: 'ACCRECCREDIT', ledgerStatus: 'AUTHORISED', currency: 'AUD', remainingCredit: '20' },
          { ledgerType: 'ACCRECCREDIT', ledgerStatus: 'AUTHORISED', currency: 'USD', remainingCredit: '1000' },
          { ledgerType: 'ACCRECCREDIT', ledgerStatus: 'PAID', currency: 'AUD', remainingCredit: '7' },
          { ledgerType: 'ACCPAYCREDIT', ledgerStatus: 'AUTHORISED', currency: 'AUD', remainingCredit: '9' },
        ],
        'AUD',
      ),
    ).toBe('70.5');
    expect(availableCredit([], 'AUD')).toBe('0');
  });
});

describe('fast day arithmetic used in the hot loops', () => {
  it('property: dayDiff agrees with the calendar module (Temporal) for any two dates', async () => {
    const { dayDiff } = await import('../src/domain/analytics/stats.js');
    const { daysBetween } = await import('../src/domain/calendar.js');
    const anyDate = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(anyDate, anyDate, (a, b) => {
        expect(dayDiff(a, b)).toBe(daysBetween(a, b));
      }),
      { numRuns: 1000 },
    );
  });
});
