/**
 * The forecast's track record (issue 18, docs/forecast.md#accuracy): GET
 * /api/agent/forecast/accuracy compares what earlier forecasts said of each
 * past week with what actually moved.
 *
 * On a demo business, on both stores: before anything is stored it falls
 * back to the calibration's replay, labelled so; seeded with the replayed
 * six months it answers from the stored forecasts; its per-horizon scores
 * are the backtest's measures of its own cells; its actuals are the
 * backtest's (the same movements read from the whole ledger); a forecast
 * stored by a recompute is scored, a week later, on exactly what GET
 * /forecast said that day; the week's first forecast is the one kept.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { BACKENDS } from './helpers/store.js';
import { startTestApi, type TestApi } from './helpers/http.js';
import { orgWithDemoBooks } from './helpers/demo-books.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { recalibrate, seedTrackRecord } from '../src/jobs/calibration.js';
import { rows } from '../src/store/db.js';
import { orgMeta } from '../src/store/queries/organisation.js';
import { loadRawLedger } from '../src/store/queries/raw-ledger.js';
import { actualsFrom, indexLedger } from '../src/backtest/replay.js';
import { cashAtStartOf } from '../src/domain/forecast/actuals.js';
import { toDay } from '../src/domain/forecast/days.js';
import { D } from '../src/domain/money.js';
import { ForecastAccuracyResponse } from '../src/schemas/accuracy.js';
import { ForecastResponse } from '../src/schemas/forecast.js';
import { NO_LIMITS } from '../bench/no-limits.js';

type Accuracy = z.infer<typeof ForecastAccuracyResponse>;
const NOW = '2026-11-23T09:00:00Z';
const r4 = (x: number) => Math.round(x * 10_000) / 10_000;

describe.each(BACKENDS)('GET /api/agent/forecast/accuracy (%s)', (kind) => {
  let api: TestApi;
  let org: string;
  let key: string;
  const get = async (query = '') => {
    const res = await api.get(`/api/agent/forecast/accuracy${query}`, key);
    return { status: res.status, body: (await res.json()) as Accuracy & { parameter?: string; error?: string } };
  };

  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW, limiter: () => NO_LIMITS });
    ({ orgId: org } = await orgWithDemoBooks(api, { name: 'Track Record Co', now: new Date(NOW), seed: 41 }));
    key = await api.key(org);
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('with nothing stored or replayed yet: source replayed, nothing measured, and the note says why', async () => {
    await recomputeForecast(api.store.db, org, new Date(NOW));
    const { status, body } = await get();
    expect(status).toBe(200);
    expect([body.source, body.storedForecasts, body.overall.weeksMeasured, body.weeks]).toEqual(['replayed', 0, 0, []]);
    expect(body.horizons.map((h) => [h.weeksAhead, h.weeksMeasured])).toEqual(Array.from({ length: 13 }, (_, k) => [k + 1, 0]));
    expect(body.note).toMatch(/Only 0 stored forecasts/);
  });

  it('after the calibration: the replayed record, labelled replayed', async () => {
    await recalibrate(api.store.db, org, new Date(NOW));
    const { body } = await get();
    expect(body.source).toBe('replayed');
    expect(body.overall.weeksMeasured).toBeGreaterThan(50);
    expect(body.weeks.flatMap((w) => w.forecasts!).every((c) => !c.seeded)).toBe(true);
    expect(body.note).toMatch(/replayed/);
  });

  it('seeded with six months: the stored record, each horizon scored with the backtest\'s measures of its own cells', async () => {
    expect(await seedTrackRecord(api.store.db, org, new Date(NOW), 182)).toBeGreaterThanOrEqual(25);
    const { status, body } = await get();
    expect(status).toBe(200);
    expect(body.source).toBe('stored');
    expect(body.storedForecasts).toBeGreaterThanOrEqual(25);
    expect([body.from, body.to]).toEqual(['2026-08-24', '2026-11-23']);
    expect(body.horizons).toHaveLength(13);
    const cells = body.weeks.flatMap((w) => w.forecasts!.map((c) => ({ ...c, weekEnd: w.weekEnd })));
    expect(cells.length).toBe(body.overall.weeksMeasured);
    for (const w of body.weeks) {
      expect(w.weekEnd >= body.from && w.weekEnd <= body.to && w.weekEnd < body.asOfDate).toBe(true);
      expect(w.forecastCount).toBe(w.forecasts!.length);
    }
    for (const h of body.horizons) {
      const mine = cells.filter((c) => c.weeksAhead === h.weeksAhead);
      expect(h.weeksMeasured).toBe(mine.length);
      expect(h.weeksMeasured).toBeGreaterThan(5);
      for (const m of ['receipts', 'payments', 'closing'] as const) {
        const err = mine.reduce((a, c) => a.plus(new D(c[m].forecast).minus(c[m].actual).abs()), new D(0));
        const act = mine.reduce((a, c) => a.plus(new D(c[m].actual).abs()), new D(0));
        expect(h[m].wape, `${m} at ${h.weeksAhead}`).toBe(Number(err.div(act).toDecimalPlaces(4)));
        const inside = mine.filter((c) => Number(c[m].p10) <= Number(c[m].actual) && Number(c[m].actual) <= Number(c[m].p90)).length;
        expect(h[m].coverage80).toBe(r4(inside / mine.length));
      }
    }
    // The far horizons are harder than the near ones (closing cash compounds every week's error).
    expect(body.horizons[12]!.closing.wape).toBeGreaterThan(body.horizons[0]!.closing.wape);
  });

  it("its actuals are the backtest's: the same weeks read from the whole ledger; a cell over the whole week has the week's actuals", async () => {
    const { body } = await get();
    const db = api.store.db;
    const ix = indexLedger(await loadRawLedger(db, (await orgMeta(db, org))!));
    for (const w of body.weeks) {
      const [a] = actualsFrom(ix, w.weekStart, cashAtStartOf(ix.movements, ix.raw.bankAccounts, toDay(w.weekStart)));
      expect([a!.receipts.toFixed(), a!.payments.toFixed(), a!.closing.toFixed()]).toEqual([w.actual.receipts, w.actual.payments, w.actual.closing].map((x) => new D(x).toFixed()));
      // Each cell measured over the whole week has the week's actuals; a first week made mid-week its own days.
      for (const c of w.forecasts!) {
        expect(c.closing.actual).toBe(w.actual.closing);
        if (c.measuredFrom === w.weekStart) expect([c.receipts.actual, c.payments.actual]).toEqual([w.actual.receipts, w.actual.payments]);
        else expect(c.weeksAhead).toBe(1);
      }
    }
  });

  it('a forecast the recompute stored is scored, a week on, on exactly what GET /forecast said that day; the first of its week is the one kept', async () => {
    const said = (await (await api.get('/api/agent/forecast?detail=summary', key)).json()) as z.infer<typeof ForecastResponse>;
    // A later recompute in the same week does not replace it.
    await recomputeForecast(api.store.db, org, new Date('2026-11-25T09:00:00Z'));
    const kept = await rows<{ as_of_date: string; n: number | string }>(
      api.store.db,
      sql`select as_of_date::text as as_of_date, count(*) over () as n from forecast_track_record where org_id = ${org} and kind = 'stored' and week_of = '2026-11-23'`,
    );
    expect(kept.map((k) => [k.as_of_date, Number(k.n)])).toEqual([['2026-11-23', 1]]);
    api.clock.set('2026-12-02T09:00:00Z');
    await recomputeForecast(api.store.db, org, new Date('2026-12-02T09:00:00Z'));
    const { body } = await get('?horizon=1&from=2026-11-29');
    expect(body.horizons.map((h) => h.weeksAhead)).toEqual([1]);
    const week = body.weeks.find((w) => w.weekStart === '2026-11-23')!;
    const cell = week.forecasts!.find((c) => c.asOfDate === '2026-11-23')!;
    expect(cell.seeded).toBe(false);
    const w0 = said.weeks[0]!;
    expect([cell.receipts.forecast, cell.payments.forecast, cell.closing.forecast]).toEqual([w0.inflow, w0.outflow, w0.closing]);
    expect([cell.receipts.p10, cell.receipts.p90, cell.closing.p10, cell.closing.p90]).toEqual([w0.bands!.inflow.p10, w0.bands!.inflow.p90, w0.bands!.closing.p10, w0.bands!.closing.p90]);
    api.clock.set(NOW);
  });

  it('horizon keeps one horizon, detail=summary drops the forecasts of each week, and bad values are 400 naming the parameter', async () => {
    const four = (await get('?horizon=4')).body;
    expect(four.horizons.map((h) => h.weeksAhead)).toEqual([4]);
    expect(four.weeks.flatMap((w) => w.forecasts!).every((c) => c.weeksAhead === 4)).toBe(true);
    const full = (await get()).body;
    const summary = (await get('?detail=summary')).body;
    expect(summary.horizons).toEqual(full.horizons);
    expect(summary.weeks.map((w) => [w.weekStart, w.forecastCount, 'forecasts' in w])).toEqual(full.weeks.map((w) => [w.weekStart, w.forecasts!.length, false]));
    for (const [q, p] of [
      ['?horizon=0', 'horizon'],
      ['?horizon=14', 'horizon'],
      ['?horizon=two', 'horizon'],
      ['?from=2026-02-30', 'from'],
      ['?from=2026-11-01&to=2026-10-01', 'to'],
      ['?detail=some', 'detail'],
    ] as const) {
      const r = await get(q);
      expect([q, r.status, r.body.error, r.body.parameter]).toEqual([q, 400, 'bad_request', p]);
    }
  });
});
