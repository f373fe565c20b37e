/**
 * A `cashline-server sync` process (dist/, run `npm run build` first) killed
 * with SIGKILL mid-sync, twice, then run to the end: every page is written
 * with its watermark in one transaction, so nothing is lost and nothing is
 * duplicated — the organisation ends exactly as an import of the same bodies
 * (PostgreSQL, a child process over the real binary).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { freshStore, type TestStore } from './helpers/store.js';
import { rows } from '../src/store/db.js';
import type { XeroServer } from '../src/xero-server/server.js';
import { connectedOrg, importedOrg, ledgerRows, syncEnv, xeroServer } from './helpers/ledger.js';

const BIN = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'dist', 'bin', 'cashline-server.js');

describe('a sync process killed mid-run (PostgreSQL)', () => {
  let store: TestStore;
  let server: XeroServer;
  let orgId: string;

  beforeAll(async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build`);
    store = await freshStore('postgres');
    // A slow ledger (40 ms a call) and pages of 200 (about 50 calls, under Xero's 60 a minute), so the kill lands mid-way.
    server = await xeroServer({ latencyMs: 40, limits: { perMinute: 100_000, concurrent: 5 } });
    orgId = await connectedOrg(store.db, server, 'Killed');
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
  });

  /** Runs the sync; kills it with SIGKILL once the ledger has answered `killAfter` more calls. */
  function runSync(killAfter: number | null): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
    const start = server.requests.length;
    const child = spawn(process.execPath, [BIN, 'sync', '--org', orgId, '--page-size', '200'], {
      env: { PATH: process.env.PATH, ...syncEnv(server, store.url!) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // Killed once the ledger answered `killAfter` more calls and this run has committed a page (the watermarks moved).
    const signature = async () =>
      (
        await rows<{ sig: string | null }>(
          store.db,
          sql`select string_agg(resource || ':' || coalesce(modified_since::text, '') || ':' || next_page, ',' order by resource) as sig
              from sync_watermarks where org_id = ${orgId}`,
        )
      )[0]?.sig ?? '';
    const before = signature();
    let polling = false;
    const timer =
      killAfter === null
        ? null
        : setInterval(() => {
            if (polling || server.requests.filter((q) => q.status === 200).length - start < killAfter) return;
            polling = true;
            void Promise.all([before, signature()])
              .then(([a, b]) => {
                if (a !== b) child.kill('SIGKILL');
              })
              .finally(() => {
                polling = false;
              });
          }, 5);
    return new Promise((resolvePromise) =>
      child.on('exit', (code, signal) => {
        if (timer) clearInterval(timer);
        resolvePromise({ code, signal, stdout, stderr });
      }),
    );
  }

  it('loses nothing and duplicates nothing; the re-run converges to the imported state', async () => {
    const first = await runSync(8);
    expect(first.signal).toBe('SIGKILL');
    const partial = await rows<{ n: number }>(store.db, sql`select count(*)::int as n from cash_items where org_id = ${orgId}`);
    const wm1 = await rows<{ resource: string }>(store.db, sql`select resource from sync_watermarks where org_id = ${orgId}`);
    expect(wm1.length).toBeGreaterThan(0); // some pages were committed before the kill

    const second = await runSync(25);
    expect(second.signal).toBe('SIGKILL');
    const mid = await rows<{ n: number }>(store.db, sql`select count(*)::int as n from cash_items where org_id = ${orgId}`);
    expect(Number(mid[0]!.n)).toBeGreaterThanOrEqual(Number(partial[0]!.n));

    const last = await runSync(null);
    expect(last.code, last.stderr).toBe(0);
    const out = JSON.parse(last.stdout);
    expect(out.outcome).toBe('ok');
    expect(out.ledgerAlert).toBeUndefined();

    const ref = await importedOrg(store.db);
    expect(await ledgerRows(store.db, orgId)).toEqual(await ledgerRows(store.db, ref));
  });
});
