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
