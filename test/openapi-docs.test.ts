/**
 * Issue 19, "A reference people and agents can learn from": the OpenAPI
 * document explains itself.
 *
 * - Every operation, every parameter and every field of every answer
 *   (recursively: through $refs, array items, anyOf/oneOf/allOf and maps)
 *   has a description; the test lists every one that lacks it, so a new
 *   endpoint or field without one fails here by name.
 * - Every operation has a 200 example, taken from the demo by
 *   `npm run docs:examples` (scripts/docs-examples.ts, into
 *   src/schemas/examples.json), and each example still parses with that
 *   operation's own zod response schema and matches the document with every
 *   object closed (no field the schema does not know): an example cannot drift
 *   from the schema silently.
 *
 * The document needs no store: the app is built over one that is never queried.
 */
import { describe, expect, it } from 'vitest';
import { OpenAPIHono, type z } from '@hono/zod-openapi';
import { createApp } from '../src/api/app.js';
import { DOCS_PATH, OPENAPI_PATH, openApiDocument } from '../src/api/docs.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import type { Store } from '../src/store/db.js';
import { Money } from '../src/schemas/common.js';
import EXAMPLES from '../src/schemas/examples.json' with { type: 'json' };
import { ResponseChecker } from './helpers/openapi.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const config = loadConfig({ CASHLINE_LOG_LEVEL: 'silent' });
const app = createApp({ store: { kind: 'pglite', db: {} } as unknown as Store, config, logger: createLogger(config) });
const doc = openApiDocument(app) as Json;
const schemas: Record<string, Json> = doc.components?.schemas ?? {};
const refName = (ref: string) => ref.split('/').pop()!;

/** The agent operations: every GET of the document but the public documents themselves. */
const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([method]) => method === 'get')
    .map(([method, op]) => ({ path, method, op })),
);

/**
 * Descriptions that say only what kind of value a field holds (Money's: "Canonical decimal string…"):
 * every amount has one, so it does not say which amount a field is.
 */
const typeOnly = new Set<string>();
{
  const types = new OpenAPIHono();
  types.openAPIRegistry.register('Money', Money);
  const d = types.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'types', version: '1' } }) as Json;
  typeOnly.add(d.components.schemas.Money.description);
}

/** A node says what it is: its own description, its $ref's, or (nullable, unions) a branch's. */
function described(node: Json): boolean {
  if (!node || typeof node !== 'object') return false;
  if (typeof node.description === 'string' && node.description.trim() && !typeOnly.has(node.description)) return true;
  if (node.$ref) return described(schemas[refName(node.$ref)]);
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    if ((node[k] ?? []).some((b: Json) => b?.type !== 'null' && described(b))) return true;
  }
  return false;
}

/** Every property of a schema (and of what it refers to, its items, branches and maps) lacking a description. */
function undescribed(root: Json, where: string, seen: Set<string>, out: string[]): void {
  const walk = (node: Json, at: string): void => {
    if (!node || typeof node !== 'object') return;
    if (node.$ref) {
      const name = refName(node.$ref);
      if (seen.has(name)) return;
      seen.add(name);
      walk(schemas[name], name);
      return;
    }
    for (const [name, prop] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
      if (!described(prop)) out.push(`${at}.${name}`);
      walk(prop, `${at}.${name}`);
    }
    if (node.items) walk(node.items, `${at}[]`);
    for (const k of ['anyOf', 'oneOf', 'allOf']) for (const b of node[k] ?? []) walk(b, at);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${at}{}`);
  };
  walk(root, where);
}

/** The zod schema of each operation's 200 answer, by OpenAPI path template. */
const responseSchemas = new Map<string, z.ZodType>();
for (const d of app.openAPIRegistry.definitions as Json[]) {
  if (d.type !== 'route' || d.route.method !== 'get') continue;
  const schema = d.route.responses?.[200]?.content?.['application/json']?.schema;
  if (schema) responseSchemas.set(d.route.path, schema);
}

describe('the OpenAPI document explains itself (issue 19)', () => {
  it('lists the agent operations', () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(operations.map((o) => o.path)).toContain('/api/agent/forecast');
    expect(operations.map((o) => o.path)).not.toContain(OPENAPI_PATH);
    expect(operations.some((o) => o.path.startsWith(DOCS_PATH))).toBe(false);
  });

  it('every operation, parameter and response field has a description', () => {
    const missing: string[] = [];
    const parameters: Record<string, Json> = doc.components?.parameters ?? {};
    const seen = new Set<string>();
    for (const { path, method, op } of operations) {
      const name = `${method.toUpperCase()} ${path}`;
      if (!op.summary?.trim()) missing.push(`${name}: summary`);
      // agentRoute appends "Scope: …" to every description: that alone says nothing of the operation.
      if (!op.description?.replace(/Scope: [^\n]*\.$/, '').trim()) missing.push(`${name}: description`);
      for (const p of op.parameters ?? []) {
        const param = p.$ref ? parameters[refName(p.$ref)] : p;
        if (!param?.description?.trim()) missing.push(`${name}: parameter ${param?.name ?? p.$ref}`);
      }
      for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        const res = r.$ref ? doc.components.responses[refName(r.$ref)] : r;
        if (!res?.description?.trim()) missing.push(`${name}: response ${status}`);
        const schema = res?.content?.['application/json']?.schema;
        if (schema) undescribed(schema, `${name} ${status}`, seen, missing);
      }
    }
    expect(missing, `lacking a description:\n  ${missing.join('\n  ')}\n`).toEqual([]);
  });

  it('every operation has a 200 example from the demo (npm run docs:examples)', () => {
    const lacking = operations.filter(({ op }) => op.responses?.['200']?.content?.['application/json']?.example === undefined).map((o) => o.path);
    expect(lacking, `no example (run npm run docs:examples):\n  ${lacking.join('\n  ')}\n`).toEqual([]);
    // The file holds nothing for operations that no longer exist.
    const stale = Object.keys(EXAMPLES).filter((p) => !operations.some((o) => o.path === p));
    expect(stale, 'examples of operations the document does not have').toEqual([]);
  });

  it("every example parses with its operation's zod response schema and matches the document, objects closed", () => {
    const checker = new ResponseChecker(doc);
    const problems: string[] = [];
    for (const [path, example] of Object.entries(EXAMPLES as Record<string, unknown>)) {
      const schema = responseSchemas.get(path);
      if (!schema) {
        problems.push(`${path}: no 200 response schema`);
        continue;
      }
      const parsed = schema.safeParse(example);
      if (!parsed.success) problems.push(...parsed.error.issues.slice(0, 5).map((i) => `${path}: ${i.path.join('.')} ${i.message}`));
      problems.push(...checker.check('GET', path, 200, 'application/json', JSON.stringify(example)));
      // The document carries the very same example.
      expect(doc.paths[path].get.responses['200'].content['application/json'].example).toEqual(example);
    }
    expect(problems, `examples that no longer match their schema (run npm run docs:examples):\n  ${problems.join('\n  ')}\n`).toEqual([]);
  });
});
