/**
 * Counters shared across API processes, and a Redis that stops answering
 * (issue 5: "Two API processes sharing PostgreSQL or Redis: 200 concurrent
 * requests for one key and endpoint give exactly 60 admitted"; "Redis stopped
 * mid-run (SIGSTOP): every request is answered within 2 s … never a wrong 429,
 * never a hang, and all is normal within 5 s after it resumes").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, type TestStore } from './helpers/store.js';
import { startTestApi, type TestApi } from './helpers/http.js';
import { REDIS_TEST_URL } from './helpers/env.js';
import { freePort, serveProcess, stopProcesses } from './helpers/net.js';
import { createKey, createOrg } from '../src/store/tenancy.js';
import { RedisLimiter } from '../src/store/redis-usage.js';
import { SCOPES } from '../src/domain/scopes.js';

describe.each([
  { name: 'PostgreSQL counters', redis: false },
  { name: 'Redis counters', redis: true },
])('three API processes sharing $name (issue 8: several instances)', ({ redis }) => {
  let store: TestStore;
  const children: ChildProcess[] = [];
  let urls: string[] = [];
  let key: string;
  let freeKey: string;
  beforeAll(async () => {
    store = await freshStore('postgres');
    const env = { DATABASE_URL: store.url!, ...(redis ? { REDIS_URL: REDIS_TEST_URL } : {}) };
    const servers = await Promise.all([serveProcess(env), serveProcess(env), serveProcess(env)]);
    for (const s of servers) children.push(s.child);
    urls = servers.map((s) => s.url);
    const { orgId } = await createOrg(store.db, { name: 'Shared', plan: 'Reserve', now: new Date() });
    key = (await createKey(store.db, { orgId, scopes: [...SCOPES], now: new Date() })).key;
    const free = await createOrg(store.db, { name: 'Shared Free', plan: 'Free', now: new Date() });
    freeKey = (await createKey(store.db, { orgId: free.orgId, scopes: [...SCOPES], now: new Date() })).key;
  }, 90_000);
  afterAll(async () => {
    await stopProcesses(children);
    await store?.close();
  });

  it('200 concurrent requests for one key and endpoint, spread over the three: exactly 60 admitted (burst)', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${urls[i % 3]}/api/agent/status`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(140);
  });

  it('200 concurrent charged requests on a Free plan over four endpoints and the three: exactly 10 admitted (credits)', async () => {
    const paths = ['/api/agent/orgs', '/api/agent/bank-accounts', '/api/agent/invoices', '/api/agent/contacts'];
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${urls[i % 3]}${paths[i % 4]}`, { headers: { authorization: `Bearer ${freeKey}` } }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string } })),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    // The rest: out of credits, or over the burst cap of their endpoint (60 each): never anything else.
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 429 && ['quota_exhausted', 'rate_limited'].includes(a.body.error!))).toBe(true);
  });
});

describe('Redis stopped mid-run (SIGSTOP)', () => {
  let redis: ChildProcess;
  let limiter: RedisLimiter;
  let api: TestApi;
  let key: string;
  beforeAll(async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const url = `redis://127.0.0.1:${port}`;
    limiter = new RedisLimiter(url, { commandTimeoutMs: 500 });
    for (let i = 0; i < 50; i++) {
      try {
        await limiter.hitBurst('ready', '/ready', new Date());
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    api = await startTestApi('postgres', { limiter: () => limiter });
    const o = await api.org({ name: 'Redis faults', plan: 'Reserve' });
    key = await api.key(o.orgId);
  }, 60_000);
  afterAll(async () => {
    redis?.kill('SIGCONT');
    redis?.kill('SIGKILL');
    await api?.close();
    await limiter?.close();
  });

  it('answers every request within 2 s with a clear 503 (never a wrong 429, never a hang), and recovers within 5 s', async () => {
    expect((await api.get('/api/agent/status', key)).status).toBe(200);
    redis.kill('SIGSTOP');
    const timed = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const t = performance.now();
        const res = await api.get('/api/agent/status', key);
        return { status: res.status, body: await res.json(), ms: performance.now() - t, retry: res.headers.get('retry-after') };
      }),
    );
    for (const r of timed) {
      expect(r.status).toBe(503);
      expect(r.body.error).toBe('service_unavailable');
      expect(r.retry).not.toBeNull();
      expect(r.ms).toBeLessThan(2_000);
    }
    redis.kill('SIGCONT');
    const resumed = performance.now();
    let ok = false;
    while (performance.now() - resumed < 5_000) {
      const res = await api.get('/api/agent/status', key);
      expect([200, 503]).toContain(res.status);
      if (res.status === 200) {
        ok = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ok).toBe(true);
    for (let i = 0; i < 5; i++) expect((await api.get('/api/agent/status', key)).status).toBe(200);
  }, 30_000);
});
