/**
 * Issue 8, fuzzing from the OpenAPI document: every GET endpoint the server
 * serves, with every parameter it declares (query, path, and the shared
 * orgId / X-Service-* parameters), drawn by fast-check from arbitraries
 * derived from each parameter's schema (format date, enum, integer,
 * boolean, free text) and mixed with hostile values: odd dates (2024-02-30),
 * huge and non-integer numbers, long strings, CRLF, NUL, unicode, SQL and
 * path fragments, and tampered or foreign cursors.
 *
 * 10,000 requests must give: 0 answers 5xx; every 400 names its parameter
 * (decisions.md: "A malformed known parameter is a 400 that names it"), and
 * that parameter is one the request sent; 0 forged cursors accepted (a
 * cursor that the server did not issue for this organisation, endpoint and
 * filters never yields a 200, spec 4.x / decisions.md "Cursors ... tamper-
 * evident"). Every answer is also checked against the OpenAPI document by the
 * test client (test/helpers/openapi.ts). On PostgreSQL, like the security
 * matrix, for the suite's time budget (parameter parsing is the same on both).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo, writeXeroFiles } from '../src/demo/generate.js';
import { importDirectory } from '../src/ledger/import.js';
import { recomputeBaselines } from '../src/jobs/baselines.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { generateDailyBrief } from '../src/jobs/brief.js';
import { rows } from '../src/store/db.js';
import { PARTNER_ONLY } from '../src/api/auth.js';
import { startTestApi, type TestApi } from './helpers/http.js';

const NOW = '2026-11-23T09:00:00Z';
const RUNS = 10_000;
const CONCURRENCY = 8;

interface Param {
  name: string;
  in: 'query' | 'path' | 'header';
  /** A required query parameter is always sent (path parameters always are). */
  required?: boolean;
  schema: { type?: string; format?: string; enum?: string[]; example?: unknown; anyOf?: unknown[]; minLength?: number; minimum?: number; maximum?: number };
}
interface Endpoint {
  /** The OpenAPI template, e.g. /api/agent/contacts/{id}. */
  template: string;
  params: Param[];
}

/** Hostile text of every kind (percent-encoded on the way out). */
const NASTY = [
  '',
  ' ',
  '\r\n',
  'a\r\nX-Injected: 1',
  '\u0000',
  '%00',
  '%',
  '%zz',
  '../../etc/passwd',
  "' or 1=1--",
  '"; drop table invoices; --',
  '\u00e9t\u00e9',
  '\u{1F4B8}\u{1F4B8}',
  '\u202e\u0041',
  '\uFEFF1',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '<script>',
  'x'.repeat(5_000),
  '\u00e9'.repeat(3_000),
];
const ODD_DATES = ['2024-02-30', '2023-02-29', '2026-13-01', '2026-00-10', '2026-04-31', '0000-00-00', '9999-12-31', '0001-01-01', '2026-1-5', '2026/01/05', '20260105', '2026-01-05T00:00:00Z', '2026-01-05 ', '+002026-01-05', '-2026-01-05', '2026-W01', 'yesterday'];
const ODD_NUMBERS = ['0', '-1', '-0', '1.5', '1e3', '1e308', '-1e308', '99999999999999999999999999', '9007199254740993', 'NaN', 'Infinity', '0x10', ' 5', '5 ', '+5', '05', '1,000', '٣'];

const fromList = <T,>(xs: readonly T[]) => fc.constantFrom(...xs);
const text = fc.oneof(fromList(NASTY), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 20 }));

/** The arbitrary of one parameter, derived from its schema. */
function valueOf(p: Param, world: World): fc.Arbitrary<string> {
  const s = p.schema;
  if (p.name === 'cursor') return cursorValue();
  if (p.in === 'path' && p.name === 'id') return fc.oneof(fromList(world.anyIds), text);
  if (p.name === 'orgId') return fc.oneof({ weight: 3, arbitrary: fc.constant(world.orgA) }, { weight: 1, arbitrary: fromList([world.orgB, 'org_nope', ...NASTY.slice(0, 8)]) });
  if (s.enum) return fc.oneof({ weight: 4, arbitrary: fromList(s.enum) }, { weight: 1, arbitrary: fc.oneof(fromList(s.enum.map((v) => v.toUpperCase())), text) });
  if (s.format === 'date') {
    const valid = fc.date({ min: new Date('2019-01-01'), max: new Date('2028-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: fromList(ODD_DATES) }, { weight: 1, arbitrary: text });
  }
  if (s.anyOf) {
    // status: a comma list of known and unknown values.
    const word = fc.oneof(fromList(['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED', 'BILLED', 'paid', 'Authorised', 'NOPE', '']), text);
    return fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(','));
  }
  if (s.type === 'boolean') return fc.oneof({ weight: 3, arbitrary: fromList(['true', 'false', '1', '0', 'TRUE']) }, { weight: 1, arbitrary: text });
  if (s.type === 'integer') {
    return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -5, max: 300 }).map(String) }, { weight: 2, arbitrary: fromList(ODD_NUMBERS) }, { weight: 1, arbitrary: text });
  }
  return fc.oneof({ weight: 1, arbitrary: typeof s.example === 'string' ? fc.constant(s.example) : text }, { weight: 2, arbitrary: text });
}

type CursorKind = 'flipped' | 'truncated' | 'appended' | 'random' | 'other-endpoint' | 'other-org' | 'other-filters';
const CURSOR_KINDS: CursorKind[] = ['flipped', 'truncated', 'appended', 'random', 'other-endpoint', 'other-org', 'other-filters'];
/** A cursor value is drawn as a marker and resolved per endpoint (a forged cursor must be forged for the endpoint it is sent to). */
const cursorValue = () => fromList(CURSOR_KINDS).map((k) => `@cursor:${k}`);

interface World {
  api: TestApi;
  orgA: string;
  orgB: string;
  keyA: string;
  /** Keys of distinct users of A (credits are per user and billing account). */
  keys: string[];
  /** Partner-only endpoints (PARTNER_ONLY) refuse user keys: they are fuzzed with a partner key of A and B. */
  partnerKey: string;
  anyIds: string[];
  /** A genuine nextCursor of each list endpoint, unfiltered, for A and for B. */
  cursors: Record<string, { a: string; b: string | null }>;
}
let world: World;
let endpoints: Endpoint[] = [];
let dir: string;

async function importDemo(api: TestApi, seed: number, name: string): Promise<string> {
  const demo = generateDemo({ asOf: new Date(NOW), scale: 0.05, seed });
  writeXeroFiles(join(dir, name), demo.files);
  const { orgId } = await api.org({ name, plan: 'Reserve' });
  await importDirectory(api.store.db, orgId, join(dir, name), { now: new Date(NOW) });
  await api.ledger(orgId);
  await recomputeBaselines(api.store.db, orgId, new Date(NOW));
  await recomputeForecast(api.store.db, orgId, new Date(NOW));
  await generateDailyBrief(api.store.db, orgId, new Date(NOW), { llm: null });
  return orgId;
}

beforeAll(async () => {
  const api = await startTestApi('postgres', { now: NOW });
  dir = mkdtempSync(join(tmpdir(), 'cashline-fuzz-'));
  const orgA = await importDemo(api, 4242, 'Fuzz A');
  const orgB = await importDemo(api, 4343, 'Fuzz B');
  const keyA = await api.key(orgA);
  const keyB = await api.key(orgB);
  const keys = [keyA];
  for (let i = 0; i < 3; i++) keys.push(await api.key(orgA, undefined, await api.user(orgA)));
  const doc = (await (await api.get('/api/agent/openapi.json')).json()) as {
    paths: Record<string, { get?: { parameters?: ({ $ref: string } | Param)[] } }>;
    components: { parameters: Record<string, Param>; schemas: Record<string, Param['schema']> };
  };
  const resolve = (p: { $ref: string } | Param): Param => {
    const param = '$ref' in p ? doc.components.parameters[p.$ref.split('/').pop()!]! : p;
    const schema = (param.schema as { $ref?: string }).$ref ? doc.components.schemas[(param.schema as { $ref: string }).$ref.split('/').pop()!]! : param.schema;
    return { ...param, schema };
  };
  endpoints = Object.entries(doc.paths)
    .filter(([path, ops]) => ops.get && !path.endsWith('/openapi.json') && !path.endsWith('/docs'))
    .map(([template, ops]) => ({ template, params: (ops.get!.parameters ?? []).map(resolve) }));
  const anyIds = (
    await rows<{ id: string }>(
      api.store.db,
      sql`(select id from contacts where org_id in (${orgA}, ${orgB}) order by id limit 6)
          union all (select id from cash_items where org_id in (${orgA}, ${orgB}) and source = 'LEDGER_CREDIT_NOTE' order by id limit 6)
          union all (select id from purchase_orders where org_id in (${orgA}, ${orgB}) order by id limit 6)`,
    )
  ).map((r) => r.id);
  const { key: partnerKey } = await api.partner([orgA, orgB]);
  // Another practice of the same organisations: its cursors are foreign to the first one's.
  const { key: otherPartnerKey } = await api.partner([orgA, orgB]);
  const cursors: World['cursors'] = {};
  for (const ep of endpoints.filter((e) => e.params.some((p) => p.name === 'cursor'))) {
    // Required parameters (the forecast items' week) take their documented example.
    const required = ep.params.filter((p) => p.in === 'query' && p.required).map((p) => `&${p.name}=${encodeURIComponent(String(p.schema.example))}`);
    const first = async (key: string) => ((await (await api.get(`${ep.template}?limit=1${required.join('')}`, key)).json()) as { nextCursor: string | null }).nextCursor;
    const partnerOnly = PARTNER_ONLY.has(ep.template);
    const a = await first(partnerOnly ? partnerKey : keyA);
    const b = await first(partnerOnly ? otherPartnerKey : keyB);
    expect(a, `a nextCursor from ${ep.template}`).toBeTruthy();
    cursors[ep.template] = { a: a!, b };
  }
  expect(Object.keys(cursors).length).toBeGreaterThanOrEqual(5);
  world = { api, orgA, orgB, keyA, keys, partnerKey, anyIds, cursors };
}, 240_000);

afterAll(async () => {
  await world?.api.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A forged cursor of `kind` for the endpoint `template`. */
function forge(kind: CursorKind, template: string, rnd: number): string {
  const own = world.cursors[template]!.a;
  const others = Object.entries(world.cursors).filter(([t]) => t !== template);
  switch (kind) {
    case 'flipped': {
      const i = rnd % own.length;
      const c = own[i] === 'A' ? 'B' : 'A';
      return own.slice(0, i) + c + own.slice(i + 1);
    }
    case 'truncated':
      return own.slice(0, Math.max(1, own.length - 1 - (rnd % 8)));
    case 'appended':
      return own + 'A';
    case 'random':
      return Buffer.from(`{"k":"${rnd}","o":"${world.orgA}"}`).toString('base64url');
    case 'other-endpoint':
      return others[rnd % others.length]![1].a;
    case 'other-org':
      // B's genuine cursor for the same endpoint (B's small ledger may have a single page: then another endpoint's).
      return world.cursors[template]!.b ?? others[rnd % others.length]![1].a;
    case 'other-filters':
      // A's own genuine cursor, but sent with filters it was not issued for (the request adds them; see below).
      return own;
  }
}

describe('fuzzing from the OpenAPI document (issue 8)', () => {
  it('10,000 schema-derived requests with hostile values: never 5xx, every 400 names a sent parameter, no forged cursor accepted', async () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(15);
    const requestArb = fc.nat({ max: endpoints.length - 1 }).chain((ei) => {
      const ep = endpoints[ei]!;
      const entries = ep.params
        .filter((p) => p.in !== 'header')
        .map((p) => [p.name, p.in === 'path' || p.required ? valueOf(p, world) : fc.option(valueOf(p, world), { freq: 2, nil: undefined })] as const);
      const headerArb = fc.record({
        tool: fc.option(fc.oneof(fc.constant('service.fuzz'), fc.string({ maxLength: 30 }).filter((t) => /^[\x20-\x7e]*$/.test(t))), { nil: undefined }),
        orgHeader: fc.option(fc.constantFrom(world.orgA, world.orgB, 'nope', ''), { freq: 4, nil: undefined }),
      });
      return fc.tuple(fc.constant(ei), fc.record(Object.fromEntries(entries)) as fc.Arbitrary<Record<string, string | undefined>>, headerArb, fc.nat({ max: world.keys.length - 1 }), fc.nat());
    });
    const cases = fc.sample(requestArb, { numRuns: RUNS, seed: 8_2026_11_23 });

    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let forgedSent = 0;
    let sent = 0;
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const [ei, values, hdr, ki, rnd] = cases[next++]!;
        const ep = endpoints[ei]!;
        let path = ep.template;
        const query = new URLSearchParams();
        let forged = false;
        for (const p of ep.params) {
          let v = values[p.name];
          if (v === undefined || p.in === 'header') continue;
          if (v.startsWith('@cursor:')) {
            const kind = v.slice('@cursor:'.length) as CursorKind;
            v = forge(kind, ep.template, rnd);
            // A genuine cursor is only forged when sent with other filters than those it was issued with (none).
            // (A filter that surely changes the set: a date bound or a contact; an invalid one is a 400 anyway.)
            forged = kind !== 'other-filters' || ['dateFrom', 'dateTo', 'contactId'].some((f) => /\S/.test(values[f] ?? ''));
          }
          if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(v));
          else query.set(p.name, v);
        }
        const headers: Record<string, string> = {};
        if (hdr.tool !== undefined) headers['x-service-tool'] = hdr.tool;
        if (hdr.orgHeader !== undefined) headers['x-service-org-id'] = hdr.orgHeader;
        const qs = query.toString();
        const url = `${path}${qs ? `?${qs}` : ''}`;
        let res;
        try {
          res = await world.api.get(url, PARTNER_ONLY.has(ep.template) ? world.partnerKey : world.keys[ki]!, headers);
        } catch (e) {
          problems.push(`${url}: ${(e as Error).message.slice(0, 300)}`);
          continue;
        }
        const body = (await res.json().catch(() => null)) as { error?: string; parameter?: string; message?: string } | null;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) problems.push(`${url} -> ${res.status} ${JSON.stringify(body)}`);
        if (res.status === 400) {
          const sentNames = new Set([...query.keys(), ...(ep.template.includes('{id}') ? ['id'] : []), ...(ep.template.includes('{orgId}') ? ['orgId'] : []), ...(hdr.orgHeader !== undefined ? ['X-Service-Org-Id'] : [])]);
          if (body?.error === 'bad_request' && !(body.parameter && sentNames.has(body.parameter))) {
            problems.push(`${url} -> 400 without a sent parameter named: ${JSON.stringify(body)}`);
          }
          if (body?.error === 'invalid_cursor' && !query.has('cursor')) problems.push(`${url} -> invalid_cursor without a cursor`);
          if (!['bad_request', 'invalid_cursor', 'org_required'].includes(body?.error ?? '')) problems.push(`${url} -> 400 ${JSON.stringify(body)}`);
        }
        // autoPaginate=true (any case, or 1) ignores the cursor (spec), so only the others are forgeries sent.
        if (forged && !['true', '1'].includes(query.get('autoPaginate')?.trim().toLowerCase() ?? '')) {
          forgedSent++;
          if (res.status === 200) problems.push(`forged cursor accepted: ${url}`);
        }
        // Keep clear of the burst cap (60 a minute per key and endpoint) and the credits (5,000 per 5 hours per user).
        if (++sent % 100 === 0) world.api.clock.advance(4 * 60_000);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    console.log(`fuzz: ${sent} requests, ${forgedSent} forged cursors; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    expect(problems.slice(0, 25).join('\n')).toBe('');
    expect(sent).toBe(RUNS);
    expect(forgedSent, 'forged cursors sent').toBeGreaterThan(300);
    // The run reaches real answers and real refusals, not only one of them.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(2_000);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(1_000);
    expect(statuses.get(429) ?? 0).toBe(0);
  }, 600_000);

  it('what the fuzzer found stays fixed: NUL in a path or query parameter, summary dates outside four-digit financial years', async () => {
    const cases: [string, string][] = [
      ['/api/agent/contacts/%00', 'id'],
      ['/api/agent/purchase-orders/a%00b', 'id'],
      ['/api/agent/forecast?scenarioId=%00', 'scenarioId'],
      ['/api/agent/invoices?contactId=x%00', 'contactId'],
      ['/api/agent/revenue/summary?dateTo=0001-01-01', 'dateTo'],
      ['/api/agent/expenses/summary?dateTo=9999-12-31', 'dateTo'],
      ['/api/agent/expenses/summary?dateFrom=1899-12-31&dateTo=1900-01-05', 'dateFrom'],
    ];
    for (const [url, parameter] of cases) {
      const res = await world.api.get(url, world.keyA);
      expect(res.status, url).toBe(400);
      expect(await res.json(), url).toMatchObject({ error: 'bad_request', parameter });
    }
    // Unknown parameters are ignored (decisions.md), NUL or not.
    expect((await world.api.get('/api/agent/invoices?nope=%00', world.keyA)).status).toBe(200);
  });
});
