/**
 * Issue 21, the read replica (docs/scaling.md "Read replica"), tested for
 * real: a hot standby of the local PostgreSQL (test/helpers/standby.ts:
 * pg_basebackup -R into a temporary folder, on another port) behind the API
 * (the store opened with it, as DATABASE_REPLICA_URL does). One standby for
 * the file; it is paused, stopped and frozen mid-run, and removed afterwards
 * even when a test fails. It cannot start: the file fails, never skips.
 *
 * How a test knows who answered: with the standby's replay paused, a contact
 * written on the primary is in the answer of the primary and not in the
 * standby's. One test runs the real `cashline-server serve` (dist/: npm run
 * build first) with DATABASE_REPLICA_URL; the others an in-process server.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ROUTE_SCOPES, toleratesStaleness } from '../src/api/route.js';
import { rows } from '../src/store/db.js';
import * as s from '../src/store/schema.js';
import { type JsonResponse, startTestApi, type TestApi } from './helpers/http.js';
import { serveProcess } from './helpers/net.js';
import { ops } from './helpers/ops.js';
import { startStandby, type Standby } from './helpers/standby.js';
import { withSearchPath } from './helpers/store.js';
import { seedLedger, T0 } from './lists-fixture.js';

const MAX_LAG_SECONDS = 2;
/** Endpoints that tolerate staleness, with data in the fixture. */
const PATHS = ['/api/agent/contacts?limit=5', '/api/agent/invoices?limit=5', '/api/agent/bills', '/api/agent/credit-notes', '/api/agent/purchase-orders'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('read replica on a hot standby of the local PostgreSQL', () => {
  let standby: Standby | undefined;
  let api: TestApi;
  const keys: string[] = [];
  let markers = 0;

  const replica = () => api.store.replica!;
  /** Resolves with the ms it took for the monitor to send reads to `where`; fails after `ms`. */
  const readsGoTo = async (where: 'replica' | 'primary', ms: number): Promise<number> => {
    const t0 = performance.now();
    while (replica().status().readsGoTo !== where) {
      if (performance.now() - t0 > ms) throw new Error(`reads still not on the ${where} after ${ms} ms: ${JSON.stringify(replica().status())}`);
      await sleep(10);
    }
    return performance.now() - t0;
  };
  /** Waits until the standby has replayed everything the primary had written when called. */
  const replayed = async () => {
    const lsn = (await rows<{ lsn: string }>(api.store.db, sql`select pg_current_wal_lsn()::text as lsn`))[0]!.lsn;
    const c = new pg.Client({ connectionString: standby!.url() });
    await c.connect();
    try {
      for (let i = 0; !(await c.query('select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', [lsn])).rows[0].ok; i++) {
        if (i > 500) throw new Error('the standby did not catch up within 5 s');
        await sleep(10);
      }
    } finally {
      await c.end();
    }
  };
  const contactIds = async (key = keys[0]!): Promise<string[]> => {
    const res = (await api.get('/api/agent/contacts?limit=200', key)) as JsonResponse;
    expect(res.status).toBe(200);
    return (await res.json()).contacts.map((c: { id: string }) => c.id);
  };
  /** Writes a contact on the primary (`during` runs while it exists), then removes it. */
  const withMarker = async <T>(during: (id: string) => Promise<T>): Promise<T> => {
    const id = `replica-marker-${++markers}`;
    await api.store.db.insert(s.contacts).values({ orgId: 'o1', id, name: `Replica marker ${markers}`, isCustomer: true, lastSyncedAt: T0 });
    try {
      return await during(id);
    } finally {
      await api.store.db.delete(s.contacts).where(and(eq(s.contacts.orgId, 'o1'), eq(s.contacts.id, id)));
    }
  };
  /** Whether the standby answers the list reads right now (its replay paused for a moment). */
  const answeredByStandby = async (): Promise<boolean> => {
    await standby!.pauseReplay();
    try {
      return await withMarker(async (id) => !(await contactIds()).includes(id));
    } finally {
      await standby!.resumeReplay();
    }
  };
  const opsEnv = () => ({
    DATABASE_URL: api.store.url!,
    DATABASE_REPLICA_URL: withSearchPath(standby!.url(), api.store.schema!),
    DATABASE_REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
    CASHLINE_LOG_LEVEL: 'silent',
  });

  beforeAll(async () => {
    standby = await startStandby();
    api = await startTestApi('postgres', { replica: { url: standby.url(), maxLagSeconds: MAX_LAG_SECONDS } });
    await api.org({ id: 'o1', name: 'One Pty', plan: 'Reserve', baseCurrency: 'AUD' });
    await api.org({ id: 'o2', name: 'Two Ltd', plan: 'Reserve', baseCurrency: 'NZD' });
    await seedLedger(api.store.db, { orgsExist: true });
    for (let i = 0; i < 8; i++) keys.push(await api.key('o1'));
    await replayed();
    await readsGoTo('replica', 10_000);
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    standby?.destroy();
  });

  it('every endpoint but /status and /orgs reads through the replica; the pipeline and the audit use the primary', async () => {
    const agent = [...ROUTE_SCOPES.keys()].filter((t) => t.startsWith('/api/agent/') && !t.startsWith('/api/agent/test-'));
    expect(agent.length).toBeGreaterThan(25);
    expect(agent.filter((t) => !toleratesStaleness(t)).sort()).toEqual(['/api/agent/orgs', '/api/agent/status']);

    expect(await answeredByStandby()).toBe(true);
    // The request wrote its audit row and spent its credit (the standby is read-only: those went to the primary).
    const audited = await api.audit('o1');
    expect(audited.filter((a) => a.route === '/api/agent/contacts' && a.status === 200).length).toBeGreaterThan(0);
    // /status reads the caller's credits on the primary: the contact reads just made are counted.
    const status = (await api.get('/api/agent/status', keys[0])) as JsonResponse;
    expect(status.status).toBe(200);
    const body = await status.json();
    expect(body.quota.used).toBeGreaterThan(0);
    expect(body.usage.remaining).toBeLessThan(5_000);
    // The replica is for operators: nothing of it in the agents' answers.
    expect(JSON.stringify(body)).not.toMatch(/replica|lagSeconds|lagBytes/i);
  });

  it('over the lag bound reads go to the primary, and come back once caught up; cashline-server status shows the lag', async () => {
    await standby!.pauseReplay();
    const pausedAt = performance.now();
    let resumed = false;
    try {
      await withMarker(async (id) => {
        // Within the bound: the standby answers, without the contact.
        expect(await contactIds()).not.toContain(id);
        await readsGoTo('primary', 5_000);
        // Reads leave only once the lag exceeds the bound (about 2 s), not at the first byte of lag.
        expect(performance.now() - pausedAt).toBeGreaterThan(1_000);
        expect(replica().status()).toMatchObject({ state: 'lagging', readsGoTo: 'primary', maxLagSeconds: MAX_LAG_SECONDS });
        expect(await contactIds()).toContain(id);

        const st = await ops(['status'], opsEnv());
        expect(st.code, st.stderr).toBe(0);
        expect(st.json).toMatchObject({ store: 'postgres', replica: { state: 'lagging', readsGoTo: 'primary', maxLagSeconds: MAX_LAG_SECONDS } });
        expect(st.json.replica.lagSeconds).toBeGreaterThan(MAX_LAG_SECONDS);
        expect(st.json.replica.lagBytes).toBeGreaterThan(0);

        await standby!.resumeReplay();
        resumed = true;
        const backMs = await readsGoTo('replica', 3_000);
        console.log(`replay paused: reads on the primary after ${Math.round(performance.now() - pausedAt - backMs)} ms (bound ${MAX_LAG_SECONDS} s); back on the replica ${Math.round(backMs)} ms after the replay resumed`);
        expect(await contactIds()).toContain(id); // replayed now
      });
    } finally {
      if (!resumed) await standby!.resumeReplay();
    }
    const st = await ops(['status'], opsEnv());
    expect(st.json.replica).toMatchObject({ state: 'up', readsGoTo: 'replica' });
    expect(st.json.replica.lagSeconds).toBeLessThanOrEqual(MAX_LAG_SECONDS);
    expect(await answeredByStandby()).toBe(true);
  });

  it('cashline-server serve with DATABASE_REPLICA_URL (the real binary) answers lists from the standby', async () => {
    const served = await serveProcess({ ...opsEnv(), CASHLINE_LOG_LEVEL: 'info' }, ['--no-workers']);
    try {
      const ids = async () => {
        const res = await fetch(`${served.url}/api/agent/contacts?limit=200`, { headers: { authorization: `Bearer ${keys[1]}` } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { contacts: { id: string }[] }).contacts.map((c) => c.id);
      };
      // Said in the 'listening' line (or, if its first probe was still under way, on the change that follows).
      for (let i = 0; !served.output().includes('"readsGoTo":"replica"'); i++) {
        if (i > 500) throw new Error(`the served process never used the replica:\n${served.output()}`);
        await sleep(10);
      }
      await standby!.pauseReplay();
      try {
        await withMarker(async (id) => expect(await ids()).not.toContain(id));
      } finally {
        await standby!.resumeReplay();
      }
    } finally {
      served.child.kill('SIGKILL');
    }
  });

  it('cashline-server status without a replica says so; a replica without DATABASE_URL is refused at start-up', async () => {
    const none = await ops(['status'], { DATABASE_URL: api.store.url!, CASHLINE_LOG_LEVEL: 'silent' });
    expect(none.json).toEqual({ store: 'postgres', replica: null });
    const bad = await ops(['status'], { DATABASE_REPLICA_URL: standby!.url(), CASHLINE_DATA_DIR: 'memory://' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/DATABASE_REPLICA_URL: needs DATABASE_URL/);
  });

  /** Clients reading list endpoints until stopped; every answer kept. */
  const load = () => {
    const answers: { at: number; ms: number; status: number | string }[] = [];
    let running = true;
    let n = 0;
    const t0 = performance.now();
    const client = async () => {
      while (running) {
        const i = n++;
        const at = performance.now() - t0;
        let status: number | string;
        try {
          const res = await fetch(`${api.url}${PATHS[i % PATHS.length]}`, {
            headers: { authorization: `Bearer ${keys[i % keys.length]}` },
            signal: AbortSignal.timeout(10_000),
          });
          await res.arrayBuffer();
          status = res.status;
        } catch (e) {
          status = String(e);
        }
        answers.push({ at, ms: performance.now() - t0 - at, status });
        await sleep(40);
      }
    };
    const clients = Array.from({ length: 4 }, client);
    return {
      answers,
      since: () => performance.now() - t0,
      async stop() {
        running = false;
        await Promise.all(clients);
        return answers;
      },
    };
  };

  it('the standby stopped mid-run: no request fails, reads on the primary within 2 s; started again: reads return to it', async () => {
    const l = load();
    await sleep(800);
    const stopAt = l.since();
    const stopping = standby!.stop();
    const switchMs = await readsGoTo('primary', 2_000);
    await stopping;
    await sleep(1_500);
    const restartAt = l.since();
    await standby!.start();
    const backMs = await readsGoTo('replica', 10_000);
    await sleep(800);
    const answers = await l.stop();
    const failed = answers.filter((a) => a.status !== 200);
    expect(failed.map((a) => `${a.status} at ${Math.round(a.at)} ms`)).toEqual([]);
    // Every answer the outage touched (those in flight when it began included).
    const during = answers.filter((a) => a.at + a.ms > stopAt && a.at < restartAt);
    expect(during.length).toBeGreaterThan(10);
    console.log(
      `standby stopped: reads on the primary after ${Math.round(switchMs)} ms, ${during.length} answers while it was down (slowest ${Math.round(Math.max(...during.map((a) => a.ms)))} ms), ` +
        `back on it ${Math.round(backMs)} ms after pg_ctl start returned; ${answers.length} answers, all 200`,
    );
    expect(switchMs).toBeLessThan(2_000);
    expect(await answeredByStandby()).toBe(true);
  });

  it('the standby hung (SIGSTOP): answers within about 2 s, none fails; resumed: reads return to it', async () => {
    const l = load();
    await sleep(800);
    const frozenAt = l.since();
    standby!.freeze();
    let thawed = false;
    try {
      const switchMs = await readsGoTo('primary', 2_000);
      await sleep(1_500);
      standby!.thaw();
      thawed = true;
      const thawAt = l.since();
      const backMs = await readsGoTo('replica', 5_000);
      await sleep(500);
      const answers = await l.stop();
      expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} at ${Math.round(a.at)} ms`)).toEqual([]);
      const during = answers.filter((a) => a.at + a.ms > frozenAt && a.at < thawAt);
      const slowest = Math.max(...during.map((a) => a.ms));
      console.log(
        `standby frozen: reads on the primary after ${Math.round(switchMs)} ms, ${during.length} answers while frozen (slowest ${Math.round(slowest)} ms); back ${Math.round(backMs)} ms after SIGCONT`,
      );
      expect(switchMs).toBeLessThan(2_000);
      expect(slowest).toBeLessThan(2_500);
    } finally {
      if (!thawed) standby!.thaw();
      await l.stop();
    }
    expect(await answeredByStandby()).toBe(true);
  });
});
