/**
 * HTTP for large answers and browsers (issue 21; docs/api.md#http): answers
 * over 1 KB are gzip- or deflate-encoded when the client accepts it (the same
 * JSON once decoded, counted like any other read), smaller ones and clients
 * that do not ask stay plain; CORS is off by default and, with
 * CASHLINE_CORS_ORIGINS, answers the configured origins only (preflight
 * included). Raw node:http requests, so that nothing decodes behind the
 * test's back.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/http.js';
import { seedLedger } from './lists-fixture.js';
import { loadConfig, ConfigError } from '../src/config.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { encodeOnce } from '../src/api/compression.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function raw(url: string, method: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The answer without what changes from one request to the next (credits left). */
const stable = (body: Buffer) => {
  const { usage: _usage, ...rest } = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  return rest;
};

describe('compression (pglite)', () => {
  let api: TestApi;
  let key: string;
  beforeAll(async () => {
    api = await startTestApi('pglite');
    await api.org({ id: 'o1', name: 'One Pty', plan: 'Reserve', baseCurrency: 'AUD' });
    await api.org({ id: 'o2', name: 'Two Ltd', plan: 'Reserve', baseCurrency: 'NZD' });
    await seedLedger(api.store.db, { orgsExist: true });
    await recomputeForecast(api.store.db, 'o1', api.clock.now());
    key = await api.key('o1');
  });
  afterAll(async () => {
    await api?.close();
  });

  it('a large answer is gzip- or deflate-encoded when asked, the same JSON once decoded; a client that does not ask gets it plain', async () => {
    const url = `${api.url}/api/agent/invoices?limit=200`;
    const plain = await raw(url, 'GET', { authorization: `Bearer ${key}` });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const gz = await raw(url, 'GET', { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' });
    expect([gz.status, gz.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect(gz.body.length).toBeLessThan(plain.body.length / 3);
    expect(stable(gunzipSync(gz.body))).toEqual(stable(plain.body));
    const df = await raw(url, 'GET', { authorization: `Bearer ${key}`, 'accept-encoding': 'deflate' });
    expect(df.headers['content-encoding']).toBe('deflate');
    expect(stable(inflateSync(df.body))).toEqual(stable(plain.body));
    expect(gz.headers.vary).toMatch(/Accept-Encoding/);
    // The client's preference by q-value; brotli first on a tie. The OpenAPI document (public, large) too.
    const doc = await raw(`${api.url}/api/agent/openapi.json`, 'GET', { 'accept-encoding': 'gzip, deflate, br' });
    expect(doc.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(doc.body).toString('utf8')).openapi).toMatch(/^3\.1/);
    const gzFirst = await raw(`${api.url}/api/agent/openapi.json`, 'GET', { 'accept-encoding': 'br;q=0.5, gzip' });
    expect(gzFirst.headers['content-encoding']).toBe('gzip');
    const none = await raw(`${api.url}/api/agent/openapi.json`, 'GET', { 'accept-encoding': 'identity, gzip;q=0' });
    expect(none.headers['content-encoding']).toBeUndefined();
  });

  it('a small answer stays plain; an encoded read is charged like any other', async () => {
    const small = await raw(`${api.url}/api/agent/status`, 'GET', { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    const before = Number((await raw(`${api.url}/api/agent/invoices?limit=1`, 'GET', { authorization: `Bearer ${key}` })).headers['x-service-quota-remaining']);
    const gz = await raw(`${api.url}/api/agent/invoices?limit=200`, 'GET', { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' });
    expect(Number(gz.headers['x-service-quota-remaining'])).toBe(before - 1);
  });

  it('ETag and If-None-Match: the same answer again is a 304 without a body, charged and counted like a 200; a changed one is a 200', async () => {
    const url = `${api.url}/api/agent/invoices?limit=50`;
    const first = await raw(url, 'GET', { authorization: `Bearer ${key}` });
    const tag = String(first.headers.etag);
    expect(tag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const credits = (r: Raw) => Number(/"credits";r=(\d+)/.exec(String(r.headers.ratelimit))![1]);
    const again = await raw(url, 'GET', { authorization: `Bearer ${key}`, 'if-none-match': tag });
    expect([again.status, again.body.length, again.headers.etag]).toEqual([304, 0, tag]);
    // Charged like the read it is: one credit and one call of the daily bucket, the envelope headers on it.
    expect(credits(again)).toBe(credits(first) - 1);
    expect(Number(again.headers['x-service-quota-remaining'])).toBe(Number(first.headers['x-service-quota-remaining']) - 1);
    expect(again.headers['x-service-plan']).toBe('Reserve');
    // Encoded, the validator is weak and still matches.
    const gz = await raw(url, 'GET', { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' });
    expect(gz.headers.etag).toBe(`W/${tag}`);
    // The 304's credit was kept (not given back after the answer): the next call spends the one after it.
    expect(credits(gz)).toBe(credits(again) - 1);
    expect((await raw(url, 'GET', { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip', 'if-none-match': `W/${tag}` })).status).toBe(304);
    // Another answer (a page of one) does not match.
    const other = await raw(`${api.url}/api/agent/invoices?limit=1`, 'GET', { authorization: `Bearer ${key}`, 'if-none-match': tag });
    expect(other.status).toBe(200);
    // Errors carry no ETag and are never kept.
    const bad = await raw(`${api.url}/api/agent/invoices?limit=0`, 'GET', { authorization: `Bearer ${key}`, 'if-none-match': tag });
    expect([bad.status, bad.headers.etag, bad.headers['cache-control']]).toEqual([400, undefined, 'no-store']);
  });

  it('the forecast and the other snapshot-backed answers are the same until the snapshot changes: If-None-Match gives 304, and a new snapshot a 200', async () => {
    const paths = ['/api/agent/forecast', '/api/agent/forecast?detail=summary', '/api/agent/forecast/items?week=0', '/api/agent/cash-position', '/api/agent/scenarios'];
    const tags: string[] = [];
    for (const path of paths) {
      const a = await raw(`${api.url}${path}`, 'GET', { authorization: `Bearer ${key}` });
      const b = await raw(`${api.url}${path}`, 'GET', { authorization: `Bearer ${key}`, 'if-none-match': String(a.headers.etag) });
      expect([path, a.status, b.status]).toEqual([path, 200, 304]);
      tags.push(String(a.headers.etag));
    }
    await recomputeForecast(api.store.db, 'o1', new Date(api.clock.now().getTime() + 60_000));
    const after = await raw(`${api.url}${paths[0]}`, 'GET', { authorization: `Bearer ${key}`, 'if-none-match': tags[0]! });
    expect(after.status).toBe(200);
  });

  it('a cached answer (the same bytes object request after request) is encoded once: the very same bytes again; other bytes are encoded afresh', async () => {
    const a = Buffer.from(JSON.stringify({ weeks: 'x'.repeat(5000) }));
    const keptA = { encodings: new Map<string, Promise<Buffer>>() };
    const gz = await encodeOnce(a, 'gzip', keptA);
    expect(gunzipSync(gz).equals(a)).toBe(true);
    expect(await encodeOnce(a, 'gzip', keptA)).toBe(gz);
    const br = await encodeOnce(a, 'br', keptA);
    expect(brotliDecompressSync(br).equals(a)).toBe(true);
    expect(await encodeOnce(a, 'br', keptA)).toBe(br);
    // Equal bytes kept with another object, or nothing to keep it with: encoded again (the same output).
    const copy = Buffer.from(a);
    const again = await encodeOnce(copy, 'gzip', { encodings: new Map() });
    expect(again).not.toBe(gz);
    expect(again.equals(gz)).toBe(true);
    expect(await encodeOnce(a, 'gzip', null)).not.toBe(gz);
    // Requests at the same time share one encoding, and two encodings under way at once are both kept.
    const b = Buffer.from(JSON.stringify({ weeks: 'y'.repeat(5000) }));
    const keptB = { encodings: new Map<string, Promise<Buffer>>() };
    const [g1, g2, br1] = await Promise.all([encodeOnce(b, 'gzip', keptB), encodeOnce(b, 'gzip', keptB), encodeOnce(b, 'br', keptB)]);
    expect(g2).toBe(g1);
    expect(await encodeOnce(b, 'br', keptB)).toBe(br1);
    expect(await encodeOnce(b, 'gzip', keptB)).toBe(g1);
  });

  it('CORS is off by default: no Access-Control header, even for an Origin', async () => {
    const r = await raw(`${api.url}/api/agent/status`, 'GET', { authorization: `Bearer ${key}`, origin: 'https://app.example.com' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});

describe('CORS with CASHLINE_CORS_ORIGINS (pglite)', () => {
  let api: TestApi;
  let key: string;
  const ORIGIN = 'https://app.example.com';
  beforeAll(async () => {
    api = await startTestApi('pglite', { env: { CASHLINE_CORS_ORIGINS: `${ORIGIN}, https://admin.example.com` } });
    await api.org({ id: 'o1', name: 'One Pty', plan: 'Reserve' });
    key = await api.key('o1');
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers a configured origin (the envelope headers readable) and not another', async () => {
    const ok = await raw(`${api.url}/api/agent/status`, 'GET', { authorization: `Bearer ${key}`, origin: ORIGIN });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(ok.headers['access-control-expose-headers'])).toMatch(/X-Service-Quota-Remaining/);
    const other = await raw(`${api.url}/api/agent/status`, 'GET', { authorization: `Bearer ${key}`, origin: 'https://evil.example.net' });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a preflight is answered 204 with the methods and headers a client may send, and costs nothing', async () => {
    const audited = (await api.audit('o1')).length;
    const pre = await raw(`${api.url}/api/agent/invoices`, 'OPTIONS', {
      origin: ORIGIN,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization, x-service-org-id',
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(pre.headers['access-control-allow-methods'])).toBe('GET,HEAD,OPTIONS');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toMatch(/authorization.*x-service-org-id/);
    expect(pre.headers['access-control-max-age']).toBe('600');
    expect((await api.audit('o1')).length).toBe(audited);
  });

  it('a bad value stops start-up naming the variable', () => {
    for (const v of ['app.example.com', 'https://app.example.com/path', ' , ']) {
      expect(() => loadConfig({ CASHLINE_CORS_ORIGINS: v })).toThrow(ConfigError);
      expect(() => loadConfig({ CASHLINE_CORS_ORIGINS: v })).toThrow(/CASHLINE_CORS_ORIGINS/);
    }
    expect(loadConfig({ CASHLINE_CORS_ORIGINS: '*' }).CASHLINE_CORS_ORIGINS).toEqual(['*']);
  });
});
