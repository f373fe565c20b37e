/**
 * `npm run docs:examples`: the example answers of the OpenAPI document
 * (src/schemas/examples.json), taken from the demo, never written by hand.
 *
 * Starts the demo (the same `setupDemo` as `cashline-server demo`) on a fresh
 * in-memory embedded store at a pinned instant, serves it on 127.0.0.1, calls
 * every GET operation the document lists with a demo key, trims long arrays
 * (two items of a list, two weeks of a forecast) and writes the answers keyed
 * by path template. src/api/docs.ts puts each one in its operation's 200
 * `content.application/json.example`; test/openapi-docs.test.ts checks that
 * every operation has one and that each still parses with the operation's
 * response schema, so an example cannot drift from the schema unnoticed: when
 * a schema changes, run this again and commit the file.
 *
 * Lists are asked for their totals (and invoice lines) too, so that the
 * examples show those blocks; a required query parameter gets the example
 * its schema documents (else its default, else its minimum). Path parameters: `{orgId}` is the demo organisation; `{id}` of
 * `/x/{id}` is the id of the first row of `/x`'s answer. An operation the
 * full demo key cannot read (a partner-only one) is called with the partner
 * key. The key prefix in /status is replaced by a fixed one (a new key is
 * issued each run), so that the file changes only when an answer does.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../src/config.js';
import { fixedClock } from '../src/clock.js';
import { createLogger } from '../src/log.js';
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { startServer } from '../src/api/server.js';
import { DOCS_PATH, OPENAPI_PATH } from '../src/api/docs.js';
import { setupDemo } from '../src/server/demo.js';

/** The demo's day (the tests' usual instant). */
const EXAMPLES_NOW = '2026-11-23T09:00:00Z';
const OUT = resolve(import.meta.dirname, '..', 'src', 'schemas', 'examples.json');
/** Arrays of objects keep this many items; arrays of plain values up to LONG_PLAIN, else this many too. */
const KEEP = 2;
const LONG_PLAIN = 13;
const FIXED_KEY_PREFIX = 'demo0example';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Two items of every array of objects (recursively); short arrays of plain values stay whole. */
function trim(v: Json): Json {
  if (Array.isArray(v)) {
    const plain = v.every((x) => x === null || typeof x !== 'object');
    return (plain && v.length <= LONG_PLAIN ? v : v.slice(0, KEEP)).map(trim);
  }
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trim(x)]));
  return v;
}

/** The id of the first row of the first array of objects in an answer. */
function firstId(body: Json): string | undefined {
  if (Array.isArray(body)) {
    const row = body[0];
    return row && typeof row === 'object' && !Array.isArray(row) && typeof row.id === 'string' ? row.id : undefined;
  }
  if (body && typeof body === 'object') {
    for (const x of Object.values(body)) {
      const id = Array.isArray(x) ? firstId(x) : undefined;
      if (id) return id;
    }
  }
  return undefined;
}

async function main(): Promise<void> {
  const progress = Object.assign((step: string, done: number, total: number) => {
    if (done === total) process.stderr.write(`demo: ${step}\n`);
  }, { done: () => {} });
  const store = await openStore({ dataDir: 'memory://' });
  await migrate(store.db);
  const now = new Date(EXAMPLES_NOW);
  const demo = await setupDemo(store.db, now, progress);
  const config = loadConfig({ CASHLINE_LOG_LEVEL: 'silent', CASHLINE_NOW: EXAMPLES_NOW, CASHLINE_CURSOR_SECRET: 'docs-examples-cursor-secret-0123456789', CASHLINE_PUBLIC_URL: 'https://cashline.example.com' });
  const server = await startServer({ store, config, clock: fixedClock(now), logger: createLogger(config), host: '127.0.0.1', port: 0 });
  try {
    type Param = { name?: string; in?: string; required?: boolean; schema?: { example?: unknown; default?: unknown; minimum?: number } };
    const doc = (await (await fetch(`${server.url}${OPENAPI_PATH}`)).json()) as { paths: Record<string, { get?: { parameters?: Param[] } }> };
    /** Switches that add blocks to an answer, asked for wherever an operation takes them, and the required parameters. */
    const shown = (template: string) =>
      (doc.paths[template]!.get!.parameters ?? []).flatMap((p) => {
        if (p.in !== 'query') return [];
        if (p.name === 'totals' || p.name === 'lines') return [`${p.name}=true`];
        const value = p.schema?.example ?? p.schema?.default ?? p.schema?.minimum;
        return p.required && value !== undefined ? [`${p.name}=${encodeURIComponent(String(value))}`] : [];
      });
    const templates = Object.keys(doc.paths)
      .filter((p) => doc.paths[p]!.get && p !== OPENAPI_PATH && !p.startsWith(DOCS_PATH))
      // Lists before their drills, whose id comes from the list.
      .sort((a, b) => a.split('{').length - b.split('{').length || a.localeCompare(b));
    const answers = new Map<string, Json>();
    const examples: Record<string, Json> = {};
    const failed: string[] = [];
    for (const template of templates) {
      let path = template.replace('{orgId}', demo.orgId);
      const drill = path.match(/^(.*)\/\{id\}$/);
      if (drill) {
        const id = firstId(answers.get(drill[1]!) ?? null);
        if (!id) {
          failed.push(`${template}: no id (the list ${drill[1]} gave no row with an id)`);
          continue;
        }
        path = `${drill[1]}/${encodeURIComponent(id)}`;
      }
      if (path.includes('{')) {
        failed.push(`${template}: a path parameter this script does not know how to fill`);
        continue;
      }
      const query = shown(template);
      let res: Response | undefined;
      for (const key of [demo.keys.full, demo.keys.partner]) {
        res = await fetch(`${server.url}${path}${query.length ? `?${query.join('&')}` : ''}`, { headers: { authorization: `Bearer ${key}` } });
        if (res.status === 200) break;
      }
      if (res!.status !== 200) {
        failed.push(`${template}: ${res!.status} ${await res!.text()}`);
        continue;
      }
      const body = (await res!.json()) as Json;
      answers.set(template, body);
      examples[template] = trim(body);
      process.stderr.write(`example: ${template}\n`);
    }
    const text = JSON.stringify(examples, null, 2).replace(
      new RegExp(`"keyPrefix": "[^"]+"`, 'g'),
      `"keyPrefix": "${FIXED_KEY_PREFIX}"`,
    );
    writeFileSync(OUT, `${text}\n`);
    process.stderr.write(`wrote ${Object.keys(examples).length} examples to ${OUT}\n`);
    if (failed.length) {
      process.stderr.write(`no example for:\n  ${failed.join('\n  ')}\n`);
      process.exitCode = 1;
    }
  } finally {
    await server.close();
    await store.close();
  }
}

await main();
