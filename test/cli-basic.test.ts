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
    const tools = await rows<{ tool: string }>(api.store.db, sql`select tool from audit_log where org_id = ${orgId} order by id`);
    expect(tools.map((t) => t.tool)).toEqual(['service.cli_status', 'service.cli_orgs']);
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
