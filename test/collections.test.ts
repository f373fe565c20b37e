/**
 * What to do about the lowest week (issue 18, docs/forecast.md#collections):
 * GET /api/agent/collections ranks the open invoices by the lift of
 * collecting each on its due date, and lists the bills that could wait.
 * Each lift recomputes to the forecast: the engine run with the document
 * left out and its amount on its due date moves minClosingCash by exactly
 * the lift. On a demo business (PGlite), and one whose bills are paid early
 * (so that some could wait).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { startTestApi, type TestApi } from './helpers/http.js';
import { orgWithDemoBooks } from './helpers/demo-books.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { SCOPES } from '../src/domain/scopes.js';
import { D } from '../src/domain/money.js';
import { rows } from '../src/store/db.js';
import { loadEngineInputs } from '../src/store/queries/forecast-input.js';
import { orgMeta } from '../src/store/queries/organisation.js';
import { listScenarios } from '../src/store/queries/scenarios.js';
import { prepareForecast } from '../src/domain/forecast/engine.js';
import { projectForecast } from '../src/domain/forecast/project.js';
import { collections } from '../src/domain/forecast/collections.js';
import type { Scenario } from '../src/domain/forecast/types.js';
import { CollectionsResponse } from '../src/schemas/collections.js';
import { ForecastResponse } from '../src/schemas/forecast.js';
import { NO_LIMITS } from '../bench/no-limits.js';

const NOW = '2026-11-23T09:00:00Z';
type Collections = z.infer<typeof CollectionsResponse>;

describe('GET /api/agent/collections (pglite)', () => {
  let api: TestApi;
  let org: string;
  let full: string;
  let sensitive: string[] = [];

  const get = async (query: string, key = full) => {
    const res = await api.get(`/api/agent/collections${query ? `?${query}` : ''}`, key);
    return { status: res.status, body: (await res.json()) as Collections & { parameter?: string; error?: string } };
  };

  beforeAll(async () => {
    api = await startTestApi('pglite', { now: NOW, limiter: () => NO_LIMITS });
    ({ orgId: org, sensitiveContactIds: sensitive } = await orgWithDemoBooks(api, { name: 'Collections Co', now: new Date(NOW), seed: 29 }));
    await recomputeForecast(api.store.db, org, new Date(NOW));
    full = await api.key(org);
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('agrees with GET /forecast: the lowest week and its closing cash; every open approved invoice ranked by lift, largest first', async () => {
    const f = (await (await api.get('/api/agent/forecast?detail=summary', full)).json()) as z.infer<typeof ForecastResponse>;
    const { status, body } = await get('limit=200');
    expect(status).toBe(200);
    expect(CollectionsResponse.safeParse(body).success).toBe(true);
    expect([body.lowestWeekIndex, body.minClosingCash]).toEqual([f.minClosingCashWeekIndex, f.minClosingCash]);
    const [open] = await rows<{ n: string }>(
      api.store.db,
      sql`select count(*) as n from cash_items where org_id = ${org} and ledger_type = 'ACCREC' and ledger_status = 'AUTHORISED' and amount_due > 0`,
    );
    expect(body.receivableCount).toBeGreaterThan(0);
    expect(body.receivableCount).toBeLessThanOrEqual(Number(open!.n));
    const lifts = body.receivables.map((r) => new D(r.lift));
    for (let i = 1; i < lifts.length; i++) expect(lifts[i - 1]!.greaterThanOrEqualTo(lifts[i]!)).toBe(true);
    expect(lifts[0]!.greaterThan(0)).toBe(true);
    for (const r of body.receivables) {
      expect(r.probabilityAfterLowestWeek).toBeGreaterThanOrEqual(0);
      expect(r.probabilityAfterLowestWeek).toBeLessThanOrEqual(1);
      expect(r.history).toMatch(/pays? /);
      if (r.daysOverdue > 0) expect(r.dueDate! < body.asOfDate).toBe(true);
    }
    // limit cuts the lists, not the counts.
    const three = (await get('limit=3')).body;
    expect(three.receivables).toEqual(body.receivables.slice(0, 3).map((r) => expect.objectContaining({ documentId: r.documentId, lift: r.lift })));
    expect(three.receivableCount).toBe(body.receivableCount);
  });

  it("each lift recomputes to the forecast: left out, with its amount on its due date, minClosingCash moves by exactly the lift", async () => {
    const meta = (await orgMeta(api.store.db, org))!;
    const inputs = await loadEngineInputs(api.store.db, meta, new Date(NOW));
    const prepared = prepareForecast(inputs.input);
    const base = (await listScenarios(api.store.db, org)).find((s) => s.kind === 'BASE')!;
    const r = collections(prepared, base, new Date(NOW));
    const min0 = new D(projectForecast(prepared, base, new Date(NOW)).minClosingCash!);
    const check = (id: string, date: string, amount: string) => {
      const s: Scenario = {
        ...base,
        adjustments: { ...base.adjustments, excludedItemIds: [id], manualItems: [{ id: `collect:${id}`, date, amount, exact: true }] },
      };
      return new D(projectForecast(prepared, s, new Date(NOW)).minClosingCash!).minus(min0).toFixed();
    };
    const picks = [...r.receivables.slice(0, 8), ...r.receivables.slice(-3)];
    for (const x of picks) expect(check(x.documentId, x.dueDate ?? inputs.asOf, x.amountDue), x.documentId).toBe(x.lift);
    for (const x of r.payables.slice(0, 5)) expect(check(x.documentId, x.dueDate!, `-${x.amountDue}`), x.documentId).toBe(x.lift);
  });

  it('bills paid before their due week could wait: listed with their lift when the business pays early', async () => {
    const meta = (await orgMeta(api.store.db, org))!;
    const inputs = await loadEngineInputs(api.store.db, meta, new Date(NOW));
    const prepared = prepareForecast(inputs.input);
    const base = (await listScenarios(api.store.db, org)).find((s) => s.kind === 'BASE')!;
    // As if the business paid its bills 10 days early: every bill due after today's week is expected before its due week.
    const early = collections({ ...prepared, orgBillDelay: -10 }, base, new Date(NOW));
    expect(early.payables.length).toBeGreaterThan(0);
    for (const p of early.payables) {
      expect(p.predictedDate < p.dueDate!).toBe(true);
      expect(new D(p.lift).greaterThanOrEqualTo(0)).toBe(true);
    }
    const min0 = new D(projectForecast({ ...prepared, orgBillDelay: -10 }, base, new Date(NOW)).minClosingCash!);
    for (const x of early.payables.slice(0, 5)) {
      const s: Scenario = { ...base, adjustments: { ...base.adjustments, excludedItemIds: [x.documentId], manualItems: [{ id: 'wait', date: x.dueDate!, amount: `-${x.amountDue}`, exact: true }] } };
      expect(new D(projectForecast({ ...prepared, orgBillDelay: -10 }, s, new Date(NOW)).minClosingCash!).minus(min0).toFixed()).toBe(x.lift);
    }
  });

  it('scopes: READ_INVOICES and READ_FORECAST both needed; names redacted without READ_SENSITIVE; 400 naming limit', async () => {
    expect((await get('', await api.key(org, ['READ_INVOICES']))).status).toBe(403);
    expect((await get('', await api.key(org, ['READ_FORECAST']))).status).toBe(403);
    const gated = await api.key(org, SCOPES.filter((s) => s !== 'READ_SENSITIVE'));
    const all = (await get('limit=200')).body;
    const hidden = (await get('limit=200', gated)).body;
    const names = new Map(all.receivables.map((r) => [r.documentId, r.contactName]));
    let n = 0;
    for (const r of hidden.receivables) {
      if (r.contactId && sensitive.includes(r.contactId)) {
        n++;
        expect(r.contactName).toBe('Sensitive contact');
      } else expect(r.contactName).toBe(names.get(r.documentId));
    }
    expect(hidden.redactedItemCount).toBe(n + hidden.payables.filter((p) => p.contactId && sensitive.includes(p.contactId)).length);
    expect(hidden.receivables.map((r) => r.lift)).toEqual(all.receivables.map((r) => r.lift));
    for (const q of ['limit=0', 'limit=abc', 'limit=-1']) {
      const r = await get(q);
      expect([r.status, r.body.parameter], q).toEqual([400, 'limit']);
    }
  });
});
