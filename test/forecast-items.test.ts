/**
 * GET /api/agent/forecast/items (issue 19, docs/forecast.md#items): what
 * makes up one week of the forecast, from the stored snapshot GET /forecast
 * serves, on the demo business, through real HTTP on PGlite and PostgreSQL.
 * The proof that matters: for every week of every scenario (BASE, the
 * built-in WORST and a CUSTOM one with factors, a delay shift, an exclusion
 * and an extra line), the week's items in add up exactly to its inflow and
 * its items out to its outflow, and name exactly its itemIds.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { BACKENDS } from './helpers/store.js';
import { startTestApi, type TestApi } from './helpers/http.js';
import { orgWithDemoBooks } from './helpers/demo-books.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { SCOPES } from '../src/domain/scopes.js';
import { D, dec, isCanonical } from '../src/domain/money.js';
import { ITEM_KINDS, REASON_CODES } from '../src/domain/forecast/items.js';
import { rows } from '../src/store/db.js';
import { removeCustomScenario, upsertCustomScenario } from '../src/store/queries/scenarios.js';
import { SNAPSHOTS_KEPT } from '../src/store/queries/forecast-snapshots.js';
import { ForecastResponse } from '../src/schemas/forecast.js';
import { ForecastItemsResponse } from '../src/schemas/forecast-items.js';
import { ENDPOINTS, paramsOf, toolName } from '../src/schemas/endpoints.js';
import { callTool, toolInputSchema } from '../src/mcp/server.js';
import { NO_LIMITS } from '../bench/no-limits.js';

const NOW = '2026-11-23T09:00:00Z';
const NO_SENSITIVE = SCOPES.filter((x) => x !== 'READ_SENSITIVE');
type Items = z.infer<typeof ForecastItemsResponse>;
type Forecast = z.infer<typeof ForecastResponse>;
const CUSTOM = 'stress';

describe.each(BACKENDS)('GET /api/agent/forecast/items on %s', (kind) => {
  let api: TestApi;
  let org: string;
  let full: string;
  let gated: string;
  let sensitive: string[] = [];

  async function get<T>(path: string, key = full): Promise<{ status: number; body: T }> {
    const res = await api.get(path, key);
    return { status: res.status, body: (await res.json()) as T };
  }
  const forecast = async (scenario: string) => (await get<Forecast>(`/api/agent/forecast?scenarioId=${scenario}`)).body;
  /** Every item of a week, page after page. */
  async function allItems(query: string, key = full, limit = 200): Promise<{ first: Items; items: Items['items'] }> {
    let page = (await get<Items>(`/api/agent/forecast/items?${query}&limit=${limit}`, key)).body;
    const first = page;
    const items = [...page.items];
    while (page.nextCursor) {
      page = (await get<Items>(`/api/agent/forecast/items?${query}&limit=${limit}&cursor=${encodeURIComponent(page.nextCursor)}`, key)).body;
      items.push(...page.items);
    }
    return { first, items };
  }

  beforeAll(async () => {
    // Hundreds of reads of one endpoint: the burst cap and the credits are not what is tested here.
    api = await startTestApi(kind, { now: NOW, limiter: () => NO_LIMITS });
    ({ orgId: org, sensitiveContactIds: sensitive } = await orgWithDemoBooks(api, { name: 'Items Co', now: new Date(NOW), seed: 19 }));
    // A first recompute creates the built-in scenarios; the CUSTOM one excludes the largest open invoice and adds a line.
    await recomputeForecast(api.store.db, org, new Date(NOW));
    const [big] = await rows<{ id: string }>(
      api.store.db,
      sql`select id from cash_items where org_id = ${org} and ledger_type = 'ACCREC' and ledger_status = 'AUTHORISED' and amount_due > 0 order by amount_due desc, id limit 1`,
    );
    await upsertCustomScenario(
      api.store.db,
      org,
      {
        id: CUSTOM,
        name: 'Slow payers, dear suppliers',
        adjustments: { inflowFactor: '0.83', outflowFactor: '1.07', paymentDelayShiftDays: 11, excludedItemIds: [big!.id], manualItems: [{ id: 'loan', date: '2026-12-09', amount: '25000.55' }] },
      },
      new Date(NOW),
    );
    await recomputeForecast(api.store.db, org, new Date(Date.parse(NOW) + 1000));
    full = await api.key(org);
    gated = await api.key(org, NO_SENSITIVE);
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('every week of BASE, WORST and a CUSTOM scenario: the items in add up to the inflow and the items out to the outflow to the cent, and are exactly the week\'s itemIds', async () => {
    let checkedItems = 0;
    for (const scenario of ['base', 'worst', CUSTOM]) {
      const f = await forecast(scenario);
      expect(f.weeks).toHaveLength(13);
      for (const [k, w] of f.weeks.entries()) {
        const { first, items } = await allItems(`week=${k}&scenarioId=${scenario}`);
        expect(first.computedAt, `${scenario} week ${k}`).toBe(f.computedAt);
        expect(first).toMatchObject({ scenarioId: scenario, asOfDate: f.asOfDate, week: { index: k, weekStart: w.weekStart, weekEnd: w.weekEnd }, totalCount: items.length });
        const sum = (dir: 'in' | 'out') => items.filter((i) => i.direction === dir).reduce((a, i) => a.plus(i.amount), new D(0));
        expect(sum('in').toString(), `${scenario} week ${k} inflow`).toBe(dec(w.inflow).toString());
        expect(sum('out').toString(), `${scenario} week ${k} outflow`).toBe(dec(w.outflow).toString());
        // forecastInflow is the predicted sales alone.
        const predicted = items.filter((i) => i.direction === 'in' && i.kind === 'predicted').reduce((a, i) => a.plus(i.amount), new D(0));
        expect(predicted.toString(), `${scenario} week ${k} forecastInflow`).toBe(dec(w.forecastInflow!).toString());
        expect([...new Set(items.map((i) => i.itemId))].sort()).toEqual([...w.itemIds!].sort());
        // The overdue ones are the week's overdueItemIds.
        const overdue = items.filter((i) => i.reasonCode === 'overdue_conditional' || i.reasonCode === 'bill_overdue').map((i) => i.itemId);
        for (const id of overdue) expect(w.overdueItemIds, id).toContain(id);
        // totals=true gives the same sums in one call.
        const t = (await get<Items>(`/api/agent/forecast/items?week=${k}&scenarioId=${scenario}&totals=true&limit=1`)).body;
        expect(t.totals).toEqual({ inflow: w.inflow, outflow: w.outflow });
        checkedItems += items.length;
      }
    }
    expect(checkedItems).toBeGreaterThan(500);
    // The CUSTOM scenario's exclusion and extra line.
    const custom = await forecast(CUSTOM);
    const loan = (await allItems(`week=2&scenarioId=${CUSTOM}&kind=manual`)).items;
    expect(custom.weeks[2]!.weekStart <= '2026-12-09' && '2026-12-09' <= custom.weeks[2]!.weekEnd).toBe(true);
    expect(loan).toEqual([expect.objectContaining({ itemId: 'loan', direction: 'in', amount: '20750.46', expectedDate: '2026-12-09', probability: 1, reasonCode: 'manual', documentId: null, contactId: null })]);
  }, 240_000);

  it('each item: a known kind and reason, its document for documents only, an expected date inside its week and not before today, a probability in 0..1; ranked by amount descending, then id', async () => {
    const f = await forecast('base');
    const kinds = new Set<string>();
    const codes = new Set<string>();
    for (const [k, w] of f.weeks.entries()) {
      const { items } = await allItems(`week=${k}`);
      for (const [n, i] of items.entries()) {
        expect(ForecastItemsResponse.shape.items.element.safeParse(i).success).toBe(true);
        expect(ITEM_KINDS).toContain(i.kind);
        expect(REASON_CODES).toContain(i.reasonCode);
        kinds.add(i.kind);
        codes.add(i.reasonCode);
        expect(isCanonical(i.amount) && dec(i.amount).gt(0)).toBe(true);
        expect(i.expectedDate >= w.weekStart && i.expectedDate <= w.weekEnd && i.expectedDate >= f.asOfDate!, `${i.itemId} ${i.expectedDate}`).toBe(true);
        expect(i.probability).toBeGreaterThanOrEqual(0);
        expect(i.probability).toBeLessThanOrEqual(1);
        expect(i.reason.length).toBeGreaterThan(10);
        const documentKind = ['invoice', 'bill', 'purchase_order', 'scheduled'].includes(i.kind);
        expect(i.documentId === null, `${i.kind} ${i.itemId}`).toBe(!documentKind);
        if (i.kind === 'invoice' || i.kind === 'bill' || i.kind === 'purchase_order') expect(i.documentId).toBe(i.itemId);
        if (i.kind === 'scheduled') expect(`scheduled:${i.documentId}`).toBe(i.itemId);
        if (['bill', 'purchase_order', 'scheduled', 'manual'].includes(i.kind)) expect(i.probability).toBe(1);
        if (i.reasonCode === 'pipeline') expect([0.5, 0.8]).toContain(i.probability);
        if (n > 0) {
          const prev = items[n - 1]!;
          const order = dec(i.amount).comparedTo(prev.amount) || (prev.itemId < i.itemId ? -1 : prev.itemId > i.itemId ? 1 : 0);
          expect(order, `${prev.itemId} before ${i.itemId}`).toBeLessThanOrEqual(0);
          if (order === 0) expect(prev.direction === 'in' && i.direction === 'out').toBe(true);
        }
      }
    }
    // The demo business has most of the engine's categories in its 13 weeks.
    for (const k of ['invoice', 'bill', 'predicted', 'recurring']) expect(kinds, k).toContain(k);
    expect(codes).toContain('overdue_conditional');
    expect(codes).toContain('customer_delay');
    // An overdue invoice's reason says how late it is, a fresh one its due date and the customer's habit.
    const w0 = (await allItems('week=0&kind=invoice')).items;
    const overdue = w0.find((i) => i.reasonCode === 'overdue_conditional')!;
    const pays = "the (customer pays|business's customers pay) (a median \\d+ days? (late|early)|on the due date \\(median\\))";
    expect(overdue.reason).toMatch(new RegExp(`^overdue \\d+ days? \\(due \\d{4}-\\d\\d-\\d\\d\\): conditional delay, (<1|\\d+)% chance it is paid this week given it is still unpaid; ${pays}$`));
    const later = (await allItems('week=3&kind=invoice')).items.find((i) => i.reasonCode === 'customer_delay');
    expect(later!.reason).toMatch(new RegExp(`^due \\d{4}-\\d\\d-\\d\\d; ${pays}: (<1|\\d+)% chance it is paid this week$`));
  }, 120_000);

  it('kind filters one kind; its totals are that kind\'s; pages of 7 are the whole list in order', async () => {
    const all = (await allItems('week=1')).items;
    for (const kindName of ['invoice', 'bill', 'predicted']) {
      const { first, items } = await allItems(`week=1&kind=${kindName}`, full, 7);
      expect(items).toEqual(all.filter((i) => i.kind === kindName));
      expect(first.totalCount).toBe(items.length);
      const t = (await get<Items>(`/api/agent/forecast/items?week=1&kind=${kindName}&totals=true`)).body.totals!;
      expect(dec(t.inflow).eq(items.filter((i) => i.direction === 'in').reduce((a, i) => a.plus(i.amount), new D(0)))).toBe(true);
    }
    const auto = (await get<Items>('/api/agent/forecast/items?week=1&autoPaginate=true')).body;
    expect(auto.items).toEqual(all);
    expect(auto.nextCursor).toBeNull();
    expect(auto.truncated).toBeUndefined();
  });

  it('keys without READ_SENSITIVE see `Sensitive contact` (counted in redactedItemCount), never the name; amounts are not masked', async () => {
    const names = await rows<{ id: string; name: string }>(api.store.db, sql`select id, name from contacts where org_id = ${org} and is_sensitive`);
    expect(names.length).toBeGreaterThan(0);
    let seen = 0;
    for (let k = 0; k < 13; k++) {
      const shown = (await get<Items>(`/api/agent/forecast/items?week=${k}&autoPaginate=true`)).body;
      const res = await api.get(`/api/agent/forecast/items?week=${k}&autoPaginate=true`, gated);
      const text = await res.text();
      const hidden = JSON.parse(text) as Items;
      for (const n of names) expect(text).not.toContain(n.name);
      const mine = shown.items.filter((i) => i.contactId !== null && sensitive.includes(i.contactId));
      seen += mine.length;
      expect(hidden.redactedItemCount).toBe(mine.length);
      expect(shown.redactedItemCount).toBe(0);
      expect(hidden.items.map((i) => ({ ...i, contactName: null }))).toEqual(shown.items.map((i) => ({ ...i, contactName: null })));
      for (const i of hidden.items) if (i.contactId !== null && sensitive.includes(i.contactId)) expect(i.contactName).toBe('Sensitive contact');
      for (const i of shown.items) if (i.contactId !== null && sensitive.includes(i.contactId)) expect(i.contactName).toBe(names.find((n) => n.id === i.contactId)!.name);
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('400 naming week when it is missing or outside 0-12, kind when unknown; 404 for an unknown scenario; 403 without READ_FORECAST', async () => {
    for (const q of ['', '?week=', '?week=13', '?week=-1', '?week=1.5', '?week=x', '?scenarioId=base']) {
      const r = await get<{ error: string; parameter: string; message: string }>(`/api/agent/forecast/items${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body, q).toMatchObject({ error: 'bad_request', parameter: 'week' });
    }
    expect((await get<{ message: string }>('/api/agent/forecast/items')).body.message).toMatch(/^week: is required/);
    expect((await get('/api/agent/forecast/items?week=+12')).status).toBe(200);
    expect((await get<{ parameter: string }>('/api/agent/forecast/items?week=0&kind=invoices')).body).toMatchObject({ error: 'bad_request', parameter: 'kind' });
    expect((await get<{ parameter: string }>('/api/agent/forecast/items?week=0&scenarioId=nope')).body).toMatchObject({ error: 'not_found', parameter: 'scenarioId' });
    const noForecast = await api.key((await api.org({ name: 'Empty', plan: 'Reserve' })).orgId);
    const empty = await get<{ error: string; message: string }>('/api/agent/forecast/items?week=0', noForecast);
    expect(empty).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(empty.body.message).toMatch(/recompute/);
    const without = await api.key(org, SCOPES.filter((x) => x !== 'READ_FORECAST'));
    expect(await get('/api/agent/forecast/items?week=0', without)).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect((await get('/api/agent/forecast/items?week=0', await api.key(org, ['READ_FORECAST']))).status).toBe(200);
  });

  it('a cursor belongs to its organisation, week and filters (400 invalid_cursor otherwise), and keeps paging through its snapshot after a recompute', async () => {
    const first = (await get<Items>('/api/agent/forecast/items?week=0&limit=3')).body;
    const whole = (await allItems('week=0')).items;
    const cursor = encodeURIComponent(first.nextCursor!);
    for (const q of [`week=1&cursor=${cursor}`, `week=0&kind=bill&cursor=${cursor}`, `week=0&scenarioId=worst&cursor=${cursor}`]) {
      expect((await get<{ error: string }>(`/api/agent/forecast/items?${q}`)).body.error, q).toBe('invalid_cursor');
    }
    const other = await api.org({ name: 'Other', plan: 'Reserve' });
    expect((await get<{ error: string }>(`/api/agent/forecast/items?week=0&cursor=${cursor}`, await api.key(other.orgId))).body.error).toBe('invalid_cursor');
    // A recompute in between: the cursor's next page is still the old snapshot's.
    const before = await forecast('base');
    await recomputeForecast(api.store.db, org, new Date(Date.parse(NOW) + 60_000));
    const next = (await get<Items>(`/api/agent/forecast/items?week=0&limit=3&cursor=${cursor}`)).body;
    expect(next.computedAt).toBe(before.computedAt);
    expect(next.items).toEqual(whole.slice(3, 6));
    expect((await get<Items>('/api/agent/forecast/items?week=0&limit=3')).body.computedAt).not.toBe(before.computedAt);
  });

  it('a snapshot stored before items were (item_count null) is 404 not_found telling to recompute, not a 500; the recompute fixes it', async () => {
    const [latest] = await rows<{ id: string }>(api.store.db, sql`select id from forecast_snapshots where org_id = ${org} and scenario_id = 'base' order by computed_at desc limit 1`);
    await api.store.db.execute(sql`delete from forecast_snapshot_items where org_id = ${org} and snapshot_id = ${latest!.id}`);
    await api.store.db.execute(sql`update forecast_snapshots set item_count = null where org_id = ${org} and id = ${latest!.id}`);
    const r = await get<{ error: string; message: string }>('/api/agent/forecast/items?week=4');
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('not_found');
    expect(r.body.message).toMatch(/stored before its items were: recompute/);
    expect((await get('/api/agent/forecast')).status).toBe(200);
    await recomputeForecast(api.store.db, org, new Date(Date.parse(NOW) + 120_000));
    expect((await get('/api/agent/forecast/items?week=4')).status).toBe(200);
  });

  it('the store keeps the items of the kept snapshots only: replaced at the same instant, pruned with their snapshot', async () => {
    const at = new Date(Date.parse(NOW) + 180_000);
    await recomputeForecast(api.store.db, org, at);
    await recomputeForecast(api.store.db, org, at); // the same instant: replaced, not doubled
    for (let i = 1; i <= SNAPSHOTS_KEPT; i++) await recomputeForecast(api.store.db, org, new Date(at.getTime() + i * 1000));
    const counts = await rows<{ id: string; item_count: number; n: string }>(
      api.store.db,
      sql`select f.id, f.item_count, (select count(*) from forecast_snapshot_items i where i.org_id = f.org_id and i.snapshot_id = f.id) as n
          from forecast_snapshots f where f.org_id = ${org}`,
    );
    expect(counts.length).toBe(4 * SNAPSHOTS_KEPT); // base, best, worst and the CUSTOM one
    for (const c of counts) expect(Number(c.n), c.id).toBe(Number(c.item_count));
    const [orphans] = await rows<{ n: string }>(
      api.store.db,
      sql`select count(*) as n from forecast_snapshot_items i where i.org_id = ${org} and not exists (select 1 from forecast_snapshots f where f.org_id = i.org_id and f.id = i.snapshot_id)`,
    );
    expect(Number(orphans!.n)).toBe(0);
    // Their wordings likewise: each stored once per snapshot, none left behind, none missing.
    const [words] = await rows<{ orphans: string; missing: string; shared: string }>(
      api.store.db,
      sql`select (select count(*) from forecast_snapshot_reasons r where r.org_id = ${org}
                and not exists (select 1 from forecast_snapshots f where f.org_id = r.org_id and f.id = r.snapshot_id)) as orphans,
             (select count(*) from forecast_snapshot_items i where i.org_id = ${org} and not exists (select 1 from forecast_snapshot_reasons r
                where r.org_id = i.org_id and r.snapshot_id = i.snapshot_id and r.reason_id = i.reason_id)) as missing,
             (select count(*) from forecast_snapshot_reasons r where r.org_id = ${org}) as shared`,
    );
    expect([Number(words!.orphans), Number(words!.missing)]).toEqual([0, 0]);
    expect(Number(words!.shared)).toBeLessThan(counts.reduce((n, c) => n + Number(c.n), 0));
    // A removed scenario takes its snapshots' items and wordings with it.
    await upsertCustomScenario(api.store.db, org, { id: 'gone', name: 'Gone', adjustments: { inflowFactor: '0.9' } }, at);
    await recomputeForecast(api.store.db, org, new Date(at.getTime() + 60_000));
    const left = async () =>
      (
        await rows<{ i: string; r: string }>(
          api.store.db,
          sql`select (select count(*) from forecast_snapshot_items where org_id = ${org} and snapshot_id like 'gone:%') as i,
                 (select count(*) from forecast_snapshot_reasons where org_id = ${org} and snapshot_id like 'gone:%') as r`,
        )
      ).map((x) => [Number(x.i) > 0, Number(x.r) > 0]);
    expect(await left()).toEqual([[true, true]]);
    expect(await removeCustomScenario(api.store.db, org, 'gone')).toBe(true);
    expect(await left()).toEqual([[false, false]]);
  }, 120_000);

  it('the CLI command and MCP tool come from the catalogue: forecast-items / forecast_items, with week and kind', async () => {
    const e = ENDPOINTS.find((x) => x.name === 'forecast-items')!;
    expect(toolName(e)).toBe('forecast_items');
    expect(paramsOf(e).map((p) => p.name)).toEqual(['week', 'scenarioId', 'kind', 'cursor', 'limit', 'autoPaginate', 'totals']);
    expect(paramsOf(e).find((p) => p.name === 'week')).toMatchObject({ kind: 'integer', minimum: 0, maximum: 12 });
    expect(e.description).toMatch(/what makes up week 9/);
    expect(Object.keys(toolInputSchema(e).shape)).toContain('week');
    const byTool = await callTool({ baseUrl: api.url }, e, { week: 0, kind: 'invoice', limit: 2 }, full);
    const body = JSON.parse((byTool.content as { text: string }[]).at(-1)!.text) as Items;
    expect(body.items.length).toBeLessThanOrEqual(2);
    expect(body.items.every((i) => i.kind === 'invoice')).toBe(true);
  });
});
