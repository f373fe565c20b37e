/**
 * What if (issue 18, docs/forecast.md#what-if): GET /api/agent/forecast with
 * receiptsDelayDays, excludeContact, inflowPercent, outflowPercent or oneOff
 * computes the forecast for that request only, with bands, echoes what it
 * understood (whatIf) and the same forecast without it; nothing is stored,
 * and the next plain GET /forecast is what it was. On a demo business,
 * both backends.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { BACKENDS } from './helpers/store.js';
import { startTestApi, type TestApi } from './helpers/http.js';
import { orgWithDemoBooks } from './helpers/demo-books.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { SCOPES } from '../src/domain/scopes.js';
import { D } from '../src/domain/money.js';
import { rows } from '../src/store/db.js';
import { saveManualItems } from '../src/store/queries/manual-items.js';
import { ForecastResponse } from '../src/schemas/forecast.js';
import { ENDPOINTS } from '../src/schemas/endpoints.js';
import { callTool } from '../src/mcp/server.js';
import { NO_LIMITS } from '../bench/no-limits.js';

const NOW = '2026-11-23T09:00:00Z';
const NO_SENSITIVE = SCOPES.filter((x) => x !== 'READ_SENSITIVE');
type Forecast = z.infer<typeof ForecastResponse>;

describe.each(BACKENDS)('what-if parameters on GET /api/agent/forecast on %s', (kind) => {
  let api: TestApi;
  let org: string;
  let full: string;
  let gated: string;
  let sensitiveNames: string[] = [];

  async function get(query: string, key = full): Promise<{ status: number; text: string; body: Forecast & { error?: string; parameter?: string; message?: string } }> {
    const res = await api.get(`/api/agent/forecast${query ? `?${query}` : ''}`, key);
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) };
  }
  const closings = (f: Forecast) => f.weeks.map((w) => w.closing);
  const stored = async () =>
    (
      await rows<{ n: string; latest: string }>(
        api.store.db,
        sql`select count(*) as n, max(computed_at)::text as latest from forecast_snapshots where org_id = ${org}`,
      )
    )[0]!;

  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW, limiter: () => NO_LIMITS });
    org = (await orgWithDemoBooks(api, { name: 'What If Co', now: new Date(NOW), seed: 23 })).orgId;
    const names = await rows<{ name: string }>(api.store.db, sql`select name from contacts where org_id = ${org} and is_sensitive`);
    sensitiveNames = names.map((n) => n.name);
    // Stored at the very instant the what-ifs are computed (the clock is frozen): the same books, the same day.
    await recomputeForecast(api.store.db, org, new Date(NOW));
    full = await api.key(org);
    gated = await api.key(org, NO_SENSITIVE);
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('leaves stored state untouched: the next plain forecast is byte for byte what it was, no snapshot or scenario is written', async () => {
    const before = await get('');
    const snaps = await stored();
    const [scenarios] = await rows<{ n: string }>(api.store.db, sql`select count(*) as n from forecast_scenarios where org_id = ${org}`);
    const w = await get('receiptsDelayDays=21&inflowPercent=80&outflowPercent=120&oneOff=-40000@2026-12-10');
    expect(w.status).toBe(200);
    expect(w.body.whatIf?.computed).toBe('this_request');
    const after = await get('');
    expect(after.text).toBe(before.text);
    expect(before.body.whatIf).toBeUndefined();
    expect(await stored()).toEqual(snaps);
    const [again] = await rows<{ n: string }>(api.store.db, sql`select count(*) as n from forecast_scenarios where org_id = ${org}`);
    expect(again!.n).toEqual(scenarios!.n);
  });

  it('a what-if that changes nothing is the stored forecast: same weeks, and its baseline is the stored figures', async () => {
    const plain = (await get('')).body;
    const w = (await get('inflowPercent=100')).body;
    expect(closings(w)).toEqual(closings(plain));
    expect(w.weeks.map((x) => x.bands)).toEqual(plain.weeks.map((x) => x.bands));
    expect(w.whatIf).toMatchObject({
      receiptsDelayDays: 0,
      excludeContact: [],
      excludedReceiptCount: 0,
      inflowPercent: 100,
      outflowPercent: 100,
      oneOff: [],
      baseline: { endingCash: plain.endingCash, minClosingCash: plain.minClosingCash, minClosingCashWeekIndex: plain.minClosingCashWeekIndex },
      change: { endingCash: '0', minClosingCash: '0' },
    });
    expect(ForecastResponse.safeParse(w).success).toBe(true);
  });

  it('oneOff: a payment lowers every closing from its week on by exactly its amount, not scaled by outflowPercent; change says so', async () => {
    const plain = (await get('')).body;
    const k = plain.weeks.findIndex((w) => w.weekStart <= '2026-12-16' && w.weekEnd >= '2026-12-16');
    const w = (await get('oneOff=-25000.5@2026-12-16')).body;
    w.weeks.forEach((x, i) => expect(D(x.closing).minus(plain.weeks[i]!.closing).toFixed(), `week ${i}`).toBe(i < k ? '0' : '-25000.5'));
    expect(w.whatIf!.oneOff).toEqual([{ id: 'what-if:one-off:1', amount: '-25000.5', date: '2026-12-16' }]);
    expect(w.whatIf!.change.endingCash).toBe('-25000.5');
    expect(w.weeks[k]!.itemIds).toContain('what-if:one-off:1');
    // With outflows scaled, the one-off still moves closing by its own amount.
    const scaled = (await get('outflowPercent=110')).body;
    const both = (await get('outflowPercent=110&oneOff=-25000.5@2026-12-16')).body;
    both.weeks.forEach((x, i) => expect(D(x.closing).minus(scaled.weeks[i]!.closing).toFixed()).toBe(i < k ? '0' : '-25000.5'));
    // Repeated and comma-separated alike; a receipt counts in.
    const two = (await get('oneOff=1000@2026-12-16&oneOff=-250@2027-01-05,300@2026-11-01')).body;
    expect(two.whatIf!.oneOff.map((o) => o.amount)).toEqual(['1000', '-250', '300']);
    expect(D(two.endingCash).minus(plain.endingCash).toFixed()).toBe('1050');
  });

  it('inflowPercent and outflowPercent scale every inflow and outflow of the week exactly (to the cent of each item)', async () => {
    const plain = (await get('')).body;
    const w = (await get('inflowPercent=50&outflowPercent=200')).body;
    w.weeks.forEach((x, i) => {
      // Each item is scaled and rounded to the cent: within half a cent per item of the exact product.
      const items = (plain.weeks[i]!.itemIds ?? []).length;
      expect(D(x.inflow).minus(D(plain.weeks[i]!.inflow).times(0.5)).abs().toNumber()).toBeLessThanOrEqual(0.005 * items + 1e-9);
      expect(D(x.outflow).minus(D(plain.weeks[i]!.outflow).times(2)).abs().toNumber()).toBeLessThanOrEqual(0.005 * items + 1e-9);
      expect(D(x.closing).equals(D(x.opening).plus(x.inflow).minus(x.outflow))).toBe(true);
    });
    expect(w.whatIf!.change.endingCash).toBe(D(w.endingCash).minus(plain.endingCash).toFixed());
  });

  it("excludeContact: the customer's expected receipts leave every week, its bills stay; receiptsDelayDays moves receipts later", async () => {
    const [top] = await rows<{ contact_id: string; n: string }>(
      api.store.db,
      sql`select contact_id, count(*) as n from cash_items where org_id = ${org} and ledger_type = 'ACCREC' and ledger_status = 'AUTHORISED' and amount_due > 0
          group by contact_id order by sum(amount_due) desc, contact_id limit 1`,
    );
    const invoices = (
      await rows<{ id: string }>(api.store.db, sql`select id from cash_items where org_id = ${org} and contact_id = ${top!.contact_id} and ledger_type = 'ACCREC' and ledger_status = 'AUTHORISED' and amount_due > 0`)
    ).map((r) => r.id);
    const plain = (await get('')).body;
    expect(plain.weeks.flatMap((w) => w.itemIds)).toEqual(expect.arrayContaining(invoices));
    const w = (await get(`excludeContact=${top!.contact_id}&excludeContact=no-such-contact`)).body;
    const ids = new Set(w.weeks.flatMap((x) => x.itemIds));
    for (const id of invoices) expect(ids.has(id), id).toBe(false);
    expect(w.whatIf!.excludeContact).toEqual([top!.contact_id, 'no-such-contact']);
    expect(w.whatIf!.excludedReceiptCount).toBeGreaterThanOrEqual(invoices.length);
    expect(D(w.totalInflow!).lessThan(plain.totalInflow!)).toBe(true);
    expect(w.totalOutflow).toBe(plain.totalOutflow);
    const late = (await get('receiptsDelayDays=45')).body;
    expect(D(late.endingCash).lessThan(plain.endingCash)).toBe(true);
    expect(late.totalOutflow).toBe(plain.totalOutflow);
    const early = (await get('receiptsDelayDays=-10')).body;
    expect(early.whatIf!.receiptsDelayDays).toBe(-10);
  });

  it('bad values are a 400 naming the parameter, never a 500', async () => {
    const cases: [string, string][] = [
      ['receiptsDelayDays=abc', 'receiptsDelayDays'],
      ['receiptsDelayDays=366', 'receiptsDelayDays'],
      ['receiptsDelayDays=1.5', 'receiptsDelayDays'],
      ['receiptsDelayDays=', 'receiptsDelayDays'],
      ['inflowPercent=-1', 'inflowPercent'],
      ['inflowPercent=1000.01', 'inflowPercent'],
      ['outflowPercent=12.345', 'outflowPercent'],
      ['outflowPercent=1e3', 'outflowPercent'],
      ['oneOff=abc', 'oneOff'],
      ['oneOff=100@2026-02-30', 'oneOff'],
      ['oneOff=0@2026-12-01', 'oneOff'],
      ['oneOff=1.234@2026-12-01', 'oneOff'],
      ['oneOff=1000', 'oneOff'],
      [`oneOff=${Array.from({ length: 21 }, (_, i) => `${i + 1}@2026-12-01`).join(',')}`, 'oneOff'],
      [`excludeContact=${'x'.repeat(101)}`, 'excludeContact'],
      [Array.from({ length: 51 }, (_, i) => `excludeContact=c${i}`).join('&'), 'excludeContact'],
    ];
    for (const [query, parameter] of cases) {
      const r = await get(query);
      expect([r.status, r.body.parameter], query).toEqual([400, parameter]);
      expect(r.body.message, query).toMatch(new RegExp(`^${parameter}: `));
    }
    expect((await get('scenarioId=nope&inflowPercent=90')).status).toBe(404);
  });

  it('works on every scenario and redacts like the plain forecast: no sensitive name for a key without READ_SENSITIVE', async () => {
    const worst = (await get('scenarioId=worst')).body;
    const w = (await get('scenarioId=worst&inflowPercent=100')).body;
    expect(closings(w)).toEqual(closings(worst));
    const g = await get('receiptsDelayDays=7&detail=full', gated);
    expect(g.status).toBe(200);
    for (const name of sensitiveNames) expect(g.text.includes(name), name).toBe(false);
  });

  it('after a recompute the what-if reads the books again: a manual line added and recomputed is in it (the model is kept per snapshot)', async () => {
    const first = (await get('inflowPercent=100')).body;
    await saveManualItems(api.store.db, org, [{ id: 'grant', date: '2026-12-02', amount: '12345.67' }], new Date(NOW));
    // Not yet recomputed: the what-if keeps the model of the latest snapshot, as the plain forecast keeps the snapshot.
    expect(closings((await get('inflowPercent=100')).body)).toEqual(closings(first));
    await recomputeForecast(api.store.db, org, new Date(Date.parse(NOW) + 1000));
    const plain = (await get('')).body;
    const again = (await get('inflowPercent=100')).body;
    expect(closings(again)).toEqual(closings(plain));
    expect(D(again.endingCash).minus(first.endingCash).toFixed()).toBe('12345.67');
    await saveManualItems(api.store.db, org, [], new Date(NOW));
    await recomputeForecast(api.store.db, org, new Date(Date.parse(NOW) + 2000));
  });

  it('the CLI and the MCP forecast tool take the same parameters (typed inputs, the server checking them)', async () => {
    const e = ENDPOINTS.find((x) => x.name === 'forecast')!;
    const ok = await callTool({ baseUrl: api.url }, e, { inflowPercent: 90, receiptsDelayDays: -5, oneOff: '-1000@2026-12-16,500@2027-01-04' }, full);
    expect(ok.isError).toBeFalsy();
    const body = ok.structuredContent as Forecast;
    expect(body.whatIf).toMatchObject({ inflowPercent: 90, receiptsDelayDays: -5, oneOff: [{ amount: '-1000' }, { amount: '500' }] });
    const bad = await callTool({ baseUrl: api.url }, e, { inflowPercent: 2000 }, full);
    expect(bad.isError).toBe(true);
  });
});
