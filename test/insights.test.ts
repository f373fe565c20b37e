/**
 * notesForAgent (spec 2.1 AgentNote; issue 9: "an insight engine
 * (seasonality, trend, pipeline, ar, concentration over windows this_month,
 * next_4w, this_quarter; sourceInsightId) with fallback detectors when it has
 * nothing; deterministic"). Thresholds: src/domain/insights/engine.ts.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../src/domain/calendar.js';
import { prepareForecast } from '../src/domain/forecast/engine.js';
import { projectForecast } from '../src/domain/forecast/project.js';
import type { AgentNote, ForecastInput, LedgerItem } from '../src/domain/forecast/types.js';

const NOW = new Date('2026-12-09T00:00:00Z');
const KINDS = ['seasonality', 'trend', 'pipeline', 'ar', 'concentration'];
const WINDOWS = ['this_month', 'next_4w', 'this_quarter'];

let seq = 0;
const doc = (p: Partial<LedgerItem> & { issueDate: string }): LedgerItem => ({
  id: `n${++seq}`,
  kind: 'AR',
  contactId: 'c1',
  status: 'AUTHORISED',
  dueDate: addDays(p.issueDate, 14),
  paidDate: null,
  total: '100',
  amountDue: p.status === 'PAID' ? '0' : (p.total ?? '100'),
  number: null,
  reference: null,
  accountId: null,
  ...p,
});

function notes(over: Partial<ForecastInput>, asOf = '2026-12-09'): AgentNote[] {
  const input: ForecastInput = {
    orgId: 'o',
    asOf,
    currency: 'AUD',
    bankAccounts: [{ id: 'b', name: 'B', currency: 'AUD', reconciledBalance: '50000', statementBalance: null, unreconciledNet: '0' }],
    override: null,
    items: [],
    bankTxns: [],
    purchaseOrders: [],
    manualItems: [],
    accounts: {},
    ...over,
  };
  return projectForecast(prepareForecast(input), { id: 'base', name: 'Base', kind: 'BASE', adjustments: {} }, NOW).notesForAgent;
}

/** Three years of monthly orders from 12 customers, December twice the size of other months. */
function seasonalHistory(asOf: string): LedgerItem[] {
  const out: LedgerItem[] = [];
  for (let c = 0; c < 12; c++) {
    for (let m = 1; m <= 36; m++) {
      const day = addDays(asOf, -Math.round(30.4 * m) - c);
      const issue = day.slice(0, 8) + String(3 + c).padStart(2, '0');
      if (issue >= asOf) continue;
      const total = issue.slice(5, 7) === '12' ? '2000' : '1000';
      out.push(doc({ contactId: `s${c}`, issueDate: issue, dueDate: issue, status: 'PAID', paidDate: issue, total }));
    }
  }
  return out;
}

describe('notes for agents', () => {
  it('spec 2.1: engine notes use the enums and carry a stable sourceInsightId; deterministic', () => {
    const items = [
      ...seasonalHistory('2026-12-09'),
      doc({ id: 'big', contactId: 'whale', issueDate: '2026-09-01', dueDate: '2026-09-30', total: '30000' }),
      doc({ id: 'small', contactId: 'minnow', issueDate: '2026-12-01', dueDate: '2026-12-20', total: '2000' }),
      doc({ id: 'draft', contactId: 'minnow', status: 'DRAFT', issueDate: '2026-12-08', total: '9000' }),
    ];
    const a = notes({ items });
    expect(a.length).toBeGreaterThan(0);
    expect(a.length).toBeLessThanOrEqual(5);
    for (const n of a) {
      expect(KINDS).toContain(n.kind);
      expect(WINDOWS).toContain(n.window);
      expect(['info', 'warn']).toContain(n.severity);
      expect(n.sourceInsightId).toBe(`ins_${n.kind}_${n.window}_20261209`);
      // Notes never name a contact (they are not subject to sensitive-data rewriting).
      for (const id of ['whale', 'minnow', 's1']) expect(n.text).not.toContain(id);
    }
    expect(notes({ items: [...items].reverse() })).toEqual(a);
    // warn notes come first
    const firstInfo = a.findIndex((n) => n.severity === 'info');
    if (firstInfo >= 0) expect(a.slice(firstInfo).every((n) => n.severity === 'info')).toBe(true);
  });

  it('ar (this_month): overdue receivables of 30% or more of what is open warn; concentration (this_quarter): one customer with 40% or more warns', () => {
    const items = [
      doc({ contactId: 'a', issueDate: '2026-08-01', dueDate: '2026-08-31', total: '6000' }),
      doc({ contactId: 'b', issueDate: '2026-12-01', dueDate: '2026-12-20', total: '2000' }),
      doc({ contactId: 'c', issueDate: '2026-12-02', dueDate: '2026-12-21', total: '2000' }),
    ];
    const n = notes({ items });
    const ar = n.find((x) => x.kind === 'ar')!;
    expect(ar).toMatchObject({ window: 'this_month', severity: 'warn' });
    expect(ar.text).toContain('AUD 6,000');
    expect(ar.text).toContain('60%');
    expect(ar.text).toContain('more than 60 days overdue');
    expect(n.find((x) => x.kind === 'concentration')).toMatchObject({ window: 'this_quarter', severity: 'warn' });
  });

  it('pipeline (next_4w): draft and submitted invoices worth 5% or more of the next 4 weeks inflow', () => {
    const n = notes({ items: [doc({ contactId: 'a', issueDate: '2026-12-01', total: '1000' }), doc({ contactId: 'a', status: 'SUBMITTED', issueDate: '2026-12-08', total: '5000' })] });
    expect(n.find((x) => x.kind === 'pipeline')).toMatchObject({ window: 'next_4w', severity: 'info' });
  });

  it('trend (this_quarter): cash forecast below zero warns with the week', () => {
    const bills = [doc({ kind: 'AP', contactId: 's', issueDate: '2026-12-01', dueDate: '2026-12-23', total: '80000' })];
    const n = notes({ items: bills });
    const t = n.find((x) => x.kind === 'trend' && x.window === 'this_quarter')!;
    expect(t.severity).toBe('warn');
    expect(t.text).toBe('Cash is forecast to fall below zero, to -AUD 30,000 in the week of 21 December 2026.');
  });

  it('trend (this_quarter): a low point under two weeks of average outflows, above zero, warns as the tight week; a comfortable one says nothing', () => {
    const tight = notes({ items: [doc({ kind: 'AP', contactId: 's', issueDate: '2026-12-01', dueDate: '2026-12-23', total: '45000' })] });
    const t = tight.find((x) => x.kind === 'trend' && x.window === 'this_quarter')!;
    expect(t.severity).toBe('warn');
    // 45,000 out over 13 weeks is 3,461.54 a week (shown to the dollar); 5,000 left is 1.4 weeks of it.
    expect(t.text).toBe("Cash is tightest in the week of 21 December 2026: AUD 5,000, about 1.4 weeks of the forecast's average outflows (AUD 3,462 a week), down from AUD 50,000 today.");
    const easy = notes({ items: [doc({ kind: 'AP', contactId: 's', issueDate: '2026-12-01', dueDate: '2026-12-23', total: '10000' })] });
    expect(easy.filter((x) => x.kind === 'trend' && x.severity === 'warn')).toEqual([]);
    expect(easy.some((x) => x.text.startsWith('Cash is tightest'))).toBe(false);
  });

  it('seasonality (this_month): a month that typically runs 10% or more above average, with two years of history', () => {
    const n = notes({ items: seasonalHistory('2026-12-09') });
    const s = n.find((x) => x.kind === 'seasonality')!;
    expect(s.window).toBe('this_month');
    expect(s.text).toMatch(/^Invoiced sales in December typically run \d+% above an average month/);
    // Not in a month without a seasonal swing, and not with one year of history.
    expect(notes({ items: seasonalHistory('2026-12-09').filter((i) => i.issueDate! >= '2025-12-20') }).some((x) => x.kind === 'seasonality')).toBe(false);
  });

  it('fallback detectors speak when the engine has nothing, without sourceInsightId', () => {
    const n = notes({});
    expect(n.length).toBeGreaterThan(0);
    for (const x of n) expect(x.sourceInsightId).toBeUndefined();
    expect(n).toEqual([
      { kind: 'ar', window: 'this_month', severity: 'info', text: 'There are no open receivables.' },
      { kind: 'trend', window: 'this_quarter', severity: 'info', text: 'Cash is forecast to stay at AUD 50,000 over the next 13 weeks.' },
    ]);
    const one = notes({ items: [doc({ contactId: 'a', issueDate: '2026-12-01', dueDate: '2026-12-30', total: '400' })] });
    expect(one.every((x) => x.sourceInsightId === undefined)).toBe(true);
    expect(one[0]!.text).toBe('1 open invoice worth AUD 400, none overdue.');
  });
});
