/**
 * The agent budget on a big organisation (issue 19): every MCP tool, called
 * with its default arguments on the 200,000-document benchmark organisation
 * (bench/gen-large-org.ts: 200,000 invoices, 200,000 bills, 20,000 contacts;
 * built when missing, as for bench/lists.ts), must answer within 25,000
 * tokens (characters of the text content / 4, as test/agent-budget.test.ts
 * counts on the demo). Building that organisation takes minutes, too long
 * for the test suite, hence a benchmark.
 *
 * The derived data the tools read (baselines, the forecast, the daily brief)
 * is computed first, as the worker would. The tools are called through the
 * SDK's Client (in memory) against the real API server (no-op limiter), so
 * each structuredContent is also checked against the tool's outputSchema.
 * A user key with every scope calls each tool; a tool refused to it
 * (invalid_scope: partner-only) is called with a partner key linked to the
 * organisation. A drill uses the id of the largest document of its kind; a
 * drill whose kind the organisation lacks is reported and left out. A
 * parameter the request needs gets its smallest value (requiredArgs).
 *
 * Prints each tool's size and exits 1 when one is over the budget or fails.
 *
 *   npm run bench -- agent-budget        (or npx tsx bench/agent-budget.ts [--recompute])
 *
 * The forecast is computed when the organisation has none (minutes), or again
 * with --recompute; baselines and the brief every run (seconds).
 * Env: BENCH_DATABASE_URL, BENCH_SCHEMA (see gen-large-org.ts).
 */
import { sql } from 'drizzle-orm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NO_LIMITS } from './no-limits.js';
import { BENCH_ORG, benchOrgExists, generateLargeOrg, openBenchStore } from './gen-large-org.js';
import { rows, type Db } from '../src/store/db.js';
import { createKey, createPartner, linkPartner, partnerExists } from '../src/store/tenancy.js';
import { SCOPES } from '../src/domain/scopes.js';
import { recomputeBaselines } from '../src/jobs/baselines.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { generateDailyBrief } from '../src/jobs/brief.js';
import { startServer } from '../src/api/server.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { ManualClock } from '../src/clock.js';
import { ENDPOINTS, toolName } from '../src/schemas/endpoints.js';
import { buildMcpServer } from '../src/mcp/server.js';
import { requiredArgs } from '../test/helpers/mcp-output.js';

const BUDGET_TOKENS = 25_000;
/** The benchmark organisation's "now" (gen-large-org.ts). */
const NOW = new Date('2026-03-01T09:00:00Z');
const PARTNER = 'bench-agent-partner';
const log = (msg: string) => process.stderr.write(`[agent-budget] ${msg}\n`);

/** Where a drill's id comes from: the document with the most lines, or the contact with the most paid invoices (its drill lists up to 50). */
const IDS: Record<string, (o: string) => ReturnType<typeof sql>> = {
  contact: (o) => sql`select contact_id as id from cash_items where org_id = ${o} and source = 'LEDGER_INVOICE' and ledger_status = 'PAID'
    and contact_id is not null group by contact_id order by count(*) desc, contact_id limit 1`,
  'credit-note': (o) => sql`select i.id from cash_items i join cash_item_lines l on l.org_id = i.org_id and l.item_id = i.id
    where i.org_id = ${o} and i.source = 'LEDGER_CREDIT_NOTE' group by i.id order by count(*) desc, i.id limit 1`,
  'purchase-order': (o) => sql`select p.id from purchase_orders p left join purchase_order_lines l on l.org_id = p.org_id and l.purchase_order_id = p.id
    where p.org_id = ${o} group by p.id order by count(l.*) desc, p.id limit 1`,
};

async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const r = await run();
  log(`${label} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return r;
}

async function drillId(db: Db, name: string): Promise<string | null> {
  const source = IDS[name];
  if (!source) throw new Error(`${name}: a drill without an id source in bench/agent-budget.ts (add one to IDS)`);
  const [row] = await rows<{ id: string }>(db, source(BENCH_ORG));
  return row?.id ?? null;
}

const store = await openBenchStore(20);
if (!(await benchOrgExists(store.db))) await timed('generated the benchmark organisation', () => generateLargeOrg(store.db));
await timed('baselines', () => recomputeBaselines(store.db, BENCH_ORG, NOW));
// The forecast of 400,000 documents takes minutes on two busy cores: computed once (--recompute: again).
const [snapshot] = await rows(store.db, sql`select 1 from forecast_snapshots where org_id = ${BENCH_ORG} limit 1`);
if (!snapshot || process.argv.includes('--recompute')) await timed('forecast', () => recomputeForecast(store.db, BENCH_ORG, NOW));
await timed('daily brief', () => generateDailyBrief(store.db, BENCH_ORG, NOW));

const userKey = (await createKey(store.db, { orgId: BENCH_ORG, scopes: [...SCOPES], name: 'bench agent-budget', now: NOW })).key;
if (!(await partnerExists(store.db, PARTNER))) await createPartner(store.db, { id: PARTNER, name: 'Bench Advisory', now: NOW });
await linkPartner(store.db, { partnerId: PARTNER, orgId: BENCH_ORG, now: NOW });
const partnerKey = (await createKey(store.db, { partnerId: PARTNER, scopes: [...SCOPES], name: 'bench agent-budget partner', now: NOW })).key;

const clock = new ManualClock(NOW);
const config = { ...loadConfig({ CASHLINE_LOG_LEVEL: 'warn', CASHLINE_CURSOR_SECRET: 'bench-cursor-secret-0123456789' }), clock };
const server = await startServer({ store, config, logger: createLogger(config), host: '127.0.0.1', port: 0, limiter: NO_LIMITS });

async function mcpClient(key: string): Promise<Client> {
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer({ baseUrl: server.url }, key).connect(serverSide);
  const client = new Client({ name: 'bench-agent-budget', version: '1.0.0' });
  await client.connect(clientSide);
  await client.listTools(); // the SDK validates each structuredContent against the listed outputSchema
  return client;
}
const clients = { user: await mcpClient(userKey), partner: await mcpClient(partnerKey) };

const kind = (r: CallToolResult) => (r.structuredContent as { error?: { kind?: string } } | undefined)?.error?.kind;
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const figures: { tool: string; key: string; tokens: number; ms: number }[] = [];
const failures: string[] = [];
for (const e of ENDPOINTS) {
  const name = toolName(e);
  const args: Record<string, unknown> = requiredArgs(e);
  if (e.id && !e.id.defaultsToOrg) {
    const id = await drillId(store.db, e.name);
    if (!id) {
      console.log(`${name.padEnd(20)} (no ${e.name} in ${BENCH_ORG}: left out)`);
      continue;
    }
    args.id = id;
  }
  try {
    const t0 = performance.now();
    let key: 'user' | 'partner' = 'user';
    let r = (await clients.user.callTool({ name, arguments: args })) as CallToolResult;
    if (r.isError && kind(r) === 'invalid_scope') {
      key = 'partner';
      r = (await clients.partner.callTool({ name, arguments: { ...args, orgId: BENCH_ORG } })) as CallToolResult;
    }
    const ms = performance.now() - t0;
    if (r.isError) {
      failures.push(`${name}: ${text(r).slice(0, 300)}`);
      continue;
    }
    const tokens = Math.ceil(text(r).length / 4);
    figures.push({ tool: name, key, tokens, ms });
    console.log(`${name.padEnd(20)} ${String(tokens).padStart(7)} tokens  ${ms.toFixed(0).padStart(6)} ms  ${key} key${tokens > BUDGET_TOKENS ? '  OVER BUDGET' : ''}`);
  } catch (err) {
    // The SDK client throws when a structuredContent does not match the tool's outputSchema.
    failures.push(`${name}: ${(err as Error).message.slice(0, 300)}`);
  }
}

await clients.user.close();
await clients.partner.close();
await server.close();
await store.close();

const over = figures.filter((f) => f.tokens > BUDGET_TOKENS);
const largest = [...figures].sort((a, b) => b.tokens - a.tokens).slice(0, 5);
console.log(`largest: ${largest.map((f) => `${f.tool} ${f.tokens}`).join(', ')}`);
for (const f of failures) console.log(`FAILED ${f}`);
if (over.length) console.log(`${over.length} tool(s) over ${BUDGET_TOKENS} tokens: ${over.map((f) => f.tool).join(', ')}`);
else if (!failures.length) console.log(`every tool within ${BUDGET_TOKENS} tokens (${figures.length} tools)`);
process.exit(over.length || failures.length ? 1 : 0);
