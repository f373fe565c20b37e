/**
 * The HTTP surface of the agent API through real HTTP, on PGlite and
 * PostgreSQL: methods and unknown paths (spec 1, 4), error bodies (spec 7,
 * decisions.md "Errors"), the OpenAPI 3.1 document and the reference page
 * (spec 9), store outages, and the graceful shutdown of the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { BACKENDS } from './helpers/store.js';
import { rawGet, rawRequest, startTestApi, testRoutes, type TestApi } from './helpers/http.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/api/server.js';
import { openStore, type Store } from '../src/store/db.js';
import { fixedClock } from '../src/clock.js';

type Json = any;

/** Resolves a local JSON pointer (#/a/b) in `doc`. */
function pointer(doc: Json, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node, p) => (node === undefined ? undefined : node[p]), doc);
}

/** Every problem found checking `doc` as an OpenAPI 3.1 document (empty when valid). */
function openApi31Problems(doc: Json): string[] {
  const problems: string[] = [];
  if (!/^3\.1\.\d+$/.test(doc.openapi)) problems.push(`openapi is ${doc.openapi}`);
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string') problems.push('info.title/version');
  if (typeof doc.paths !== 'object') problems.push('paths');
  // Every $ref resolves inside the document.
  const walk = (node: Json, at: string) => {
    if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}/${i}`));
    else if (node && typeof node === 'object') {
      if (typeof node.$ref === 'string' && (!node.$ref.startsWith('#/') || pointer(doc, node.$ref) === undefined)) {
        problems.push(`${at}: unresolved $ref ${node.$ref}`);
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    }
  };
  walk(doc, '#');
  const schemes = Object.keys(doc.components?.securitySchemes ?? {});
  const operationIds = new Set<string>();
  const deref = (x: Json) => (x?.$ref ? pointer(doc, x.$ref) : x);
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    if (!path.startsWith('/')) problems.push(`${path}: does not start with /`);
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (op.operationId) {
        if (operationIds.has(op.operationId)) problems.push(`${where}: duplicate operationId`);
        operationIds.add(op.operationId);
      }
      if (!op.responses || Object.keys(op.responses).length === 0) problems.push(`${where}: no responses`);
      for (const [code, r] of Object.entries<Json>(op.responses ?? {})) {
        if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(code)) problems.push(`${where}: response code ${code}`);
        if (typeof deref(r)?.description !== 'string') problems.push(`${where} ${code}: no description`);
      }
      const params = (op.parameters ?? []).map(deref);
      for (const p of params) {
        if (typeof p?.name !== 'string' || !['query', 'header', 'path', 'cookie'].includes(p?.in)) problems.push(`${where}: bad parameter ${JSON.stringify(p)}`);
        if (p?.in === 'path' && p.required !== true) problems.push(`${where}: path parameter ${p.name} not required`);
        if (!p?.schema && !p?.content) problems.push(`${where}: parameter ${p?.name} without schema`);
      }
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        if (!params.some((p: Json) => p.in === 'path' && p.name === name)) problems.push(`${where}: path parameter ${name} undeclared`);
      }
      for (const req of op.security ?? []) for (const name of Object.keys(req)) if (!schemes.includes(name)) problems.push(`${where}: unknown security scheme ${name}`);
    }
  }
  // Every schema is a valid JSON Schema 2020-12 (the OpenAPI 3.1 dialect).
  const ajv = schemaCompiler(doc);
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    try {
      ajv.getSchema(`cashline#/components/schemas/${name}`);
    } catch (err) {
      problems.push(`schema ${name}: ${(err as Error).message}`);
    }
  }
  return problems;
}

function schemaCompiler(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv); // a CommonJS module: its default export is `default`
  ajv.addSchema({ $id: 'cashline', components: doc.components }, 'cashline');
  return ajv;
}

/** A validator of an operation's 200 JSON body, from the document. */
function responseValidator(doc: Json, path: string) {
  const schema = doc.paths[path].get.responses['200'].content['application/json'].schema;
  return schemaCompiler(doc).compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"cashline#/components/')));
}

describe.each(BACKENDS)('agent API HTTP surface on %s', (kind) => {
  let api: TestApi;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    api = await startTestApi(kind, { extraRoutes: testRoutes, captureLogs: true });
    orgId = (await api.org({ name: 'Surface', plan: 'Reserve' })).orgId;
    key = await api.key(orgId);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('methods other than GET, HEAD and OPTIONS on any route are 405 method_not_allowed with Allow, never charged', async () => {
    // spec 1: "Only GET operations exist. No endpoint creates, changes or deletes data"; spec 4: "All endpoints are GET".
    const before = (await (await api.get('/api/agent/status', key)).json()).usage.remaining;
    const paths = ['/api/agent/status', '/api/agent/orgs', '/api/agent/test-items/a', '/api/agent/openapi.json', '/api/agent/docs', '/api/agent/nope'];
    for (const path of paths) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await api.fetch(path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
        expect(await res.json()).toEqual({ error: 'method_not_allowed', message: expect.any(String) });
      }
      // OPTIONS: 204 with Allow, no body, before authentication (so without a key too).
      for (const k of [key, null]) {
        const res = await api.fetch(path, { method: 'OPTIONS', headers: k ? { authorization: `Bearer ${k}` } : {} });
        expect(res.status, `OPTIONS ${path}`).toBe(204);
        expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
        expect(await res.text()).toBe('');
      }
    }
    expect((await (await api.get('/api/agent/status', key)).json()).usage.remaining).toBe(before);
  });

  it('HEAD answers every GET route with the same status and headers as GET and no body, and is charged like GET', async () => {
    const own = await api.key(orgId, undefined, await api.user(orgId)); // credits are per (user, billing account)
    const remaining = async () => (await (await api.get('/api/agent/status', own)).json()).usage.remaining as number;
    const start = await remaining();
    for (const [path, k] of [
      ['/api/agent/status', own],
      ['/api/agent/orgs', own],
      ['/api/agent/test-items/a', own],
      ['/api/agent/openapi.json', null],
      ['/api/agent/docs', null],
      ['/api/agent/status', null],
      ['/api/agent/nope', own],
    ] as const) {
      const headers: Record<string, string> = k ? { authorization: `Bearer ${k}` } : {};
      const get = await api.fetch(path, { method: 'GET', headers });
      const getBody = await get.text();
      const head = await api.fetch(path, { method: 'HEAD', headers });
      expect(head.status, `HEAD ${path}`).toBe(get.status);
      expect(await head.text(), `HEAD ${path} has no body`).toBe('');
      for (const h of ['content-type', 'cache-control', 'x-service-plan', 'x-service-subscription']) {
        expect(head.headers.get(h), `HEAD ${path} ${h}`).toBe(get.headers.get(h));
      }
      expect(getBody.length).toBeGreaterThan(0);
    }
    // /orgs and /test-items/a are charged once for GET and once for HEAD; status, documents and 404 paths are free.
    expect(start - (await remaining())).toBe(4);
  });

  it('method_not_allowed is among the error values of the OpenAPI document', async () => {
    const doc = await (await api.get('/api/agent/openapi.json', null)).json();
    expect(doc.components.schemas.ErrorResponse.properties.error.enum).toContain('method_not_allowed');
  });

  it('unknown paths are a JSON 404 not_found, with or without a key, and are not charged', async () => {
    // Brief/decisions.md: "not_found 404"; unknown paths under /api/agent answer 404 not_found.
    for (const path of ['/api/agent/nope', '/api/agent/status/extra', '/api/agent/', '/api/agent', '/', '/api/other']) {
      for (const k of [key, null]) {
        const res = await api.get(path, k);
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ error: 'not_found', message: expect.any(String) });
      }
    }
    expect((await (await api.get('/api/agent/status', key)).json()).usage.remaining).toBe(5000);
  });

  it('a malformed known parameter is a 400 bad_request naming it; unknown parameters are ignored', async () => {
    // decisions.md: "A malformed known parameter is a 400 that names it; unknown parameters are ignored".
    for (const [query, detail] of [['limit=abc', /limit/], ['limit=0', /limit/], ['limit=201', /limit/], ['limit=1.5', /limit/]] as const) {
      const res = await api.get(`/api/agent/test-items/a?${query}`, key);
      expect(res.status, query).toBe(400);
      const body = await res.json();
      expect(body).toEqual({ error: 'bad_request', parameter: 'limit', message: expect.stringMatching(detail) });
    }
    const ok = await api.get('/api/agent/test-items/a?limit=5&foo=bar&orgIdx=1', key);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id: 'a', limit: 5 });
  });

  it('an unexpected exception is a 500 internal_error without details; the log keeps them', async () => {
    // Brief: "an unexpected exception is a 500 internal_error"; "never a stack trace".
    const res = await api.get('/api/agent/test-boom', key);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'internal_error', message: 'Internal error.' });
    expect(text).not.toMatch(/kaboom|at |\.ts/);
    const requestId = res.headers.get('x-request-id');
    expect(api.logs.some((l) => l.requestId === requestId && l.msg === 'unhandled error')).toBe(true);
  });

  it('a store connection failure is a 503 service_unavailable with Retry-After', async () => {
    // Brief: "a store connection failure (connection refused/terminated, pool timeout) is a 503 service_unavailable with Retry-After".
    const res = await api.get('/api/agent/test-down', key);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toEqual({ error: 'service_unavailable', message: expect.any(String) });
  });

  it('request heads too large or malformed for the HTTP parser get a JSON error, not a reset', async () => {
    // Brief: odd input never crashes or hangs; errors are JSON bodies.
    const large = await rawRequest(api.url, rawGet('/api/agent/status', [Buffer.from(`Authorization: Bearer ${'a'.repeat(70_000)}`)]));
    expect(large.status).toBe(431);
    expect(JSON.parse(large.body)).toMatchObject({ error: 'bad_request' });
    const bad = await rawRequest(api.url, Buffer.from('GET /api/agent/status HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ error: 'bad_request' });
  });

  it('/api/agent/openapi.json is a valid OpenAPI 3.1 document, public, listing /status and /orgs with the security scheme and the common errors', async () => {
    // spec 9: "A machine-readable OpenAPI description is published at /api/agent/openapi.json".
    const res = await api.get('/api/agent/openapi.json', null);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(openApi31Problems(doc)).toEqual([]);
    // ...and the checker does find problems when there are some.
    const broken = structuredClone(doc);
    broken.openapi = '3.0.3';
    broken.paths['/api/agent/status'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    broken.paths['/api/agent/orgs'].get.security = [{ apiKey: [] }];
    broken.components.schemas.Quota = { type: 'integer', minimum: 'zero' };
    expect(openApi31Problems(broken)).toEqual(
      expect.arrayContaining([
        'openapi is 3.0.3',
        expect.stringContaining('unresolved $ref #/components/schemas/Nope'),
        'GET /api/agent/orgs: unknown security scheme apiKey',
        expect.stringContaining('schema Quota:'),
      ]),
    );
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const path of ['/api/agent/status', '/api/agent/orgs']) {
      const op = doc.paths[path].get;
      expect(op.security).toEqual([{ bearerAuth: [] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429', '500', '503']));
      expect(op.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
      const names = op.parameters.map((p: Json) => pointer(doc, p.$ref).name);
      expect(names).toEqual(['X-Service-Org-Id', 'orgId', 'X-Service-Tool']);
    }
    expect(doc.components.schemas.StatusResponse.required).toEqual(expect.arrayContaining(['subscription', 'quota', 'usage', 'key', 'environment']));
    expect(doc.components.schemas.ErrorResponse.required).toEqual(['error']);
    // The document tells the truth: real answers validate against it.
    const validStatus = responseValidator(doc, '/api/agent/status');
    expect(validStatus(await (await api.get('/api/agent/status', key)).json()), JSON.stringify(validStatus.errors)).toBe(true);
    const validOrgs = responseValidator(doc, '/api/agent/orgs');
    expect(validOrgs(await (await api.get('/api/agent/orgs', key)).json()), JSON.stringify(validOrgs.errors)).toBe(true);
    const { key: pkey } = await api.partner([orgId]);
    expect(validStatus(await (await api.get('/api/agent/status', pkey)).json()), JSON.stringify(validStatus.errors)).toBe(true);
  });

  it('/api/agent/docs is a self-contained HTML reference generated from the document', async () => {
    // Brief: "a small human-readable reference page at GET /api/agent/docs (plain HTML generated from the OpenAPI document; no CDN)".
    const res = await api.get('/api/agent/docs', null);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const text of ['GET /api/agent/status', 'GET /api/agent/orgs', 'X-Service-Org-Id', 'StatusResponse', '/api/agent/openapi.json']) {
      expect(html).toContain(text);
    }
    expect(html).not.toMatch(/<script|<link|src="http|@import/i);
  });
});

describe.each(BACKENDS)('an unreachable store on %s', (kind) => {
  let store: Store;
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    if (kind === 'postgres') {
      store = await openStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/nothing-listens-here' });
    } else {
      store = await openStore({ dataDir: 'memory://' });
      await store.close(); // a closed embedded store
    }
    const config = loadConfig({ CASHLINE_LOG_LEVEL: 'silent' });
    server = await startServer({ store, config, clock: fixedClock('2026-11-23T09:00:00Z'), logger: createLogger(config), host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    if (kind === 'postgres') await store?.close();
  });

  it('answers 503 service_unavailable with Retry-After, and the public document still works', async () => {
    // Brief: "a store connection failure (connection refused/terminated, pool timeout) is a 503 service_unavailable with Retry-After".
    const res = await fetch(`${server.url}/api/agent/status`, { headers: { authorization: `Bearer cl_user_${'a'.repeat(12)}_${'A'.repeat(40)}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toEqual({ error: 'service_unavailable', message: expect.any(String) });
    expect((await fetch(`${server.url}/api/agent/openapi.json`)).status).toBe(200);
  });
});

describe.each(BACKENDS)('graceful shutdown on %s', (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, { extraRoutes: testRoutes });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('close() stops accepting connections, lets in-flight requests finish, then resolves', async () => {
    // Brief: "graceful: on close/SIGTERM stop accepting, drain in-flight requests, then close".
    const o = await api.org({ name: 'Draining' });
    const k = await api.key(o.orgId);
    const slow = api.get('/api/agent/test-slow?ms=500', k);
    while (api.server.inFlight() === 0) await new Promise((r) => setTimeout(r, 5));
    let closed = false;
    const closing = api.server.close().then(() => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    await expect(fetch(`${api.url}/api/agent/status`, { headers: { authorization: `Bearer ${k}` } })).rejects.toThrow();
    expect(closed).toBe(false);
    const res = await slow;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'slow' });
    await closing;
    expect(api.server.inFlight()).toBe(0);
  });
});
