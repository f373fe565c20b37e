/**
 * The `cashline` executable as a child process against a real server (spec 7:
 * `error: <kind> - <message>`, non-zero exit; spec 5.6: X-Service-Tool).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { startTestApi, type TestApi } from './helpers/http.js';
import { rows } from '../src/store/db.js';
import * as s from '../src/store/schema.js';

const BIN = resolve(import.meta.dirname, '..', 'dist', 'bin', 'cashline.js');
const run = async (args: string[], env: Record<string, string>) => {
  try {
    const r = await promisify(execFile)('node', [BIN, ...args], { env: { PATH: process.env.PATH!, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
};

describe('cashline (client executable)', () => {
  let api: TestApi;
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    api = await startTestApi('pglite');
    orgId = (await api.org({ name: 'Cli Co' })).orgId;
    key = await api.key(orgId);
    const item = (id: string, status: string, sortDate: string, total: string) => ({
      orgId, id, source: 'LEDGER_INVOICE', ledgerType: 'ACCREC', number: `INV-${id}`, ledgerStatus: status,
      status: status === 'PAID' ? 'ACTUAL' : 'FORECAST', currency: 'AUD', issueDate: sortDate, dueDate: sortDate, sortDate,
      subTotal: total, totalTax: '0', total, amountDue: status === 'PAID' ? '0' : total, amountPaid: status === 'PAID' ? total : '0',
      amountCredited: '0', lastSyncedAt: new Date(),
    });
    await api.store.db.insert(s.cashItems).values([
      item('a', 'PAID', '2026-10-01', '100.5'),
      item('b', 'AUTHORISED', '2026-10-15', '200'),
      item('c', 'AUTHORISED', '2026-11-01', '300.25'),
    ]);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('prints the JSON of the endpoint and sends X-Service-Tool: service.cli_<subcommand>', async () => {
    const r = await run(['status'], { CASHLINE_BASE_URL: api.url, CASHLINE_API_KEY: key });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).key.orgId).toBe(orgId);
    const orgs = await run(['orgs', '--base-url', api.url, '--api-key', key], {});
    expect(JSON.parse(orgs.stdout).orgs[0].id).toBe(orgId);
    const tools = await api.audit(orgId);
    expect(tools.map((t) => t.tool).reverse().slice(0, 2)).toEqual(['service.cli_status', 'service.cli_orgs']);
  });

  it('list subcommands map their flags to the query parameters (spec 1: "Its flags map to the query parameters")', async () => {
    const env = { CASHLINE_BASE_URL: api.url, CASHLINE_API_KEY: key };
    const all = JSON.parse((await run(['invoices', '--all', '--totals'], env)).stdout);
    expect(all.invoices.map((i: { id: string }) => i.id)).toEqual(['c', 'b', 'a']);
    expect(all.totals.grandTotal).toEqual({ count: 3, amount: '600.75' });
    const open = JSON.parse((await run(['invoices', '--status', 'AUTHORISED', '--date-from', '2026-10-10', '--date-to', '2026-10-31'], env)).stdout);
    expect(open.invoices.map((i: { id: string }) => i.id)).toEqual(['b']);
    const page = JSON.parse((await run(['invoices', '--limit', '2'], env)).stdout);
    expect(page.invoices).toHaveLength(2);
    const next = JSON.parse((await run(['invoices', '--limit', '2', '--cursor', page.nextCursor], env)).stdout);
    expect(next.invoices.map((i: { id: string }) => i.id)).toEqual(['a']);
    expect(next.nextCursor).toBeNull();
  });

  it('flags are validated before any request; a missing drill is not_found', async () => {
    const env = { CASHLINE_BASE_URL: api.url, CASHLINE_API_KEY: key };
    await api.audit(orgId); // the server's buffered rows written
    const [before] = await rows<{ n: number }>(api.store.db, sql`select count(*)::int8 as n from audit_log`);
    const badDate = await run(['invoices', '--date-from', '2024-02-30'], env);
    expect(badDate.stderr).toMatch(/^error: validation_error - --date-from/);
    expect(badDate.code).toBe(2);
    const badLimit = await run(['bills', '--limit', '0'], env);
    expect(badLimit.stderr).toMatch(/^error: validation_error - --limit/);
    const badType = await run(['contacts', '--type', 'robots'], env);
    expect(badType.code).toBe(2);
    await api.audit(orgId); // the server's buffered rows written
    const [after] = await rows<{ n: number }>(api.store.db, sql`select count(*)::int8 as n from audit_log`);
    expect(after!.n).toBe(before!.n);
    const missing = await run(['contact', 'no-such-contact'], env);
    expect(missing.stderr).toMatch(/^error: not_found - /);
    expect(missing.code).toBe(6);
  });

  it('errors are `error: <kind> - <message>` with a distinct exit code per kind', async () => {
    const auth = await run(['status'], { CASHLINE_BASE_URL: api.url, CASHLINE_API_KEY: 'cl_user_nope' });
    expect(auth.stderr).toMatch(/^error: auth_required - /);
    expect(auth.code).toBe(3);
    const missing = await run(['status'], { CASHLINE_BASE_URL: api.url });
    expect(missing.stderr).toMatch(/^error: validation_error - /);
    expect(missing.code).toBe(2);
    const down = await run(['status'], { CASHLINE_BASE_URL: 'http://127.0.0.1:1', CASHLINE_API_KEY: key });
    expect(down.stderr).toMatch(/^error: network_error - /);
    expect(down.code).toBe(9);
  });
});
