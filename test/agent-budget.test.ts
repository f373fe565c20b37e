/**
 * Answers that fit in an agent's context (issue 19): every MCP tool, called
 * with its default arguments on the demo (both organisations, through the
 * partner key), answers within 25,000 tokens, counted as characters / 4 - the
 * tool-result budget of common agent hosts. Drills use an id the demo has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/http.js';
import { NOW } from './helpers/ledger.js';
import { DEMO_ORGS, setupDemo } from '../src/server/demo.js';
import { ENDPOINTS, toolName } from '../src/schemas/endpoints.js';
import { callTool } from '../src/mcp/server.js';
import { rows } from '../src/store/db.js';
import { sql } from 'drizzle-orm';

const quiet = Object.assign(() => {}, { done: () => {} });
const BUDGET_TOKENS = 25_000;
/** Where a drill's id comes from, per organisation. */
const IDS: Record<string, (orgId: string) => ReturnType<typeof sql>> = {
  contact: (o) => sql`select id from contacts where org_id = ${o} and is_customer order by id limit 1`,
  'credit-note': (o) => sql`select id from cash_items where org_id = ${o} and source = 'LEDGER_CREDIT_NOTE' order by id limit 1`,
  'purchase-order': (o) => sql`select id from purchase_orders where org_id = ${o} order by id limit 1`,
};

describe('every MCP tool answers within 25,000 tokens with its default arguments (the demo, postgres)', () => {
  let api: TestApi;
  let partner: string;
  beforeAll(async () => {
    api = await startTestApi('postgres', { now: NOW.toISOString() });
    partner = (await setupDemo(api.store.db, NOW, quiet)).keys.partner;
  }, 300_000);
  afterAll(async () => {
    await api?.close();
  });

  it.each(DEMO_ORGS.map((o) => [o.name, o.id] as const))('%s', async (_name, orgId) => {
    const sizes: Record<string, number> = {};
    for (const e of ENDPOINTS) {
      const args: Record<string, unknown> = { orgId };
      const source = IDS[e.name];
      if (e.id && !e.id.defaultsToOrg) {
        expect(source, `an id source for ${e.name}`).toBeDefined();
        const [row] = await rows<{ id: string }>(api.store.db, source!(orgId));
        if (!row) continue;
        args.id = row.id;
      }
      const r = await callTool({ baseUrl: api.url }, e, args, partner);
      expect(r.isError, `${toolName(e)}: ${JSON.stringify(r.content).slice(0, 300)}`).toBeFalsy();
      const chars = (r.content as { type: string; text?: string }[]).reduce((a, c) => a + (c.text?.length ?? 0), 0);
      sizes[toolName(e)] = Math.ceil(chars / 4);
      // Keep clear of the burst cap (60 a minute per key and endpoint) and move on.
      api.clock.advance(1_000);
    }
    console.log(`tool answers in tokens (characters / 4), ${orgId}: ${JSON.stringify(sizes)}`);
    const over = Object.entries(sizes).filter(([, t]) => t > BUDGET_TOKENS);
    expect(over).toEqual([]);
    expect(Object.keys(sizes).length).toBeGreaterThan(15);
  }, 120_000);
});
