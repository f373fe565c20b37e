/**
 * GET /api/agent/forecast, /cash-position and /daily-summary through real
 * HTTP on PGlite and PostgreSQL (issue 9). Each test names the rule of
 * agent-read-api.md (spec) or decisions.md it proves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { BACKENDS } from './helpers/store.js';
import { okBody, startTestApi, type TestApi } from './helpers/http.js';
import { SCOPES, type Scope } from '../src/domain/scopes.js';
import { D, dec, isCanonical } from '../src/domain/money.js';
import { rows } from '../src/store/db.js';
import * as s from '../src/store/schema.js';
import { insertSynthetic, syntheticLedger } from '../src/backtest/synthetic.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { loadCashEvents } from '../src/store/queries/daily-summary.js';
import { pendingAnomalies } from '../src/domain/forecast/daily.js';
import { ENGINE_VERSION } from '../src/domain/forecast/project.js';
import { ENDPOINTS } from '../src/schemas/endpoints.js';
import { callTool } from '../src/mcp/server.js';
import { CashPositionResponse, DailySummaryResponse, ForecastResponse } from '../src/schemas/forecast.js';

const NO_SENSITIVE = SCOPES.filter((x) => x !== 'READ_SENSITIVE');
// Sunday 22 November 2026, 14:00 UTC: already Monday 23 November in Sydney.
const NOW = '2026-11-22T14:00:00Z';

describe.each(BACKENDS)('forecast endpoints over HTTP on %s', (kind) => {
  let api: TestApi;
  let full: string;
  let gated: string;

  const key = (scopes: readonly Scope[] = SCOPES, org = 'f1') => api.key(org, scopes);

  async function getJson<S extends z.ZodTypeAny>(schema: S | null, path: string, k: string) {
    const res = await api.get(path, k);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status === 200 && schema) {
      const parsed = schema.safeParse(body);
      expect(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues?.slice(0, 3))}`).toBe(true);
    }
    return { status: res.status, body: body as z.infer<S> & Record<string, unknown> };
  }

  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW });
    await api.org({ id: 'f1', name: 'Forecast Co', plan: 'Reserve', timezone: 'Australia/Sydney' });
    await api.org({ id: 'f2', name: 'Empty Co', plan: 'Reserve', timezone: 'Australia/Sydney' });
    await insertSynthetic(api.store.db, syntheticLedger('f1', { seed: 7, asOf: '2026-11-22', customers: 30, years: 1.5 }));
    // Sensitive: the rent account (a forecast category) and the bank account (cash position).
    await api.store.db.update(s.accounts).set({ isSensitive: true }).where(and(eq(s.accounts.orgId, 'f1'), sql`${s.accounts.id} in ('acc-rent', 'acc-bank')`));
    // An unusual receipt in the last 7 days (a pending anomaly).
    await api.store.db.insert(s.bankTransactions).values({
      orgId: 'f1', id: 'bt-grant', type: 'RECEIVE', contactId: null, bankAccountId: 'acc-bank', date: '2026-11-21', status: 'AUTHORISED',
      isReconciled: true, reference: 'Grant', currency: 'EUR', subTotal: '1000000', totalTax: '0', total: '1000000', lines: [], lastSyncedAt: new Date(NOW),
    });
    await recomputeForecast(api.store.db, 'f1', new Date(NOW));
    full = await key();
    gated = await key(NO_SENSITIVE);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('spec 4.1 / 5.5: forecast and cash-position need READ_FORECAST, daily-summary READ_SUMMARY (403 insufficient_scope)', async () => {
    for (const [path, scope] of [
      ['/api/agent/forecast', 'READ_FORECAST'],
      ['/api/agent/cash-position', 'READ_FORECAST'],
      ['/api/agent/daily-summary', 'READ_SUMMARY'],
    ] as const) {
      const without = await key(SCOPES.filter((x) => x !== scope));
      const r = await api.get(path, without);
      expect(r.status, path).toBe(403);
      expect((await r.json()).error).toBe('insufficient_scope');
      const only = await key([scope]);
      expect((await api.get(path, only)).status, path).toBe(200);
    }
  });

  it('spec 2.3: 13 weeks from the Monday of the current week in the org time zone; closing = opening + inflow - outflow exactly; guaranteed + forecast = inflow', async () => {
    const { status, body } = await getJson(ForecastResponse, '/api/agent/forecast', full);
    expect(status).toBe(200);
    expect(body.weeks).toHaveLength(13);
    expect(body.weeks[0]!.weekStart).toBe('2026-11-23'); // UTC is still Sunday the 22nd
    expect(body.weeks[12]!.weekEnd).toBe('2027-02-21');
    expect(body).toMatchObject({ scenarioId: 'base', scenarioKind: 'BASE', engineVersion: ENGINE_VERSION, computedAt: '2026-11-22T14:00:00.000Z', redactedItemCount: 0 });
    let opening = dec(body.startingCash);
    let tin = new D(0);
    for (const w of body.weeks) {
      for (const v of [w.opening, w.inflow, w.outflow, w.net, w.closing, w.guaranteedInflow!, w.forecastInflow!]) expect(isCanonical(v)).toBe(true);
      expect(dec(w.opening).eq(opening)).toBe(true);
      expect(dec(w.closing).eq(dec(w.opening).plus(w.inflow).minus(w.outflow))).toBe(true);
      expect(dec(w.guaranteedInflow!).plus(w.forecastInflow!).eq(w.inflow)).toBe(true);
      opening = dec(w.closing);
      tin = tin.plus(w.inflow);
    }
    expect(dec(body.endingCash).eq(opening)).toBe(true);
    expect(dec(body.totalInflow!).eq(tin)).toBe(true);
    expect(body.weeks.some((w) => w.itemIds!.length > 0)).toBe(true);
    expect(body.notesForAgent!.length).toBeGreaterThan(0);
  });

  it('issue 17: every week states its P10/P50/P90 of inflow, outflow and closing and its shortfall probability; the answer the 13-week shortfall and the calibration (null before the nightly calibration ran)', async () => {
    const { body } = await getJson(ForecastResponse, '/api/agent/forecast?weeks=4', full);
    expect(body.weeks).toHaveLength(4);
    for (const w of body.weeks) {
      for (const band of [w.bands!.inflow, w.bands!.outflow, w.bands!.closing]) {
        for (const v of [band.p10, band.p50, band.p90]) expect(isCanonical(v)).toBe(true);
        expect(dec(band.p10).lte(band.p50) && dec(band.p50).lte(band.p90)).toBe(true);
      }
      expect(dec(w.bands!.inflow.p10).gte(0)).toBe(true);
      expect(w.bands!.calibrated).toBe(false);
      expect(w.shortfallProbability).toBeGreaterThanOrEqual(0);
      expect(w.shortfallProbability).toBeLessThanOrEqual(1);
    }
    // The shortfall covers the 13 weeks whatever `weeks` returns: at least each week's own probability.
    expect(body.shortfall!.threshold).toBe('0');
    expect(body.shortfall!.probability).toBeGreaterThanOrEqual(Math.max(...body.weeks.map((w) => w.shortfallProbability!)) - 1e-9);
    expect(body.calibration).toBeNull();
  });

  it('issue 19: detail=summary keeps the figures, bands, shortfall and notes without item ids and categories; a bad detail is a 400 naming it; the MCP forecast tool answers with summary unless told full', async () => {
    const forecast = api.client(full).api.agent.forecast;
    const all = await okBody(await forecast.$get({ query: {} }));
    const summary = await okBody(await forecast.$get({ query: { detail: 'summary' } }));
    expect(summary.weeks).toEqual(all.weeks.map(({ itemIds: _i, overdueItemIds: _o, categories: _c, ...w }) => w));
    expect(summary.weeks.every((w) => w.itemIds === undefined && w.categories === undefined && w.bands !== undefined)).toBe(true);
    const { weeks: _a, ...restAll } = all;
    const { weeks: _s, ...restSummary } = summary;
    expect({ ...restSummary, redactedItemCount: 0 }).toEqual({ ...restAll, redactedItemCount: 0 });
    expect(JSON.stringify(summary).length).toBeLessThan(JSON.stringify(all).length);
    const bad = await forecast.$get({ query: { detail: 'brief' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'bad_request', parameter: 'detail' });
    const tool = ENDPOINTS.find((e) => e.name === 'forecast')!;
    const byTool = JSON.parse((((await callTool({ baseUrl: api.url }, tool, {}, full)).content as { text: string }[]).at(-1)!).text) as typeof summary;
    expect(byTool.weeks).toEqual(summary.weeks);
    const fullByTool = JSON.parse((((await callTool({ baseUrl: api.url }, tool, { detail: 'full' }, full)).content as { text: string }[]).at(-1)!).text) as typeof all;
    expect(fullByTool.weeks[0]!.itemIds).toEqual(all.weeks[0]!.itemIds);
  });

  it('issue 19: GET /scenarios lists BASE, BEST, WORST and the custom ones with what they change and their latest headline, the same figures /forecast gives; READ_FORECAST', async () => {
    const body = await okBody(await api.client(full).api.agent.scenarios.$get());
    expect(body.scenarios.map((s) => s.kind).slice(0, 3)).toEqual(['BASE', 'BEST', 'WORST']);
    expect(body.scenarios.find((s) => s.kind === 'WORST')!.adjustments).toEqual({ inflowFactor: '0.9', outflowFactor: '1.05', paymentDelayShiftDays: 7 });
    for (const s of body.scenarios) {
      const f = await okBody(await api.client(full).api.agent.forecast.$get({ query: { scenarioId: s.id, detail: 'summary' } }));
      expect(s.latestForecast).toEqual({
        computedAt: f.computedAt,
        asOfDate: f.asOfDate,
        endingCash: f.endingCash,
        minClosingCash: f.minClosingCash,
        shortfallProbability: f.shortfall!.probability,
      });
    }
    expect((await api.get('/api/agent/scenarios', await key(SCOPES.filter((x) => x !== 'READ_FORECAST')))).status).toBe(403);
  });

  it('decisions.md forecast: weeks 1-13 (default 13) cuts the horizon, totals over it; anything else is a 400 naming weeks', async () => {
    const forecast = api.client(full).api.agent.forecast;
    const all = await okBody(await forecast.$get({ query: {} }));
    const body = await okBody(await forecast.$get({ query: { weeks: '4' } }));
    expect(body.weeks).toEqual(all.weeks.slice(0, 4));
    expect(body.endingCash).toBe(all.weeks[3]!.closing);
    expect(dec(body.totalOutflow!).eq(all.weeks.slice(0, 4).reduce((a, w) => a.plus(w.outflow), new D(0)))).toBe(true);
    for (const bad of ['0', '14', 'abc', '1.5', '-1', '']) {
      const r = await forecast.$get({ query: { weeks: bad } });
      expect(r.status, bad).toBe(400);
      expect(await r.json()).toMatchObject({ error: 'bad_request', parameter: 'weeks' });
    }
  });

  it('decisions.md forecast: scenarioId picks the scenario (default BASE); unknown is 404 not_found; empty is a 400 naming scenarioId', async () => {
    const base = (await getJson(ForecastResponse, '/api/agent/forecast', full)).body;
    const best = (await getJson(ForecastResponse, '/api/agent/forecast?scenarioId=best', full)).body;
    const worst = (await getJson(ForecastResponse, '/api/agent/forecast?scenarioId=worst', full)).body;
    expect([best.scenarioKind, worst.scenarioKind]).toEqual(['BEST', 'WORST']);
    expect(dec(best.endingCash).gt(base.endingCash)).toBe(true);
    expect(dec(worst.endingCash).lt(base.endingCash)).toBe(true);
    const unknown = await api.get('/api/agent/forecast?scenarioId=nope', full);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toBe('not_found');
    const empty = await api.get('/api/agent/forecast?scenarioId=', full);
    expect(empty.status).toBe(400);
    expect((await empty.json()).parameter).toBe('scenarioId');
  });

  it('spec 2.3 redactedItemCount: sensitive account names in weeks[].categories become `Sensitive account`, counted per (week, account); amounts never masked', async () => {
    const a = (await getJson(ForecastResponse, '/api/agent/forecast', full)).body;
    const b = (await getJson(ForecastResponse, '/api/agent/forecast', gated)).body;
    let pairs = 0;
    a.weeks.forEach((w, k) => {
      const g = b.weeks[k]!;
      expect([g.opening, g.inflow, g.outflow, g.closing]).toEqual([w.opening, w.inflow, w.outflow, w.closing]);
      for (const [id, entry] of Object.entries(w.categories!.accounts)) {
        const ge = g.categories!.accounts[id]!;
        expect([ge.inflow, ge.outflow]).toEqual([entry.inflow, entry.outflow]);
        if (id === 'acc-rent' || id === 'acc-bank') {
          pairs++;
          expect(entry.name).not.toBe('Sensitive account');
          expect(ge.name).toBe('Sensitive account');
        } else expect(ge.name).toBe(entry.name);
      }
    });
    expect(pairs).toBeGreaterThan(0); // rent is paid monthly: several weeks carry it
    expect(b.redactedItemCount).toBe(pairs);
    expect(a.redactedItemCount).toBe(0);
  });

  it('spec 2.2: cash position of the latest snapshot equals the forecast start; sensitive bank account renamed (redactedItemCount); 0 with READ_SENSITIVE', async () => {
    const f = (await getJson(ForecastResponse, '/api/agent/forecast', full)).body;
    const a = (await getJson(CashPositionResponse, '/api/agent/cash-position', full)).body;
    const b = (await getJson(CashPositionResponse, '/api/agent/cash-position', gated)).body;
    expect(a).toMatchObject({ asOfDate: '2026-11-23', source: 'ledger_reconciled', startingCash: f.startingCash, effectiveStartingCash: f.startingCash, redactedItemCount: 0 });
    expect(a.computedAt).toBe(f.computedAt);
    const [bal] = await rows<{ r: string }>(api.store.db, sql`select reconciled_balance::text as r from bank_balances where org_id = 'f1' and account_id = 'acc-bank'`);
    expect(dec(a.ledgerReconciledTotal).eq(dec(bal!.r))).toBe(true);
    expect(dec(a.effectiveStartingCash).minus(a.ledgerReconciledTotal).eq(a.adjustment)).toBe(true);
    expect(a.accounts.map((x) => x.name)).toEqual(['Operating Account']);
    expect(b.accounts.map((x) => x.name)).toEqual(['Sensitive account']);
    expect(b.redactedItemCount).toBe(1);
    expect(b.accounts[0]!.reconciledBalance).toBe(a.accounts[0]!.reconciledBalance);
  });

  it('reads serve the latest snapshot; an engineVersion 1 snapshot reads with forecastInflow 0 and no guaranteedInflow (spec 9)', async () => {
    const first = (await getJson(ForecastResponse, '/api/agent/forecast', full)).body;
    const later = new Date('2026-11-23T01:00:00Z');
    const v1Weeks = first.weeks.map(({ guaranteedInflow: _g, forecastInflow: _f, ...w }) => w);
    await api.store.db.insert(s.forecastSnapshots).values({
      orgId: 'f1', id: 'base:v1', scenarioId: 'base', engineVersion: 1, asOfDate: '2026-11-23', computedAt: later,
      payload: { ...first, engineVersion: 1, computedAt: later.toISOString(), weeks: v1Weeks },
    });
    const v1 = (await getJson(ForecastResponse, '/api/agent/forecast', full)).body;
    expect(v1.computedAt).toBe(later.toISOString());
    expect(v1.engineVersion).toBe(1);
    expect(v1.weeks.every((w) => w.forecastInflow === '0' && w.guaranteedInflow === undefined)).toBe(true);
    // A new computation supersedes it.
    const newest = new Date('2026-11-23T02:00:00Z');
    await recomputeForecast(api.store.db, 'f1', newest);
    const again = (await getJson(ForecastResponse, '/api/agent/forecast', full)).body;
    expect(again).toMatchObject({ engineVersion: ENGINE_VERSION, computedAt: newest.toISOString() });
  });

  it('spec 2.8 / decisions.md: daily summary - cash today, bank accounts, last 7 days, AR ageing, 13-week outlook, anomalies, narrative', async () => {
    const { status, body } = await getJson(DailySummaryResponse, '/api/agent/daily-summary', full);
    expect(status).toBe(200);
    const cp = (await getJson(CashPositionResponse, '/api/agent/cash-position', full)).body;
    const f = (await getJson(ForecastResponse, '/api/agent/forecast', full)).body;
    expect(body).toMatchObject({ orgName: 'Forecast Co', asOfDate: '2026-11-23', bankAccounts: 1, generatedAt: '2026-11-22T14:00:00.000Z', redactedItemCount: 0 });
    expect(body.cashToday).toEqual({ amount: cp.effectiveStartingCash, currency: cp.currency, source: 'ledger_reconciled' });
    const l = body.last7d;
    expect(dec(l.net).eq(dec(l.inflow).minus(l.outflow))).toBe(true);
    // Independent: money in and out of the bank on 17-23 November, straight from the ledger tables.
    const [m] = await rows<{ i: string; o: string }>(
      api.store.db,
      sql`select coalesce(sum(case when a > 0 then a else 0 end), 0)::text as i, coalesce(sum(case when a < 0 then -a else 0 end), 0)::text as o from (
            select case when c.ledger_type = 'ACCREC' then p.amount else -p.amount end as a from payments p join cash_items c on c.org_id = p.org_id and c.id = p.item_id
              where p.org_id = 'f1' and p.status = 'AUTHORISED' and p.date between '2026-11-17' and '2026-11-23'
            union all
            select case when t.type like 'SPEND%' then -t.total else t.total end from bank_transactions t
              where t.org_id = 'f1' and t.status = 'AUTHORISED' and t.date between '2026-11-17' and '2026-11-23') x`,
    );
    expect(dec(l.inflow).eq(dec(m!.i))).toBe(true);
    expect(dec(l.outflow).eq(dec(m!.o))).toBe(true);
    for (const list of [l.topInflows, l.topOutflows]) {
      expect(list.length).toBeLessThanOrEqual(5);
      for (let i = 1; i < list.length; i++) expect(dec(list[i - 1]!.amount).gte(list[i]!.amount)).toBe(true);
      for (const e of list) expect(e.date >= '2026-11-17' && e.date < '2026-11-24').toBe(true);
    }
    expect(l.topOutflows.length).toBeGreaterThan(0);
    const ar = body.ar;
    expect(ar.total.count).toBe(ar.current.count + ar.days30.count + ar.days60.count + ar.days90.count + ar.days90plus.count);
    expect(dec(ar.total.amount).eq(dec(ar.current.amount).plus(ar.days30.amount).plus(ar.days60.amount).plus(ar.days90.amount).plus(ar.days90plus.amount))).toBe(true);
    expect(body.forecast13w.endingCash).toBe(f.endingCash);
    expect(body.forecast13w.lowestClosingCash).toBe(f.minClosingCash);
    // The SQL count follows the documented rule (pendingAnomalies) on the same movements.
    const events = await loadCashEvents(api.store.db, 'f1', '2026-08-19', '2026-11-23');
    expect(body.anomalies.pending).toBe(pendingAnomalies(events, '2026-11-23'));
    expect(body.anomalies.pending).toBeGreaterThanOrEqual(1);
    expect(l.topInflows[0]).toEqual({ contactName: 'No contact', amount: '1000000', date: '2026-11-21T00:00:00.000Z' });
    const sentences = body.narrative.split(/(?<=\.) /);
    expect(sentences.length).toBeGreaterThanOrEqual(2);
    expect(sentences.length).toBeLessThanOrEqual(4);
    // Deterministic: the same numbers, the same words.
    expect((await getJson(DailySummaryResponse, '/api/agent/daily-summary', full)).body.narrative).toBe(body.narrative);
  });

  it('spec 2.8 redactedItemCount: sensitive contacts in topInflows/topOutflows become `Sensitive contact`; amounts and totals never masked; 0 with READ_SENSITIVE', async () => {
    const before = (await getJson(DailySummaryResponse, '/api/agent/daily-summary', full)).body;
    const name = before.last7d.topOutflows[0]!.contactName;
    await api.store.db.update(s.contacts).set({ isSensitive: true }).where(and(eq(s.contacts.orgId, 'f1'), eq(s.contacts.name, name)));
    const a = (await getJson(DailySummaryResponse, '/api/agent/daily-summary', full)).body;
    const b = (await getJson(DailySummaryResponse, '/api/agent/daily-summary', gated)).body;
    expect(a.redactedItemCount).toBe(0);
    expect(a.last7d).toEqual(before.last7d);
    const expected = [...a.last7d.topInflows, ...a.last7d.topOutflows].filter((e) => e.contactName === name).length;
    expect(expected).toBeGreaterThan(0);
    expect(b.redactedItemCount).toBe(expected);
    const gatedRows = [...b.last7d.topInflows, ...b.last7d.topOutflows];
    expect(gatedRows.filter((e) => e.contactName === 'Sensitive contact')).toHaveLength(expected);
    expect(gatedRows.map((e) => e.amount)).toEqual([...a.last7d.topInflows, ...a.last7d.topOutflows].map((e) => e.amount));
    expect([b.last7d.inflow, b.last7d.outflow, b.ar, b.cashToday]).toEqual([a.last7d.inflow, a.last7d.outflow, a.ar, a.cashToday]);
    await api.store.db.update(s.contacts).set({ isSensitive: false }).where(and(eq(s.contacts.orgId, 'f1'), eq(s.contacts.name, name)));
  });

  it("issue 19: /receivables/aged is each customer's balance by the daily summary's bands, sorted by what is overdue; its totals are the daily summary's ar; it pages; sensitive names are rewritten; /payables/aged the same for suppliers", async () => {
    const summary = (await getJson(DailySummaryResponse, '/api/agent/daily-summary', full)).body;
    const aged = api.client(full).api.agent.receivables.aged;
    const all = await okBody(await aged.$get({ query: { autoPaginate: 'true' } }));
    expect(all.asOfDate).toBe(summary.asOfDate);
    for (const band of ['current', 'days30', 'days60', 'days90', 'days90plus'] as const) expect(all.totals[band], band).toBe(summary.ar[band].amount);
    expect(all.totals.total).toBe(summary.ar.total.amount);
    expect(all.totals.documents).toBe(summary.ar.total.count);
    // Each row adds up; rows are by overdue balance, largest first; the totals are the rows' sums.
    for (const r of all.contacts) {
      expect(dec(r.days30).plus(r.days60).plus(r.days90).plus(r.days90plus).eq(r.overdue)).toBe(true);
      expect(dec(r.current).plus(r.overdue).eq(r.total)).toBe(true);
    }
    for (let i = 1; i < all.contacts.length; i++) expect(dec(all.contacts[i - 1]!.overdue).gte(all.contacts[i]!.overdue)).toBe(true);
    expect(all.contacts.reduce((a, r) => a.plus(r.total), new D(0)).eq(all.totals.total)).toBe(true);
    expect(all.totalCount).toBe(all.contacts.length);
    expect(all.totalCount).toBeGreaterThan(1);
    // Paged one at a time: the same rows in the same order, then null.
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < all.totalCount + 1; i++) {
      const page = await okBody(await aged.$get({ query: { limit: '1', ...(cursor ? { cursor } : {}) } }));
      seen.push(...page.contacts.map((r) => r.contactId ?? ''));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(all.contacts.map((r) => r.contactId ?? ''));
    // A sensitive customer's name is rewritten for a key without READ_SENSITIVE; amounts stay.
    const top = all.contacts[0]!;
    await api.store.db.update(s.contacts).set({ isSensitive: true }).where(and(eq(s.contacts.orgId, 'f1'), eq(s.contacts.id, top.contactId!)));
    const hidden = await okBody(await api.client(gated).api.agent.receivables.aged.$get({ query: { autoPaginate: 'true' } }));
    expect(hidden.contacts[0]).toEqual({ ...top, contactName: 'Sensitive contact' });
    expect(hidden.redactedItemCount).toBe(1);
    await api.store.db.update(s.contacts).set({ isSensitive: false }).where(and(eq(s.contacts.orgId, 'f1'), eq(s.contacts.id, top.contactId!)));
    const payables = await okBody(await api.client(full).api.agent.payables.aged.$get({ query: {} }));
    expect(payables.contacts.every((r) => dec(r.total).gt(0))).toBe(true);
    expect((await api.get('/api/agent/receivables/aged', await key(SCOPES.filter((x) => x !== 'READ_INVOICES')))).status).toBe(403);
  });

  it('spec 9: the OpenAPI document lists the three endpoints with their response schemas and the forecast parameters', async () => {
    const doc = await (await api.get('/api/agent/openapi.json', null)).json();
    const schemaOf = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema.$ref;
    expect(schemaOf('/api/agent/forecast')).toBe('#/components/schemas/ForecastResponse');
    expect(schemaOf('/api/agent/cash-position')).toBe('#/components/schemas/CashPositionResponse');
    expect(schemaOf('/api/agent/daily-summary')).toBe('#/components/schemas/DailySummaryResponse');
    const params = doc.paths['/api/agent/forecast'].get.parameters.map((x: { name?: string }) => x.name).filter(Boolean);
    expect(params).toEqual(expect.arrayContaining(['scenarioId', 'weeks']));
    for (const name of ['ForecastWeek', 'AgentNote', 'DailySummaryContactEvent', 'CashPositionAccount']) expect(doc.components.schemas[name]).toBeDefined();
  });

  it('answers are served from the per-process answer cache: byte-identical when nothing changed, the new snapshot at once after a recompute, gated and full apart, alerts per request', async () => {
    const first = await (await api.get('/api/agent/forecast?weeks=5', full)).text();
    const again = await (await api.get('/api/agent/forecast?weeks=5', full)).text();
    expect(again).toBe(first);
    const gatedText = await (await api.get('/api/agent/forecast?weeks=5', gated)).text();
    expect(gatedText).not.toBe(first);
    expect(JSON.parse(gatedText).redactedItemCount).toBeGreaterThan(0);
    expect(JSON.parse(first).redactedItemCount).toBe(0);
    // A recompute stores a new snapshot: the next read is it, not the cached one.
    await recomputeForecast(api.store.db, 'f1', new Date(Date.parse(JSON.parse(first).computedAt) + 60_000));
    const after = JSON.parse(await (await api.get('/api/agent/forecast?weeks=5', full)).text());
    expect(after.computedAt).not.toBe(JSON.parse(first).computedAt);
    // Alerts are the request's own, never cached: a lost ledger connection shows at once on the cached answer.
    await api.ledger('f1');
    await api.ledger('f1', { tokenState: 'revoked' });
    const alertedText = await (await api.get('/api/agent/forecast?weeks=5', full)).text();
    const alerted = JSON.parse(alertedText);
    expect(alerted.ledgerAlert?.kind).toBe('reconnect_required');
    expect({ ...alerted, ledgerAlert: undefined, billingAlert: undefined }).toEqual({ ...after, ledgerAlert: undefined, billingAlert: undefined });
    // Back and forth: each state's answer is its own, byte for byte and ETag for ETag, however often the state changes.
    await api.ledger('f1', { tokenState: 'ok' });
    const ok = await api.get('/api/agent/forecast?weeks=5', full);
    const okText = await ok.text();
    expect(JSON.parse(okText).ledgerAlert?.kind).not.toBe('reconnect_required');
    const okAgain = await api.get('/api/agent/forecast?weeks=5', full);
    expect([await okAgain.text(), okAgain.headers.get('etag')]).toEqual([okText, ok.headers.get('etag')]);
    await api.ledger('f1', { tokenState: 'revoked' });
    expect(await (await api.get('/api/agent/forecast?weeks=5', full)).text()).toBe(alertedText);
    await api.ledger('f1', { tokenState: 'ok' });
    expect(await (await api.get('/api/agent/forecast?weeks=5', full)).text()).toBe(okText);
  });

  it("issue 17: a note that names a contact (the band's driver) has the name rewritten on forecast, cash position and daily summary for a key without READ_SENSITIVE once the contact is sensitive, counted in redactedItemCount", async () => {
    const latest = (await getJson(ForecastResponse, '/api/agent/forecast', full)).body;
    const [acme] = await rows<{ id: string; name: string }>(api.store.db, sql`select id, name from contacts where org_id = 'f1' and not is_sensitive order by id limit 1`);
    const text = `Most of the uncertainty about cash in the week of 7 December 2026 is 2 open invoices of ${acme!.name}, who has paid between 3 days after the due date and 40 days after the due date.`;
    const note = { kind: 'ar' as const, window: 'this_quarter' as const, severity: 'info' as const, text, contact: { id: acme!.id, name: acme!.name } };
    const at = new Date(Date.parse(latest.computedAt) + 30_000);
    const [{ payload: stored }] = (await rows<{ payload: Record<string, unknown> }>(
      api.store.db,
      sql`select payload from forecast_snapshots where org_id = 'f1' and scenario_id = 'base' order by computed_at desc limit 1`,
    )) as [{ payload: Record<string, unknown> }];
    await api.store.db.insert(s.forecastSnapshots).values({
      orgId: 'f1', id: 'base:named-note', scenarioId: 'base', engineVersion: ENGINE_VERSION, asOfDate: String(stored.asOfDate), computedAt: at,
      payload: { ...stored, computedAt: at.toISOString(), notesForAgent: [note] },
    });
    const reads = async (k: string) => ({
      forecast: (await getJson(ForecastResponse, '/api/agent/forecast', k)).body,
      position: (await getJson(CashPositionResponse, '/api/agent/cash-position', k)).body,
      summary: (await getJson(DailySummaryResponse, '/api/agent/daily-summary', k)).body,
    });
    const before = await reads(gated);
    for (const b of [before.forecast, before.position, before.summary]) expect(b.notesForAgent).toEqual([note]);
    await api.store.db.update(s.contacts).set({ isSensitive: true }).where(and(eq(s.contacts.orgId, 'f1'), eq(s.contacts.id, acme!.id)));
    const hidden = await reads(gated);
    const shown = await reads(full);
    for (const k of ['forecast', 'position', 'summary'] as const) {
      expect(hidden[k].notesForAgent).toEqual([{ ...note, text: text.replace(acme!.name, 'Sensitive contact'), contact: { id: acme!.id, name: 'Sensitive contact' } }]);
      expect(JSON.stringify(hidden[k])).not.toContain(acme!.name);
      expect(hidden[k].redactedItemCount).toBe(before[k].redactedItemCount + 1);
      expect(shown[k].notesForAgent).toEqual([note]);
    }
    await api.store.db.update(s.contacts).set({ isSensitive: false }).where(and(eq(s.contacts.orgId, 'f1'), eq(s.contacts.id, acme!.id)));
    await recomputeForecast(api.store.db, 'f1', new Date(at.getTime() + 60_000));
  });

  it('before any forecast: forecast is 404 not_found, cash position computed now (no computedAt), daily summary with a null outlook', async () => {
    const k = await key(SCOPES, 'f2');
    const f = await api.get('/api/agent/forecast', k);
    expect(f.status).toBe(404);
    expect((await f.json()).error).toBe('not_found');
    const cp = await getJson(CashPositionResponse, '/api/agent/cash-position', k);
    expect(cp.status).toBe(200);
    expect(cp.body).toMatchObject({ startingCash: '0', ledgerReconciledTotal: '0', accounts: [], redactedItemCount: 0 });
    expect(cp.body.computedAt).toBeUndefined();
    const d = await getJson(DailySummaryResponse, '/api/agent/daily-summary', k);
    expect(d.status).toBe(200);
    expect(d.body.forecast13w).toEqual({ endingCash: null, lowestClosingCash: null, lowestWeekStart: null, breakEvenDate: null });
    expect(d.body.narrative).toContain('No money moved in the last 7 days.');
  });
});
