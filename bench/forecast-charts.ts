/**
 * The charts of docs/forecast.md#bands, drawn from a real run: the demo's
 * wholesaler (Harbour & Vine, generated as `cashline-server demo` does) on an
 * embedded store, calibrated as the nightly job does, then
 * - docs/img/fan-chart.svg: its BASE forecast's closing cash, point and
 *   P10/P50/P90 per week, with the shortfall probability;
 * - docs/img/coverage-by-horizon.svg: the backtest's coverage of the 80% bands
 *   per horizon week (weekly cut-offs over the last two years), receipts,
 *   payments and closing, against the 0.80 target.
 * Prints the figures it drew.
 *
 * Usage: npx tsx bench/forecast-charts.ts [--now 2026-11-23T09:00:00Z]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { createOrg } from '../src/store/tenancy.js';
import { generateDemo } from '../src/demo/generate.js';
import { importFiles } from '../src/ledger/import.js';
import { DEMO_ORGS } from '../src/server/demo.js';
import { recalibrate } from '../src/jobs/calibration.js';
import { loadCalibration } from '../src/store/queries/calibration.js';
import { loadForecastInput } from '../src/store/queries/forecast-input.js';
import { orgMeta } from '../src/store/queries/organisation.js';
import { loadRawLedger } from '../src/store/queries/raw-ledger.js';
import { runForecast } from '../src/domain/forecast/engine.js';
import { backtestLedger } from '../src/backtest/index.js';
import { addDays, dateIn } from '../src/domain/calendar.js';
import type { ForecastPayload } from '../src/domain/forecast/types.js';

const args = process.argv.slice(2);
const now = new Date(args.includes('--now') ? args[args.indexOf('--now') + 1]! : '2026-11-23T09:00:00Z');
const OUT = resolve(import.meta.dirname, '..', 'docs', 'img');
const log = (m: string) => process.stderr.write(`[charts] ${m}\n`);

/** The SVG canvas: width, height, margins. */
const W = 720;
const H = 400;
const M = { left: 90, right: 20, top: 60, bottom: 70 };
const demo = DEMO_ORGS[0];
const store = await openStore({ dataDir: 'memory://' });
await migrate(store.db);
let payload: ForecastPayload;
let backtest: ReturnType<typeof backtestLedger>;
try {
  await createOrg(store.db, { id: demo.id, name: demo.name, now });
  await importFiles(store.db, demo.id, generateDemo({ seed: demo.seed, asOf: now, scale: demo.scale, name: demo.name, profile: demo.profile }).files, { now });
  log('calibrating (two years of weekly cut-offs)');
  const cal = await recalibrate(store.db, demo.id, now);
  log(`calibrated: ${cal.cutoffs} cut-offs, coverage80 ${cal.coverage80?.toFixed(3)} (${cal.ms} ms)`);
  const org = (await orgMeta(store.db, demo.id))!;
  const today = dateIn(org.timezone, now);
  const input = await loadForecastInput(store.db, org, today);
  payload = runForecast(input, [{ id: 'base', name: 'Base case', kind: 'BASE', adjustments: {} }], now, {
    calibration: await loadCalibration(store.db, demo.id),
    threshold: '0',
  }).payloads[0]!;
  log('backtest (weekly cut-offs over the last two years)');
  backtest = backtestLedger(await loadRawLedger(store.db, org), { from: addDays(today, -730), to: today, everyDays: 7, today });
} finally {
  await store.close();
}

mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'fan-chart.svg'), fanChart(payload));
writeFileSync(join(OUT, 'coverage-by-horizon.svg'), coverageChart(backtest));
const c = backtest.methods.cashline;
console.log(
  JSON.stringify(
    {
      organisation: demo.name,
      asOf: payload.asOfDate,
      shortfall: payload.shortfall,
      calibration: payload.calibration,
      weeks: payload.weeks.map((w) => ({ weekStart: w.weekStart, closing: w.closing, band: w.bands!.closing, shortfallProbability: w.shortfallProbability })),
      backtest: {
        cutoffs: backtest.cutoffs,
        coverage80: { receipts: c.receipts.coverage80, payments: c.payments.coverage80, closing: c.closing.coverage80 },
        byHorizon: Object.fromEntries(Object.entries(c.byHorizon).map(([k, v]) => [k, v.map((h) => h.coverage80)])),
        shortfall: { brier: backtest.shortfall.brier, brierClimatology: backtest.shortfall.brierClimatology },
      },
    },
    null,
    2,
  ),
);
log(`wrote ${join(OUT, 'fan-chart.svg')} and ${join(OUT, 'coverage-by-horizon.svg')}`);

// ---------------------------------------------------------------------------
// SVG
// ---------------------------------------------------------------------------

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}
function money(x: number): string {
  return `${x < 0 ? '-' : ''}$${Math.abs(Math.round(x)).toLocaleString('en')}`;
}

function frame(title: string, subtitle: string, footer: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">
<rect width="${W}" height="${H}" fill="white"/>
<text x="10" y="22" font-size="14" font-weight="bold">${esc(title)}</text>
<text x="10" y="40" fill="#444">${esc(subtitle)}</text>
${body}
<text x="10" y="${H - 10}" fill="#444">${esc(footer)}</text>
</svg>
`;
}

function fanChart(p: ForecastPayload): string {
  const weeks = p.weeks;
  const lo = weeks.map((w) => Number(w.bands!.closing.p10));
  const hi = weeks.map((w) => Number(w.bands!.closing.p90));
  const min = Math.min(0, ...lo);
  const max = Math.max(...hi, Number(p.startingCash));
  const x = (k: number) => M.left + ((W - M.left - M.right) * k) / weeks.length;
  const y = (v: number) => M.top + ((H - M.top - M.bottom) * (max - v)) / (max - min || 1);
  const band = [...weeks.map((_, k) => `${x(k + 1)},${y(hi[k]!)}`), ...weeks.map((_, k) => `${x(k + 1)},${y(lo[k]!)}`).reverse()].join(' ');
  const line = (vals: number[]) => [`${x(0)},${y(Number(p.startingCash))}`, ...vals.map((v, k) => `${x(k + 1)},${y(v)}`)].join(' ');
  const ticks = Array.from({ length: 5 }, (_, i) => min + ((max - min) * i) / 4)
    .map((v) => `<line x1="${M.left}" x2="${W - M.right}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/><text x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end">${money(v)}</text>`)
    .join('\n');
  const labels = weeks.map((w, k) => `<text x="${x(k + 1)}" y="${H - M.bottom + 16}" text-anchor="middle">${k + 1}</text>`).join('\n');
  const cal = p.calibration ? `calibrated on ${p.calibration.cutoffs} past weekly cut-offs (measured coverage ${p.calibration.coverage80})` : 'not calibrated';
  return frame(
    `${demo.name} (the demo): closing cash, 13 weeks from ${p.asOfDate}`,
    `80% band ${cal}; chance of going below zero: ${Math.round(p.shortfall!.probability * 100)}%`,
    'solid: the forecast (expected amounts); dashed: P50; shaded: P10 to P90; red: zero',
    `${ticks}
<polygon points="${band}" fill="#9ecae1" fill-opacity="0.6"/>
<polyline points="${line(weeks.map((w) => Number(w.bands!.closing.p50)))}" fill="none" stroke="#3182bd" stroke-width="2" stroke-dasharray="5,3"/>
<polyline points="${line(weeks.map((w) => Number(w.closing)))}" fill="none" stroke="#08306b" stroke-width="2"/>
<line x1="${M.left}" x2="${W - M.right}" y1="${y(0)}" y2="${y(0)}" stroke="#c00" stroke-width="1"/>
${labels}
<text x="${(W + M.left) / 2}" y="${H - M.bottom + 34}" text-anchor="middle">week</text>`,
  );
}

function coverageChart(r: ReturnType<typeof backtestLedger>): string {
  const c = r.methods.cashline.byHorizon;
  const series = [
    ['receipts', '#31a354'],
    ['payments', '#e6550d'],
    ['closing', '#3182bd'],
  ] as const;
  const x = (k: number) => M.left + ((W - M.left - M.right) * (k + 0.5)) / 13;
  const y = (v: number) => M.top + (H - M.top - M.bottom) * (1 - (v - 0.5) / 0.5);
  const bw = (W - M.left - M.right) / 13 / 4;
  const bars = series
    .flatMap(([name, colour], i) =>
      c[name].map((h, k) => `<rect x="${x(k) - 1.5 * bw + i * bw}" y="${y(h.coverage80)}" width="${bw - 1}" height="${y(0.5) - y(h.coverage80)}" fill="${colour}"><title>${name} week ${h.week}: ${h.coverage80}</title></rect>`),
    )
    .join('\n');
  const grid = [0.5, 0.6, 0.7, 0.8, 0.9, 1]
    .map((v) => `<line x1="${M.left}" x2="${W - M.right}" y1="${y(v)}" y2="${y(v)}" stroke="${v === 0.8 ? '#000' : '#eee'}"${v === 0.8 ? ' stroke-dasharray="4,3"' : ''}/><text x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(1)}</text>`)
    .join('\n');
  const labels = Array.from({ length: 13 }, (_, k) => `<text x="${x(k)}" y="${H - M.bottom + 16}" text-anchor="middle">${k + 1}</text>`).join('\n');
  const legend = series.map(([name, colour], i) => `<rect x="${W - M.right - 330 + i * 110}" y="${M.top - 14}" width="10" height="10" fill="${colour}"/><text x="${W - M.right - 316 + i * 110}" y="${M.top - 5}">${name}</text>`).join('\n');
  return frame(
    `${demo.name} (the demo): how often the 80% band held, by weeks ahead`,
    `backtest over ${r.cutoffs} weekly cut-offs, each band as calibrated on what was known at its cut-off`,
    'dashed: the 0.80 target; grey: 0.70 to 0.90',
    `<rect x="${M.left}" y="${y(0.9)}" width="${W - M.left - M.right}" height="${y(0.7) - y(0.9)}" fill="#f5f5f5"/>
${grid}
${bars}
${labels}
${legend}
<text x="${(W + M.left) / 2}" y="${H - M.bottom + 34}" text-anchor="middle">weeks ahead</text>`,
  );
}
