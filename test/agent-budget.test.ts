/**
 * Answers that fit in an agent's context (issue 19): every MCP tool, called
 * with its default arguments on the demo (both organisations, through the
 * partner key), answers within 25,000 tokens, counted as characters / 4 - the
 * tool-result budget of common agent hosts. Drills use an id the demo has.
 * The calls go through the SDK's Client (in memory, so the SDK validates each
 * structuredContent against the declared outputSchema too), and each answer is
 * checked independently (test/helpers/mcp-output.ts): ajv against the tool's
 * outputSchema, the endpoint's zod response schema, the JSON text block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from './helpers/http.js';
import { startDemoApi } from './helpers/demo-books.js';
import { NOW } from './helpers/ledger.js';
import { DEMO_ORGS } from '../src/server/demo.js';
import { ENDPOINTS, toolName } from '../src/schemas/endpoints.js';
import { buildMcpServer } from '../src/mcp/server.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { OutputChecker, requiredArgs } from './helpers/mcp-output.js';
import { rows } from '../src/store/db.js';
import { sql } from 'drizzle-orm';

const BUDGET_TOKENS = 25_000;
/** Where a drill's id comes from, per organisation. */
const IDS: Record<string, (orgId: string) => ReturnType<typeof sql>> = {
  contact: (o) => sql`select id from contacts where org_id = ${o} and is_customer order by id limit 1`,
  'credit-note': (o) => sql`select id from cash_items where org_id = ${o} and source = 'LEDGER_CREDIT_NOTE' order by id limit 1`,
  'purchase-order': (o) => sql`select id from purchase_orders where org_id = ${o} order by id limit 1`,
};

describe('every MCP tool answers within 25,000 tokens with its default arguments, typed by its outputSchema (the demo, postgres)', () => {
  let api: TestApi;
  let partner: string;
  let client: Client;
  let tools: Tool[];
  const checker = new OutputChecker();
  beforeAll(async () => {
    // The demo as setupDemo leaves it, set up once per run (helpers/fixtures.ts).
    const demo = await startDemoApi('postgres', NOW);
    api = demo.api;
    partner = demo.demo.keys.partner;
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await buildMcpServer({ baseUrl: api.url }, partner).connect(serverSide);
    client = new Client({ name: 'agent-budget', version: '1.0.0' });
    await client.connect(clientSide);
    tools = (await client.listTools()).tools;
  }, 300_000);
  afterAll(async () => {
    await client?.close();
    await api?.close();
  });

  it('tools/list: every tool declares an outputSchema, an object schema (JSON Schema 2020-12, strict ajv)', () => {
    expect(tools.map((t) => t.name)).toEqual(ENDPOINTS.map(toolName));
    for (const t of tools) {
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(checker.schemaProblems(t)).toEqual([]);
    }
  });

  it.each(DEMO_ORGS.map((o) => [o.name, o.id] as const))('%s', async (_name, orgId) => {
    const sizes: Record<string, number> = {};
    const problems: string[] = [];
    for (const e of ENDPOINTS) {
      const args: Record<string, unknown> = { orgId, ...requiredArgs(e) };
      const source = IDS[e.name];
      if (e.id && !e.id.defaultsToOrg) {
        expect(source, `an id source for ${e.name}`).toBeDefined();
        const [row] = await rows<{ id: string }>(api.store.db, source!(orgId));
        if (!row) continue;
        args.id = row.id;
      }
      const r = (await client.callTool({ name: toolName(e), arguments: args })) as CallToolResult;
      expect(r.isError, `${toolName(e)}: ${JSON.stringify(r.content).slice(0, 300)}`).toBeFalsy();
      problems.push(...checker.problems(tools.find((t) => t.name === toolName(e))!, e, r));
      const chars = (r.content as { type: string; text?: string }[]).reduce((a, c) => a + (c.text?.length ?? 0), 0);
      sizes[toolName(e)] = Math.ceil(chars / 4);
      // Keep clear of the burst cap (60 a minute per key and endpoint) and move on.
      api.clock.advance(1_000);
    }
    console.log(`tool answers in tokens (characters / 4), ${orgId}: ${JSON.stringify(sizes)}`);
    const over = Object.entries(sizes).filter(([, t]) => t > BUDGET_TOKENS);
    expect(over).toEqual([]);
    // Every structuredContent matches the declared outputSchema (ajv) and the zod response schema, and is the JSON text block.
    expect(problems).toEqual([]);
    expect(Object.keys(sizes).length).toBeGreaterThan(15);
  }, 120_000);
});
