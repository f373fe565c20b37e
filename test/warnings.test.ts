/**
 * Nothing silently ignored (decisions.md): where the specification lets the
 * service ignore a value (an unknown status, a malformed X-Service-Tool), or a
 * parameter the endpoint does not take, or a cursor beside autoPaginate, the
 * answer still succeeds and carries `warnings: [{parameter, value, message}]`;
 * without any of them `warnings` is absent. On both backends, on lists,
 * the forecast, analytics and status; and the CLI shows them.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/http.js';
import { BACKENDS } from './helpers/store.js';
import { seedLedger } from './lists-fixture.js';
import { recomputeBaselines } from '../src/jobs/baselines.js';
import { recomputeForecast } from '../src/jobs/forecast.js';

const BIN = resolve(import.meta.dirname, '..', 'dist', 'bin', 'cashline.js');
const NOW = new Date('2026-03-01T09:00:00Z');

describe.each(BACKENDS)('warnings for what was ignored (%s)', (kind) => {
  let api: TestApi;
  let key: string;
  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW.toISOString() });
    await api.org({ id: 'o1', name: 'One Pty', plan: 'Reserve', baseCurrency: 'AUD' });
    await api.org({ id: 'o2', name: 'Two Ltd', plan: 'Reserve', baseCurrency: 'NZD' });
    await seedLedger(api.store.db, { orgsExist: true });
    await api.ledger('o1');
    await recomputeBaselines(api.store.db, 'o1', NOW);
    await recomputeForecast(api.store.db, 'o1', NOW);
    key = await api.key('o1');
  });
  afterAll(async () => {
    await api?.close();
  });

  const body = async (path: string, headers: Record<string, string> = {}) => {
    const res = await api.get(path, key, headers);
    expect(res.status, path).toBe(200);
    return res.json();
  };

  it('an unknown status value (a misspelt AUTHORISED) is ignored and reported; the known ones still filter', async () => {
    const b = await body('/api/agent/invoices?status=AUTHORIZED,PAID');
    expect(b.warnings).toEqual([{ parameter: 'status', value: 'AUTHORIZED', message: expect.stringContaining('AUTHORISED') }]);
    expect(b.invoices.length).toBeGreaterThan(0);
    expect(b.invoices.every((i: { ledgerStatus: string }) => i.ledgerStatus === 'PAID')).toBe(true);
    // Nothing known left: no filter at all, and the warning says which value was dropped.
    const none = await body('/api/agent/bills?status=OVERDUE');
    expect(none.warnings).toEqual([{ parameter: 'status', value: 'OVERDUE', message: expect.any(String) }]);
    // Purchase orders have their own vocabulary: PAID is unknown there.
    const po = await body('/api/agent/purchase-orders?status=BILLED,PAID');
    expect(po.warnings).toEqual([{ parameter: 'status', value: 'PAID', message: expect.any(String) }]);
  });

  it('an unknown parameter is reported on every kind of endpoint (lists, forecast, analytics, status)', async () => {
    for (const path of [
      '/api/agent/invoices?stauts=PAID',
      '/api/agent/contacts?sortt=revenue_desc',
      '/api/agent/forecast?week=3',
      '/api/agent/cash-position?x=1',
      '/api/agent/daily-summary?x=1',
      '/api/agent/revenue/summary?from=2026-01-01',
      '/api/agent/status?verbose=true',
    ]) {
      const b = await body(path);
      const [name, value] = new URL(path, 'http://x').search.slice(1).split('=');
      expect(b.warnings, path).toEqual([{ parameter: name, value, message: expect.stringMatching(/^unknown parameter, ignored/) }]);
    }
  });

  it('a cursor beside autoPaginate, and an X-Service-Tool off the pattern, are reported', async () => {
    const first = await body('/api/agent/invoices?limit=1');
    const all = await body(`/api/agent/invoices?autoPaginate=true&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(all.warnings).toEqual([{ parameter: 'cursor', value: first.nextCursor, message: expect.stringContaining('autoPaginate') }]);
    const tool = await body('/api/agent/status', { 'x-service-tool': 'My Tool' });
    expect(tool.warnings).toEqual([{ parameter: 'X-Service-Tool', value: 'My Tool', message: expect.any(String) }]);
    const [audit] = await api.audit('o1');
    expect(audit).toMatchObject({ route: '/api/agent/status', tool: null });
  });

  it('warnings are absent when nothing was ignored', async () => {
    for (const path of [
      '/api/agent/invoices?status=AUTHORISED,paid&limit=5',
      '/api/agent/contacts?sort=revenue_desc',
      '/api/agent/forecast?weeks=3',
      '/api/agent/cash-position',
      '/api/agent/daily-summary',
      '/api/agent/revenue/summary?dateFrom=2026-01-01',
      '/api/agent/status',
      '/api/agent/invoices?orgId=o1',
    ]) {
      expect((await body(path, { 'x-service-tool': 'service.test_tool' })).warnings, path).toBeUndefined();
    }
  });

  it.runIf(kind === 'pglite')('the CLI prints each warning on stderr and keeps them in its JSON', async () => {
    const env = { PATH: process.env.PATH!, CASHLINE_BASE_URL: api.url, CASHLINE_API_KEY: key };
    const r = await promisify(execFile)('node', [BIN, 'invoices', '--status', 'AUTHORIZED'], { env });
    expect(r.stderr).toMatch(/^warning: status=AUTHORIZED: unknown status, ignored/m);
    expect(JSON.parse(r.stdout).warnings).toHaveLength(1);
    const table = await promisify(execFile)('node', [BIN, 'invoices', '--status', 'AUTHORIZED', '--format', 'table'], { env });
    expect(table.stderr).toMatch(/^warning: status=AUTHORIZED/m);
    expect(table.stdout).not.toMatch(/warnings/);
  });
});
