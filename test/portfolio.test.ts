/**
 * GET /api/agent/portfolio (issue 19, docs/portfolio.md) through real HTTP
 * on PGlite and PostgreSQL: every row agrees with its organisation's own
 * /cash-position, /forecast, /receivables/aged, /daily-summary and /status;
 * the risk order; paging; one credit per row, from each organisation's
 * allowance, and what happens when one runs out; user keys refused; an
 * unlinked organisation never appears; no contact name in any row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { BACKENDS } from './helpers/store.js';
import { startTestApi, type TestApi } from './helpers/http.js';
import { SCOPES } from '../src/domain/scopes.js';
import { D, dec } from '../src/domain/money.js';
import * as s from '../src/store/schema.js';
import { insertSynthetic, syntheticLedger } from '../src/backtest/synthetic.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { PortfolioResponse } from '../src/schemas/portfolio.js';
import { headroomOf, portfolioPage, type RiskFacts } from '../src/domain/portfolio.js';
import { InvalidCursorError } from '../src/domain/cursor.js';

// Sunday 22 November 2026, 14:00 UTC: Monday 23 November in Sydney.
const NOW = '2026-11-22T14:00:00Z';
const PATH = '/api/agent/portfolio';
const SECRET = 'zqxSECRETCONTACTzqx';
/** The linked organisations, in the risk order the fixture makes (see beforeAll). */
const LINKED = ['pf-high', 'pf-mid-a', 'pf-mid-b', 'pf-nobands', 'pf-none'] as const;

type Row = {
  orgId: string;
  name: string;
  currency: string;
  cashToday: string;
  forecastAsOfDate: string | null;
  forecastComputedAt: string | null;
  minClosingCash: string | null;
  minClosingCashWeekIndex: number | null;
  minClosingCashWeekStart: string | null;
  shortfallProbability: number | null;
  shortfallThreshold: string | null;
  headroom: string | null;
  overdueReceivables: string | null;
  ledgerAlert: Record<string, unknown> | null;
};

describe('the risk order (src/domain/portfolio.ts)', () => {
  const f = (orgId: string, name: string, forecast: RiskFacts['forecast'], overdue: string | null = '0'): RiskFacts => ({ orgId, name, forecast, overdue });
  const rows: RiskFacts[] = [
    f('none-big', 'Owes a lot', null, '90000'),
    f('none-small', 'Owes little', null, '10'),
    f('p0', 'Zero chance', { shortfallProbability: 0, headroom: '-500' }),
    f('nobands', 'No bands', { shortfallProbability: null, headroom: '-99999' }),
    f('p5-low', 'Half, deep', { shortfallProbability: 0.5, headroom: '-2000.5' }),
    f('p5-high', 'Half, shallow', { shortfallProbability: 0.5, headroom: '100' }),
    f('p5-high-owed', 'Half, shallow, owed', { shortfallProbability: 0.5, headroom: '100' }, '700.25'),
    f('p9', 'Likely', { shortfallProbability: 0.9, headroom: '1000000' }),
    f('b', 'alpha', { shortfallProbability: 0.1, headroom: '5' }),
    f('a', 'Alpha', { shortfallProbability: 0.1, headroom: '5' }),
    f('c', 'Älpha', { shortfallProbability: 0.1, headroom: '5' }),
  ];
  const ids = (xs: RiskFacts[]) => xs.map((x) => x.orgId);

  it('probability, then headroom, then overdue, then name and id; no bands after every probability; no forecast last', () => {
    expect(ids(portfolioPage(rows, null, 100).rows)).toEqual([
      'p9', 'p5-low', 'p5-high-owed', 'p5-high', 'a', 'b', 'c', 'p0', 'nobands', 'none-big', 'none-small',
    ]);
    expect(headroomOf('-100.5', '1000')).toBe('-1100.5');
  });

  it('pages resume after the last row served, even when the rows change between pages', () => {
    const first = portfolioPage(rows, null, 4);
    expect(first.totalCount).toBe(rows.length);
    const rest = portfolioPage(rows.filter((r) => r.orgId !== 'b'), first.next, 100);
    expect(ids(rest.rows)).toEqual(['a', 'c', 'p0', 'nobands', 'none-big', 'none-small']);
    expect(rest.next).toBeNull();
    // Resuming after any row of a page (a page cut short by credits) continues right after it.
    expect(ids(portfolioPage(rows, first.positions[1]!, 2).rows)).toEqual(['p5-high-owed', 'p5-high']);
    expect(() => portfolioPage(rows, ['not json', 'x'], 2)).toThrow(InvalidCursorError);
  });
});

describe.each(BACKENDS)('GET /api/agent/portfolio on %s', (kind) => {
  let api: TestApi;
  let partner: { partnerId: string; key: string };

  const get = (path: string, key: string, headers: Record<string, string> = {}) => api.get(path, key, headers);
  async function page(key: string, query = '', headers: Record<string, string> = {}) {
    const res = await get(`${PATH}${query}`, key, headers);
    const body = await res.json();
    if (res.status === 200) expect(PortfolioResponse.safeParse(body).success).toBe(true);
    return { status: res.status, body, res };
  }
  /** Every row, page by page (`limit` a page). */
  async function all(key: string, limit: number): Promise<{ rows: Row[]; pages: number }> {
    const rows: Row[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await page(key, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.orgs.length).toBeLessThanOrEqual(limit);
      expect(r.body.charged).toBe(r.body.orgs.length);
      rows.push(...r.body.orgs);
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    return { rows, pages };
  }
  /** The partner's credits used on one organisation's allowance (Reserve: 5,000; /status is free). */
  const used = async (key: string, orgId: string) => 5000 - ((await (await get('/api/agent/status', key, { 'x-service-org-id': orgId })).json()).usage.remaining as number);

  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW });
    const db = api.store.db;
    const names: Record<string, string> = { 'pf-high': 'Harbour Cafe', 'pf-mid-a': 'Alpine Joinery', 'pf-mid-b': 'Bayside Florist', 'pf-nobands': 'Northern Plumbing', 'pf-none': 'Zenith Startup', 'pf-other': 'Other Practice Client' };
    for (const [i, id] of [...LINKED, 'pf-other'].entries()) {
      await api.org({ id, name: names[id]!, plan: 'Reserve', timezone: i % 2 ? 'Australia/Perth' : 'Australia/Sydney' });
      await insertSynthetic(db, syntheticLedger(id, { seed: 31 + i, asOf: '2026-11-22', customers: 8, years: 1 }));
      // A cash buffer on pf-mid-b: its shortfall threshold, which its headroom is measured from.
      if (id === 'pf-mid-b') await db.update(s.organisations).set({ cashBuffer: '5000' }).where(eq(s.organisations.id, id));
      if (id !== 'pf-none') await recomputeForecast(db, id, new Date(NOW));
    }
    // Risk: pf-high has the highest shortfall probability; pf-mid-a and pf-mid-b tie on it (their headroom decides);
    // pf-nobands' forecast has no bands (before engine version 3); pf-none has no forecast yet.
    const setProbability = (id: string, p: number) =>
      db.execute(sql`update forecast_snapshots set payload = jsonb_set(payload, '{shortfall,probability}', ${String(p)}::jsonb) where org_id = ${id} and scenario_id = 'base'`);
    await setProbability('pf-high', 0.6);
    await setProbability('pf-mid-a', 0.25);
    await setProbability('pf-mid-b', 0.25);
    await db.execute(sql`update forecast_snapshots set payload = payload - 'shortfall' where org_id = 'pf-nobands' and scenario_id = 'base'`);
    // Ledger connections: healthy, expired token, none, stale.
    await api.ledger('pf-high');
    await api.ledger('pf-mid-a', { tokenState: 'expired' });
    await api.ledger('pf-nobands');
    await api.ledger('pf-nobands', { lastSuccessfulSync: new Date('2026-11-20T00:00:00Z') });
    await api.ledger('pf-none');
    // A sensitive contact with a name that must never show.
    await db
      .update(s.contacts)
      .set({ name: SECRET, isSensitive: true })
      .where(and(eq(s.contacts.orgId, 'pf-high'), sql`${s.contacts.id} = (select min(id) from contacts where org_id = 'pf-high' and is_customer)`));
    partner = await api.partner([...LINKED]);
    // Another practice's client: never in this partner's portfolio.
    await api.partner(['pf-other']);
  }, 240_000);
  afterAll(async () => {
    await api?.close();
  });

  it('each row agrees with its organisation\'s own /cash-position, /forecast, /receivables/aged, /daily-summary and /status', async () => {
    const { body } = await page(partner.key, '?limit=100');
    expect(body.orgs.map((r: Row) => r.orgId).sort()).toEqual([...LINKED].sort());
    for (const row of body.orgs as Row[]) {
      const as = { 'x-service-org-id': row.orgId };
      const cp = await (await get('/api/agent/cash-position', partner.key, as)).json();
      expect(row.cashToday, row.orgId).toBe(cp.effectiveStartingCash);
      expect(row.currency).toBe(cp.currency);
      const aged = await (await get('/api/agent/receivables/aged', partner.key, as)).json();
      expect(row.overdueReceivables, row.orgId).toBe(aged.totals.overdue);
      const ds = await (await get('/api/agent/daily-summary', partner.key, as)).json();
      const arOverdue = (['days30', 'days60', 'days90', 'days90plus'] as const).reduce((a, b) => a.plus(ds.ar[b].amount), new D(0));
      expect(dec(row.overdueReceivables!).equals(arOverdue), row.orgId).toBe(true);
      const status = await (await get('/api/agent/status', partner.key, as)).json();
      expect(row.ledgerAlert, row.orgId).toEqual(status.ledgerAlert ?? null);
      const fr = await get('/api/agent/forecast?detail=summary', partner.key, as);
      if (row.orgId === 'pf-none') {
        expect(fr.status).toBe(404);
        for (const k of ['forecastAsOfDate', 'forecastComputedAt', 'minClosingCash', 'minClosingCashWeekIndex', 'minClosingCashWeekStart', 'shortfallProbability', 'shortfallThreshold', 'headroom'] as const) {
          expect(row[k], k).toBeNull();
        }
        continue;
      }
      const f = await fr.json();
      expect(row.forecastAsOfDate).toBe(f.asOfDate);
      expect(row.forecastComputedAt).toBe(f.computedAt);
      expect(row.minClosingCash).toBe(f.minClosingCash);
      expect(row.minClosingCashWeekIndex).toBe(f.minClosingCashWeekIndex);
      expect(row.minClosingCashWeekStart).toBe(f.weeks[f.minClosingCashWeekIndex].weekStart);
      expect(row.shortfallProbability).toBe(f.shortfall?.probability ?? null);
      expect(row.shortfallThreshold).toBe(f.shortfall?.threshold ?? (row.orgId === 'pf-mid-b' ? '5000' : '0'));
      expect(dec(row.headroom!).equals(dec(row.minClosingCash!).minus(row.shortfallThreshold!))).toBe(true);
    }
    // The fixture covers each kind of ledger alert and both kinds of forecast.
    const byId = new Map((body.orgs as Row[]).map((r) => [r.orgId, r]));
    expect(byId.get('pf-high')!.ledgerAlert).toBeNull();
    expect(byId.get('pf-mid-a')!.ledgerAlert).toMatchObject({ kind: 'reconnect_required', reason: 'token_expired' });
    expect(byId.get('pf-mid-b')!.ledgerAlert).toMatchObject({ kind: 'no_connection' });
    expect(byId.get('pf-nobands')!.ledgerAlert).toMatchObject({ kind: 'service_issue', reason: 'stale' });
    expect(byId.get('pf-nobands')!.shortfallProbability).toBeNull();
    expect(byId.get('pf-high')!.shortfallProbability).toBe(0.6);
    expect(byId.get('pf-mid-b')!.shortfallThreshold).toBe('5000');
    expect([...byId.values()].some((r) => dec(r.overdueReceivables!).gt(0))).toBe(true);
    api.clock.advance(61_000);
  });

  it('sorted by risk: shortfall probability, then headroom, then overdue; no bands after every probability; no forecast last', async () => {
    const { body } = await page(partner.key, '?limit=100');
    const rows = body.orgs as Row[];
    const [a, b] = [rows.find((r) => r.orgId === 'pf-mid-a')!, rows.find((r) => r.orgId === 'pf-mid-b')!];
    // The tie on probability is broken by the headroom, lowest first.
    const mids = dec(a.headroom!).lt(b.headroom!) ? ['pf-mid-a', 'pf-mid-b'] : ['pf-mid-b', 'pf-mid-a'];
    expect(rows.map((r) => r.orgId)).toEqual(['pf-high', ...mids, 'pf-nobands', 'pf-none']);
    api.clock.advance(61_000);
  });

  it('pages with limit and cursor: the same rows in the same order, none twice; one credit per row, from each organisation', async () => {
    const whole = (await page(partner.key, '?limit=100')).body.orgs.map((r: Row) => r.orgId);
    const before = Object.fromEntries(await Promise.all(LINKED.map(async (o) => [o, await used(partner.key, o)] as const)));
    const { rows, pages } = await all(partner.key, 2);
    expect(pages).toBe(3);
    expect(rows.map((r) => r.orgId)).toEqual(whole);
    // Every organisation was read once: one credit each, from its own allowance.
    for (const o of LINKED) expect(await used(partner.key, o), o).toBe(before[o]! + 1);
    const first = await page(partner.key, '?limit=2');
    expect(first.body).toMatchObject({ totalCount: LINKED.length, charged: 2 });
    expect(first.body.stoppedEarly).toBeUndefined();
    // A cursor is bound to the practice: another partner of the same organisations cannot use it; a tampered one is refused.
    const other = await api.partner([...LINKED]);
    expect((await page(other.key, `?cursor=${first.body.nextCursor}`)).body.error).toBe('invalid_cursor');
    expect((await page(partner.key, `?cursor=${first.body.nextCursor.slice(0, -2)}AA`)).body.error).toBe('invalid_cursor');
    // limit is checked like the lists' (capped above 100, 400 below 1).
    expect((await page(partner.key, '?limit=0')).body).toMatchObject({ error: 'bad_request', parameter: 'limit' });
    expect((await page(partner.key, '?limit=500')).body.orgs).toHaveLength(LINKED.length);
    api.clock.advance(61_000);
  });

  it('a user key is refused with 403 forbidden, before any credit; a partner key needs READ_FORECAST', async () => {
    const user = await api.key('pf-high');
    const before = (await (await get('/api/agent/status', user)).json()).usage.remaining;
    const r = await page(user);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('forbidden');
    expect(r.body.message).toMatch(/partner/);
    expect((await (await get('/api/agent/status', user)).json()).usage.remaining).toBe(before);
    const noForecast = await api.partner([...LINKED], SCOPES.filter((x) => x !== 'READ_FORECAST'));
    expect((await page(noForecast.key)).body).toMatchObject({ error: 'insufficient_scope' });
  });

  it('an unlinked organisation never appears, and naming one is 403; naming a linked one still covers them all, with a warning', async () => {
    const { rows } = await all(partner.key, 1);
    expect(rows.map((r) => r.orgId)).not.toContain('pf-other');
    expect(JSON.stringify(rows)).not.toContain('Other Practice Client');
    expect((await page(partner.key, '', { 'x-service-org-id': 'pf-other' })).status).toBe(403);
    expect((await page(partner.key, '?orgId=pf-other')).status).toBe(403);
    const named = await page(partner.key, '?limit=100', { 'x-service-org-id': 'pf-high' });
    expect(named.status).toBe(200);
    expect(named.body.orgs).toHaveLength(LINKED.length);
    expect(named.body.charged).toBe(LINKED.length);
    expect(named.body.warnings).toEqual([expect.objectContaining({ parameter: 'X-Service-Org-Id', value: 'pf-high' })]);
    api.clock.advance(61_000);
  });

  it('no contact name in any row (sensitive or not); overdue receivables only with READ_INVOICES or READ_SUMMARY', async () => {
    for (const scopes of [SCOPES, SCOPES.filter((x) => x !== 'READ_SENSITIVE')]) {
      const p = await api.partner([...LINKED], scopes);
      const text = await (await get(`${PATH}?limit=100`, p.key)).text();
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('Sensitive contact');
    }
    const forecastOnly = await api.partner([...LINKED], ['READ_FORECAST']);
    const { body } = await page(forecastOnly.key, '?limit=100');
    expect(body.orgs).toHaveLength(LINKED.length);
    for (const r of body.orgs as Row[]) expect(r.overdueReceivables).toBeNull();
    api.clock.advance(61_000);
  });
});

describe.each(BACKENDS)('portfolio credits when an organisation runs out, on %s', (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('the page stops before the organisation whose credits are used up (nextCursor resumes there); quota_exhausted when the first does not fit', async () => {
    // No forecasts and nothing owed: the order is the name. Qb is on the Free plan (10 credits per 5 hours).
    await api.org({ id: 'qa', name: 'Qa Reserve', plan: 'Reserve' });
    await api.org({ id: 'qb', name: 'Qb Free', plan: 'Free' });
    await api.org({ id: 'qc', name: 'Qc Reserve', plan: 'Reserve' });
    const p = await api.partner(['qa', 'qb', 'qc']);
    const usage = async (o: string) => {
      const u = (await (await api.get('/api/agent/status', p.key, { 'x-service-org-id': o })).json()).usage;
      return (o === 'qb' ? 10 : 5000) - (u.remaining as number);
    };
    for (let i = 0; i < 10; i++) {
      const r = await api.get(PATH, p.key);
      expect((await r.json()).charged).toBe(3);
    }
    expect(await usage('qb')).toBe(10);
    const r = await api.get(`${PATH}?limit=3`, p.key);
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.orgs.map((x: Row) => x.orgId)).toEqual(['qa']);
    expect(body.charged).toBe(1);
    expect(body.stoppedEarly).toMatchObject({ reason: 'quota_exhausted', orgId: 'qb' });
    expect(body.stoppedEarly.retryAfterSeconds).toBeGreaterThan(0);
    expect(body.nextCursor).toEqual(expect.any(String));
    expect([await usage('qa'), await usage('qb'), await usage('qc')]).toEqual([11, 10, 10]);
    // Resuming at qb: nothing fits, so the answer is 429 quota_exhausted with Retry-After, and nothing is charged.
    const resumed = await api.get(`${PATH}?limit=3&cursor=${encodeURIComponent(body.nextCursor)}`, p.key);
    expect(resumed.status).toBe(429);
    expect(resumed.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await resumed.json()).error).toBe('quota_exhausted');
    expect([await usage('qa'), await usage('qb'), await usage('qc')]).toEqual([11, 10, 10]);
    // Five hours later qb's credits are back.
    api.clock.advance(5 * 60 * 60 * 1000 + 1000);
    const later = await api.get(`${PATH}?limit=3&cursor=${encodeURIComponent(body.nextCursor)}`, p.key);
    expect(later.status).toBe(200);
    expect((await later.json()).orgs.map((x: Row) => x.orgId)).toEqual(['qb', 'qc']);
  });
});
