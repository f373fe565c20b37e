/**
 * The rules tier of the daily brief, pure (docs/brief.md): which risk signal
 * it names. Cash below zero first; then a tight week (the low point under two
 * weeks of the window's average outflows, the same rule as the forecast's
 * note); then the largest overdue balance; else the low point.
 */
import { describe, expect, it } from 'vitest';
import { rulesBrief, tightCover, type BriefFacts } from '../src/domain/brief/rules.js';

function facts(closings: number[], outflow: number, over: Partial<BriefFacts> = {}): BriefFacts {
  const start = 50_000;
  const min = Math.min(...closings);
  return {
    orgName: 'Test Co',
    currency: 'AUD',
    asOfDate: '2026-11-25',
    forecast: {
      startingCash: String(start),
      endingCash: String(closings[closings.length - 1]),
      minClosingCash: String(min),
      minWeek: closings.indexOf(min) + 1,
      weeks: closings.map((c, i) => ({ n: i + 1, weekStart: `2026-12-${String(1 + i).padStart(2, '0')}`, inflow: '0', outflow: String(outflow), net: '0', closing: String(c) })),
      categories: [],
    },
    overdue: [],
    overdueTotal: '0',
    overdueCustomers: 0,
    notes: [],
    ...over,
  };
}
const overdue: Partial<BriefFacts> = {
  overdue: [{ key: 'acme', name: 'Acme', sensitive: false, amount: '12000', invoices: 2, oldestDueDate: '2026-10-01', daysOverdue: 55 }],
  overdueTotal: '12000',
  overdueCustomers: 1,
};
const dip = [45_000, 38_000, 30_000, 21_000, 12_000, 9_000, 15_000, 22_000, 30_000, 36_000, 40_000, 44_000, 47_000];

describe('the brief names the tight week', () => {
  it('Given a low point under two weeks of outflows, When a customer is also overdue, Then the risk signal is the tight week and the action is still to chase', () => {
    // 13 weeks of 6,000 out: the low point of 9,000 in week 6 is 1.5 weeks of outflows.
    const b = rulesBrief(facts(dip, 6_000, overdue));
    expect(b.riskSignal.headline).toBe('Cash is tight in week 6 (AUD 9,000)');
    expect(b.riskSignal.bodyMarkdown).toContain('about 1.5 weeks of outflows');
    expect(b.riskSignal.refs).toEqual([{ kind: 'week', weekNumber: 6 }]);
    expect(b.recommendedAction.headline).toBe('Chase Acme for AUD 12,000 overdue');
  });

  it('Given the same low point with lighter outflows (3 weeks of cover), Then the overdue customer is the risk signal', () => {
    const b = rulesBrief(facts(dip, 3_000, overdue));
    expect(tightCover(facts(dip, 3_000).forecast!)).toBeNull();
    expect(b.riskSignal.headline).toBe('Acme has AUD 12,000 overdue');
  });

  it('Given cash below zero, Then that comes first; Given a low point that is today (never below today), Then it is not called tight', () => {
    expect(rulesBrief(facts([20_000, -5_000, 10_000], 20_000, overdue)).riskSignal.headline).toBe('Cash falls below zero in week 2 (-AUD 5,000)');
    expect(tightCover(facts([50_000, 60_000, 70_000], 40_000).forecast!)).toBeNull();
  });
});

describe('the brief states the chance of running short (issue 17)', () => {
  const withShortfall = (closings: number[], outflow: number, probability: number, firstWeek: number | null, over: Partial<BriefFacts> = {}) => {
    const f = facts(closings, outflow, over);
    return { ...f, forecast: { ...f.forecast!, shortfall: { threshold: '0', probability, firstWeek } } };
  };

  it('Given a 31% chance of going below zero though the expected low point stays above it, When a customer is also overdue, Then the shortfall is the risk signal', () => {
    const b = rulesBrief(withShortfall(dip, 3_000, 0.31, 5, overdue));
    expect(b.riskSignal.headline).toBe('A 31% chance of running short by week 5');
    expect(b.riskSignal.bodyMarkdown).toContain('There is a **31%** chance cash goes below zero in the next 13 weeks, most likely first in week 5.');
    expect(b.riskSignal.refs).toEqual([{ kind: 'week', weekNumber: 5 }]);
  });

  it('Given a tight week, Then the tight week stays the headline and its body adds the chance; Given a 10% chance, Then the overdue customer leads', () => {
    const tight = rulesBrief(withShortfall(dip, 6_000, 0.45, 6, overdue));
    expect(tight.riskSignal.headline).toBe('Cash is tight in week 6 (AUD 9,000)');
    expect(tight.riskSignal.bodyMarkdown).toContain('**45%** chance');
    expect(rulesBrief(withShortfall(dip, 3_000, 0.1, 6, overdue)).riskSignal.headline).toBe('Acme has AUD 12,000 overdue');
  });

  /** The same weeks with each week's closing P10 this far below its closing. */
  const withBands = (f: BriefFacts, spread: number): BriefFacts => ({ ...f, forecast: { ...f.forecast!, weeks: f.forecast!.weeks.map((w) => ({ ...w, closingP10: String(Number(w.closing) - spread) })) } });

  it('Given a 45% chance of running short whose worse futures (P10) reach 6,000 below zero by week 6, When collecting on time would lift the lowest week less, Then the action is to line up 6,000 before week 5, the first week they go below', () => {
    // dip's low point 9,000 in week 6; each P10 15,000 lower: week 5 -3,000, week 6 -6,000, week 7 0.
    const b = rulesBrief(withBands(withShortfall(dip, 3_000, 0.45, 5, { ...overdue, overdue: [{ ...overdue.overdue![0]!, lift: '2500' }] }), 15_000));
    expect(b.recommendedAction.headline).toBe('Line up AUD 6,000 before week 5');
    expect(b.recommendedAction.bodyMarkdown).toBe(
      'There is a **45%** chance cash goes below zero in the next 13 weeks; in 1 future in 10 it is **AUD 6,000** short of it by week 6 (the lower end of the forecast\'s 80% band). *Arrange a facility or move bills* to cover that before week 5; collecting on time lifts the lowest week by AUD 2,500 at most. Chase **Acme** for its AUD 12,000 overdue too.',
    );
    expect(b.recommendedAction.refs).toEqual([{ kind: 'week', weekNumber: 5 }, { kind: 'customer', key: 'acme', displayName: 'Acme' }]);
    // Measured against the cash buffer when the organisation has one (P10 week 4 6,000: above it; week 5 -3,000: 8,000 short; week 6 -6,000: 11,000).
    const buffered = withBands(withShortfall(dip, 3_000, 0.45, 5), 15_000);
    buffered.forecast!.shortfall!.threshold = '5000';
    const cushioned = rulesBrief(buffered).recommendedAction;
    expect(cushioned.headline).toBe('Line up AUD 11,000 before week 5');
    expect(cushioned.bodyMarkdown).toContain('goes below the AUD 5,000 buffer');
    expect(cushioned.bodyMarkdown).toMatch(/to cover that before week 5\.$/);
  });

  it('Given futures that run short in different weeks (the forecast\'s cushion90 above any one week\'s P10 gap), Then the action lines up the cushion that keeps 9 futures in 10 above zero, and says what one week alone asks', () => {
    const f = withBands(withShortfall(dip, 3_000, 0.45, 5, { ...overdue, overdue: [{ ...overdue.overdue![0]!, lift: '2500' }] }), 15_000);
    f.forecast!.shortfall!.cushion90 = '7200';
    const b = rulesBrief(f).recommendedAction;
    expect(b.headline).toBe('Line up AUD 7,200 before week 5');
    expect(b.bodyMarkdown).toBe(
      'There is a **45%** chance cash goes below zero in the next 13 weeks; **AUD 7,200** lined up before week 5 keeps it above in 9 futures of 10 (each future\'s lowest week; one week at a time, the forecast\'s 80% band reaches AUD 6,000 below it by week 6). *Arrange a facility or move bills* to cover that before week 5; collecting on time lifts the lowest week by AUD 2,500 at most. Chase **Acme** for its AUD 12,000 overdue too.',
    );
    // A cushion equal to the worst week's gap (the futures short in one week): the week's words, as before.
    f.forecast!.shortfall!.cushion90 = '6000';
    expect(rulesBrief(f).recommendedAction.bodyMarkdown).toContain('in 1 future in 10 it is **AUD 6,000** short of it by week 6');
    // No week's band below zero, yet 1 future in 10 or more short at some point: lined up before the likeliest first week.
    const spread = withBands(withShortfall(dip, 3_000, 0.3, 7, { ...overdue, overdue: [{ ...overdue.overdue![0]!, lift: '500' }] }), 5_000);
    spread.forecast!.shortfall!.cushion90 = '1500';
    const a = rulesBrief(spread).recommendedAction;
    expect(a.headline).toBe('Line up AUD 1,500 before week 7');
    expect(a.bodyMarkdown).toContain('**AUD 1,500** lined up before week 7 keeps it above in 9 futures of 10 (each future\'s lowest week).');
  });

  it('Given collecting an overdue customer on time would cover the worse futures, or a shortfall under 20%, or bands that stay above zero, Then the actions are as before', () => {
    const chase = { ...overdue, overdue: [{ ...overdue.overdue![0]!, lift: '7000' }] };
    expect(rulesBrief(withBands(withShortfall(dip, 3_000, 0.45, 5, chase), 15_000)).recommendedAction.headline).toBe('Chase Acme for AUD 12,000 overdue');
    expect(rulesBrief(withBands(withShortfall(dip, 3_000, 0.15, 5, overdue), 15_000)).recommendedAction.headline).toBe('Chase Acme for AUD 12,000 overdue');
    expect(rulesBrief(withBands(withShortfall(dip, 3_000, 0.45, 5, overdue), 5_000)).recommendedAction.headline).toBe('Chase Acme for AUD 12,000 overdue');
    // Before the bands (no P10), nothing to size a cushion by.
    expect(rulesBrief(withShortfall(dip, 3_000, 0.45, 5, overdue)).recommendedAction.headline).toBe('Chase Acme for AUD 12,000 overdue');
  });

  it('Given no shortfall stated (a snapshot before the bands), Then the brief reads as before', () => {
    expect(rulesBrief(facts(dip, 6_000, overdue)).riskSignal.bodyMarkdown).not.toContain('chance');
  });
});

describe('the recommended action draws on the collections ranking (issue 18)', () => {
  const collect: BriefFacts['collect'] = { key: 'bolt', name: 'Bolt Cafe', sensitive: false, number: 'INV-0042', amount: '7300.5', dueDate: '2026-12-04', daysOverdue: 0, lift: '4100.25' };
  it('Given an overdue customer whose invoices, collected on time, lift the lowest week, Then the action chases it and states the lift', () => {
    const withLift = { ...overdue, overdue: [{ ...overdue.overdue![0]!, lift: '3500' }], collect };
    const b = rulesBrief(facts(dip, 3_000, withLift));
    expect(b.recommendedAction.headline).toBe('Chase Acme for AUD 12,000 overdue');
    expect(b.recommendedAction.bodyMarkdown).toContain('lifts the lowest week, week 6, by AUD 3,500');
  });
  it('Given no customer overdue and an invoice whose collection on its due date lifts the lowest week, Then the action is to collect it, with the lift', () => {
    const b = rulesBrief(facts(dip, 3_000, { collect }));
    expect(b.recommendedAction.headline).toBe('Collect AUD 7,301 from Bolt Cafe to lift week 6');
    expect(b.recommendedAction.bodyMarkdown).toContain('invoice INV-0042');
    expect(b.recommendedAction.bodyMarkdown).toContain('by **AUD 4,100**');
    expect(b.recommendedAction.refs).toEqual([
      { kind: 'customer', key: 'bolt', displayName: 'Bolt Cafe' },
      { kind: 'week', weekNumber: 6 },
    ]);
  });
  it('Given lifts of 0, Then the actions are as before: chase without a lift, else prepare for the heaviest week', () => {
    const none = rulesBrief(facts(dip, 3_000, { ...overdue, overdue: [{ ...overdue.overdue![0]!, lift: '0' }] }));
    expect(none.recommendedAction.bodyMarkdown).toContain('*Collecting it lifts cash today.*');
    expect(rulesBrief(facts(dip, 3_000, { collect: { ...collect, lift: '0' } })).recommendedAction.headline).toMatch(/^Prepare for /);
  });
});
