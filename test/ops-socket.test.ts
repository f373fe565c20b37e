/**
 * Operations while the embedded server runs (issue 15, docs/cli.md): the
 * server on the embedded store takes `cashline-server` commands over a Unix
 * socket in its data folder (mode 0600), so `key create`, `sensitive`,
 * `org create`, `recompute` work on the same folder while it serves, print
 * what they print when they open the store themselves, and the server sees
 * their effect; no second process opens the store. Through the built binary.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { createOrg } from '../src/store/tenancy.js';
import * as s from '../src/store/schema.js';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'dist/bin/cashline-server.js');

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  return new Promise((r) => {
    execFile('node', [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        /* not JSON */
      }
      r({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
    });
  });
}

function serve(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; baseUrl: string }> {
  return new Promise((ok, fail) => {
    const child = spawn('node', [BIN, 'serve', '--no-workers'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"baseUrl"'));
      if (line) ok({ child, baseUrl: JSON.parse(line).baseUrl });
    });
    child.on('exit', (code) => fail(new Error(`server exited ${code}: ${err.slice(-2000)}`)));
  });
}

describe('operations commands while the embedded server runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cashline-opsock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('key create, sensitive, org create and recompute run through the server, with the same output; failures exit non-zero with error:', async () => {
    const env = { CASHLINE_DATA_DIR: dir, DATABASE_URL: '', PORT: '0', CASHLINE_NOW: '2026-11-23T09:00:00Z', LOG_LEVEL: 'warn' };
    // Seed an organisation with a contact and an account (this process opens the store, then lets go).
    const store = await openStore({ dataDir: dir });
    await migrate(store.db);
    const now = new Date('2026-11-23T09:00:00Z');
    const org = await createOrg(store.db, { name: 'Socket Co', now });
    await store.db.insert(s.contacts).values({ orgId: org.orgId, id: 'c-1', name: 'Payroll', lastSyncedAt: now });
    await store.db.insert(s.accounts).values({ orgId: org.orgId, id: 'a-1', code: '477', name: 'Wages', type: 'EXPENSE', lastSyncedAt: now });
    await store.close();

    const { child, baseUrl } = await serve(env);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let failDirect: string;
    try {
      const sock = statSync(join(dir, 'cashline.sock'));
      expect(sock.isSocket()).toBe(true);
      expect(sock.mode & 0o777).toBe(0o600);

      const key = await run(['key', 'create', '--org', org.orgId, '--scopes', 'all', '--name', 'over the socket'], env);
      expect(key.code, key.stderr).toBe(0);
      expect(key.json.key).toMatch(/^cl_user_/);
      const status = await fetch(`${baseUrl}/api/agent/status`, { headers: { authorization: `Bearer ${key.json.key}` } });
      expect(status.status).toBe(200); // the server sees the key at once

      const sens = await run(['sensitive', '--org', org.orgId, '--contact', 'c-1'], env);
      expect(sens.code, sens.stderr).toBe(0);
      expect(sens.json).toBeTruthy();
      const contact = await (await fetch(`${baseUrl}/api/agent/contacts/c-1`, { headers: { authorization: `Bearer ${key.json.key}` } })).json();
      expect(JSON.stringify(contact)).toMatch(/"isSensitive":true/);

      const created = await run(['org', 'create', '--name', 'Second Co'], env);
      expect(created.code, created.stderr).toBe(0);
      expect(Object.keys(created.json).sort()).toEqual(['billingAccountId', 'orgId', 'userId']);

      const re = await run(['recompute', '--org', org.orgId], env);
      expect(re.code, re.stderr).toBe(0);
      expect(Object.keys(re.json).sort()).toEqual(['baselines', 'brief', 'calibration', 'forecast']);
      const brief = await fetch(`${baseUrl}/api/agent/orgs/${org.orgId}/daily-brief`, { headers: { authorization: `Bearer ${key.json.key}` } });
      expect(brief.status).toBe(200);

      const fail = await run(['sensitive', '--org', org.orgId, '--contact', 'nope'], env);
      expect(fail.code).not.toBe(0);
      expect(fail.stderr).toMatch(/^error: --contact/);
      expect(fail.stdout).toBe('');
      failDirect = fail.stderr;
      const serving = await run(['serve'], env);
      expect(serving.code).not.toBe(0);
      expect(serving.stderr).toMatch(/^error: .*in use/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // Stopped: the same failing command opens the store itself and says exactly the same.
    const direct = await run(['sensitive', '--org', org.orgId, '--contact', 'nope'], env);
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toBe(failDirect);
    const keyDirect = await run(['key', 'create', '--org', org.orgId, '--scopes', 'all'], env);
    expect(keyDirect.code, keyDirect.stderr).toBe(0);
  }, 180_000);
});
