/**
 * The clients against a real server (test/helpers/http.ts) over the
 * hand-checked ledger of test/lists-fixture.ts:
 * - `cashline --format table` and flag checks, as a child process (issue 7;
 *   spec 7 error kinds; spec 5.6 X-Service-Tool);
 * - `--chart` wiring through a catalogue entry (the forecast endpoint is not
 *   served on this branch: a test route serves the spec 2.3 fixture);
 * - the MCP server driven by the SDK's Client, over stdio (the built CLI,
 *   `cashline mcp`) and over streamable HTTP (`cashline mcp --http`).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from '@hono/zod-openapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestApi, testRoutes, type TestApi } from './helpers/http.js';
import { seedLedger } from './lists-fixture.js';
import { agentRoute } from '../src/api/route.js';
import type { ApiApp } from '../src/api/context.js';
import { ENDPOINTS, endpoint, flagOf, toolName } from '../src/schemas/endpoints.js';
import { PARTNER_ONLY } from '../src/api/auth.js';
import { recomputeBaselines } from '../src/jobs/baselines.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { generateDailyBrief } from '../src/jobs/brief.js';
import { forecastChart } from '../src/cli/chart.js';
import { CHARTS, runCli, viewCommand } from '../src/cli/main.js';
import { callTool } from '../src/mcp/server.js';
import { OutputChecker, requiredArgs } from './helpers/mcp-output.js';

const BIN = resolve(import.meta.dirname, '..', 'dist', 'bin', 'cashline.js');
const FORECAST = JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures', 'forecast-response.json'), 'utf8')) as Record<string, unknown>;

const run = async (args: string[], env: Record<string, string>) => {
  try {
    const r = await promisify(execFile)('node', [BIN, ...args], { env: { PATH: process.env.PATH!, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
};

// A stand-in for the forecast endpoint (not on this branch), serving the fixture.
const ForecastFixture = z.object({ scenarioId: z.string() }).passthrough();
const testForecastRoute = agentRoute('READ_FORECAST', {
  path: '/api/agent/test-forecast',
  summary: 'Test: the spec 2.3 ForecastResponse fixture',
  responses: { 200: { description: 'OK', content: { 'application/json': { schema: ForecastFixture } } } },
});
const forecastRoutes = (app: ApiApp) => app.openapi(testForecastRoute, (c) => c.json(FORECAST as z.infer<typeof ForecastFixture>, 200));
const testForecastEntry = endpoint({
  name: 'test-forecast',
  path: '/api/agent/test-forecast',
  query: null,
  response: ForecastFixture,
  summary: 'the fixture forecast',
  description: 'Test stand-in for the 13-week forecast.',
});
const testCharts = { ...CHARTS, 'test-forecast': (body: unknown) => forecastChart(body as never) };

// An entry whose path takes an organisation id that may be left out (as the daily brief's will).
const orgPathEntry = endpoint({
  name: 'test-item',
  path: '/api/agent/test-items/{id}',
  query: null,
  response: z.object({ id: z.string() }),
  id: { description: 'organisation id', defaultsToOrg: true },
  summary: 'a path with the organisation in it',
  description: 'Test stand-in for the daily brief path.',
});

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const json = (r: CallToolResult) => JSON.parse((r.content.at(-1) as { text: string }).text);

describe('clients against a real server', () => {
  let api: TestApi;
  let key: string;
  let staleKey: string;
  let env: Record<string, string>;
  const auditCount = async () => (await api.audit('o1')).length;

  beforeAll(async () => {
    api = await startTestApi('pglite', {
      extraRoutes: (app) => {
        testRoutes(app);
        forecastRoutes(app);
      },
    });
    await api.org({ id: 'o1', name: 'One Pty', plan: 'Reserve', baseCurrency: 'AUD' });
    await api.org({ id: 'o2', name: 'Two Ltd', plan: 'Reserve', baseCurrency: 'NZD' });
    await seedLedger(api.store.db, { orgsExist: true });
    await api.ledger('o1');
    await api.ledger('o2', { tokenState: 'expired' });
    // Derived data, so that every endpoint has something to show (baselines, then the forecast).
    await recomputeBaselines(api.store.db, 'o1', api.clock.now());
    await recomputeForecast(api.store.db, 'o1', api.clock.now());
    await generateDailyBrief(api.store.db, 'o1', api.clock.now());
    key = await api.key('o1');
    staleKey = await api.key('o2');
    env = { CASHLINE_BASE_URL: api.url, CASHLINE_API_KEY: key };
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('cashline --format table (child process)', () => {
    it('lists: aligned columns, money right-aligned with decimal points lined up, totals as a table', async () => {
      // From 2026: one currency (inv-7 is USD, 2025), so totals has byStatus.
      const r = await run(['invoices', '--format', 'table', '--all', '--totals', '--date-from', '2026-01-01'], env);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split('\n');
      const head = lines.findIndex((l) => /^id .*invoiceNumber/.test(l));
      expect(head, r.stdout).toBeGreaterThan(0);
      expect(lines[head - 1]).toBe('invoices (6)');
      const rows = lines.slice(head + 2, lines.indexOf('', head));
      expect(rows).toHaveLength(6);
      const numberAt = lines[head]!.indexOf('invoiceNumber');
      const end = lines[head]!.indexOf('amount') + 'amount'.length;
      const byNumber = Object.fromEntries(rows.map((l) => [l.slice(numberAt).split(' ')[0], l.slice(0, end).trim().split(/\s+/).pop()]));
      // inv-1 is 100.50 and inv-3 300.25 in the ledger; 2000 pads to the column's two fraction digits.
      expect(byNumber).toMatchObject({ 'INV-0001': '100.50', 'INV-0003': '300.25', 'INV-0002': '2000.00' });
      expect(new Set(rows.map((l) => l.slice(0, end).lastIndexOf('.'))).size).toBe(1);
      expect(r.stdout).toMatch(/\ntotals\.byStatus\nkey +count +amount\n[- ]+\nDRAFT +1 +10\.00\n/);
    });

    it('drills: a section per object, nested lists as tables; --format may come before the subcommand', async () => {
      const r = await run(['--format', 'table', 'contact', 'cust-a'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^redactedItemCount +0\n\ncontact\nid +cust-a\nname +Acme Pty Ltd\n/);
      expect(r.stdout).toMatch(/\ncontact\.recentPaidInvoices \(\d+\)\nid +invoiceNumber/);
      const bank = await run(['bank-accounts', '--format', 'table'], { ...env, CASHLINE_API_KEY: staleKey });
      expect(bank.stdout.split('\n')[0]).toMatch(/^LEDGER ALERT \[critical\] reconnect_required: /);
      expect(bank.stdout).toMatch(/bankAccounts \(1\)\nid +name +currency +reconciledBalance +statementBalance +balanceSource/);
    });

    it('every flag is checked before any request (validation_error, exit 2)', async () => {
      const before = await auditCount();
      for (const args of [
        ['contacts', '--limit', 'abc'],
        ['account-balances', '--date', '2026-13-01'],
        ['invoices', '--format', 'xml'],
        ['purchase-orders', '--date-to', '2025-02-29'],
        ['contacts', '--sort', 'name'],
      ]) {
        const r = await run(args, env);
        expect(r.stderr, args.join(' ')).toMatch(/^error: validation_error - /);
        expect(r.code).toBe(2);
      }
      expect(await auditCount()).toBe(before);
    });
  });

  it('the catalogue (CLI subcommands, MCP tools) has exactly one entry per endpoint the server serves (issue 7: one per GET endpoint)', async () => {
    const doc = (await (await api.get('/api/agent/openapi.json')).json()) as { paths: Record<string, { get?: unknown }> };
    const served = Object.keys(doc.paths)
      .filter((p) => doc.paths[p]!.get && !p.startsWith('/api/agent/test-') && p !== '/api/agent/openapi.json' && p !== '/api/agent/docs')
      .sort();
    expect(ENDPOINTS.map((e) => e.path).sort()).toEqual(served);
  });

  it('--chart draws a catalogue entry that has a chart; the same entry also gets --format table', async () => {
    let out = '';
    let err = '';
    const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (err += t), env };
    const code = await runCli(['test-forecast', '--chart'], io, [...ENDPOINTS, testForecastEntry], testCharts);
    expect(code, err).toBe(0);
    expect(out).toBe(forecastChart(FORECAST as never));
    expect(out.split('\n').filter((l) => /^\s?\d+  \d{4}-/.test(l))).toHaveLength(13);
    expect((await api.audit('o1'))[0]!.tool).toBe('service.cli_test_forecast');
    out = '';
    expect(await runCli(['test-forecast', '--format', 'table'], io, [...ENDPOINTS, testForecastEntry], testCharts)).toBe(0);
    expect(out).toMatch(/\nweeks \(13\)\nweekStart +weekEnd +opening +inflow/);
    // Entries without a chart have no --chart flag.
    expect(await runCli(['invoices', '--chart'], io)).toBe(2);
  });

  it("an organisation id in the path may be left out: --org / orgId, else the key's own from /status", async () => {
    let out = '';
    let err = '';
    const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (err += t), env };
    expect(await runCli(['test-item'], io, [orgPathEntry]), err).toBe(0);
    expect(JSON.parse(out).id).toBe('o1');
    expect((await api.audit('o1')).slice(0, 2).map((a) => [a.tool, a.route])).toEqual([
      ['service.cli_test_item', '/api/agent/test-items/:id'],
      ['service.cli_test_item', '/api/agent/status'],
    ]);
    out = '';
    expect(await runCli(['test-item', 'o2'], io, [orgPathEntry])).toBe(0);
    expect(JSON.parse(out).id).toBe('o2');
    const { key: partnerKey } = await api.partner(['o1', 'o2']);
    const viaTool = await callTool({ baseUrl: api.url }, orgPathEntry, { orgId: 'o2' }, partnerKey);
    expect(json(viaTool).id).toBe('o2');
    expect(text(viaTool)).toMatch(/^ledgerAlert \(critical, reconnect_required\)/);
    const noOrg = await callTool({ baseUrl: api.url }, orgPathEntry, {}, partnerKey);
    expect(text(noOrg)).toMatch(/^error: validation_error - this key is not bound to one organisation/);
  });

  it('--format table renders every list and drill of the catalogue from the real server', async () => {
    const ids: Record<string, string> = { contact: 'cust-a', 'credit-note': 'cn-1', 'purchase-order': 'po-1', brief: 'o1' };
    // Partner-only endpoints (the portfolio) refuse user keys: they are read with a partner key of both organisations.
    const partnerEnv = { ...env, CASHLINE_API_KEY: (await api.partner(['o1', 'o2'])).key };
    for (const e of ENDPOINTS) {
      let out = '';
      let err = '';
      const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (err += t), env: PARTNER_ONLY.has(e.path) ? partnerEnv : env };
      // A required parameter (the forecast items' week) gets its flag.
      const required = Object.entries(requiredArgs(e)).flatMap(([k, v]) => [`--${flagOf(k)}`, String(v)]);
      const args = [e.name, ...(e.id ? [ids[e.name]!] : []), ...required, '--format', 'table'];
      expect(await runCli(args, io), `${args.join(' ')}: ${err}`).toBe(0);
      // A table (header and rule) or a section for every list and drill; plain fields for the rest.
      if (e.name !== 'status') expect(out, e.name).toMatch(/(^|\n)(\w+(\.\w+)*( \(\d+\))?)\n\S+( +\S+)*\n-+( +-+)*\n|\n\w+\nid +\S/);
      expect(out).not.toContain('{…}');
    }
  });

  it("the forecast's views as words: `forecast accuracy`, `forecast changes`, `forecast items` are their forecast-<view> commands", async () => {
    for (const [words, tool] of [
      [['forecast', 'accuracy', '--horizon', '2'], 'service.cli_forecast_accuracy'],
      [['--format', 'table', 'forecast', 'changes'], 'service.cli_forecast_changes'],
      [['forecast', 'items', '--week', '0'], 'service.cli_forecast_items'],
    ] as const) {
      let out = '';
      let err = '';
      expect(await runCli([...words], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env }), `${words.join(' ')}: ${err}`).toBe(0);
      expect(out.length).toBeGreaterThan(0);
      expect((await api.audit('o1'))[0]!.tool).toBe(tool);
    }
    // Anything else after forecast is still forecast's own (an unknown word is commander's error).
    expect(viewCommand(['forecast', '--weeks', '4'], ENDPOINTS)).toEqual(['forecast', '--weeks', '4']);
    expect(viewCommand(['forecast', 'nonsense'], ENDPOINTS)).toEqual(['forecast', 'nonsense']);
  });

  it('quota_exhausted carries the Retry-After hint (CLI and MCP)', async () => {
    await api.org({ id: 'o3', name: 'Three', plan: 'Free' });
    const freeKey = await api.key('o3');
    for (let i = 0; i < 10; i++) expect((await callTool({ baseUrl: api.url }, ENDPOINTS.find((e) => e.name === 'orgs')!, {}, freeKey)).isError).toBeFalsy();
    const r = await callTool({ baseUrl: api.url }, ENDPOINTS.find((e) => e.name === 'orgs')!, {}, freeKey);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^error: quota_exhausted - .* \(retry after \d+s\)$/);
    expect((r.structuredContent as { error: { retryAfterSeconds: number } }).error.retryAfterSeconds).toBeGreaterThan(0);
    let err = '';
    const code = await runCli(['orgs'], { stdout: () => {}, stderr: (t) => void (err += t), env: { ...env, CASHLINE_API_KEY: freeKey } });
    expect(err).toMatch(/^error: quota_exhausted - .* \(retry after \d+s\)\n$/);
    expect(code).toBe(5);
  });

  describe('MCP over stdio (cashline mcp, SDK client)', () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({ command: 'node', args: [BIN, 'mcp'], env: { PATH: process.env.PATH!, ...env }, stderr: 'pipe' }),
      );
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists one read-only tool per catalogue entry, inputs typed from the server schemas, descriptions for a model', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(ENDPOINTS.map(toolName));
      for (const t of tools) {
        expect(t.annotations?.readOnlyHint).toBe(true);
        expect(t.inputSchema.type).toBe('object');
      }
      const inv = tools.find((t) => t.name === 'invoices')!;
      const props = inv.inputSchema.properties as Record<string, { type?: string; description?: string; minimum?: number }>;
      expect(Object.keys(props).sort()).toEqual(['autoPaginate', 'contactId', 'cursor', 'dateFrom', 'dateTo', 'dueFrom', 'dueTo', 'limit', 'lines', 'orgId', 'overdue', 'q', 'status', 'totals']);
      expect(props.limit).toMatchObject({ type: 'integer', minimum: 1 });
      expect(props.autoPaginate!.type).toBe('boolean');
      expect(props.cursor!.description).toMatch(/nextCursor/);
      expect(inv.description).toMatch(/decimal strings/);
      expect(inv.description).toMatch(/ledgerAlert/);
      expect(inv.description).toMatch(/nextCursor/);
      expect(inv.description).toMatch(/totals=true/);
      const contact = tools.find((t) => t.name === 'contact')!;
      expect(contact.inputSchema.required).toEqual(['id']);
      const instructions = client.getInstructions()!;
      expect(instructions).toMatch(/status \(free/);
      expect(instructions).toContain('receivables: receivables_aged, invoices, credit_notes, credit_note;');
      expect(instructions).toContain('the day at a glance: daily_summary');
      // Only tools that exist are named.
      expect(/\bbrief\b/.test(instructions)).toBe(ENDPOINTS.some((e) => toolName(e) === 'brief'));
    });

    it('typed output: every tool has an object outputSchema; every call returns structuredContent matching it (ajv, zod) and the same JSON as text', async () => {
      const { tools } = await client.listTools();
      const checker = new OutputChecker();
      const ids: Record<string, string> = { contact: 'cust-a', credit_note: 'cn-1', purchase_order: 'po-1', brief: 'o1' };
      const problems: string[] = [];
      for (const e of ENDPOINTS) {
        const tool = tools.find((t) => t.name === toolName(e))!;
        problems.push(...checker.schemaProblems(tool));
        const args = { ...requiredArgs(e), ...(ids[tool.name] ? { id: ids[tool.name] } : {}) };
        const r = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
        // A tool this user key may not call (partner-only) answers an error result, itself typed by the outputSchema.
        const refused = r.isError && (r.structuredContent as { error?: { kind?: string } }).error?.kind === 'invalid_scope';
        problems.push(...(refused ? checker.errorProblems(tool, r) : checker.problems(tool, e, r)));
      }
      expect(problems).toEqual([]);
    });

    it(`a client asking for the newest protocol revision the SDK knows (${LATEST_PROTOCOL_VERSION}) is served it`, async () => {
      const child = spawn('node', [BIN, 'mcp'], { env: { PATH: process.env.PATH!, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
      try {
        const line = new Promise<string>((resolveLine) => {
          let out = '';
          child.stdout!.on('data', (d: Buffer) => {
            out += String(d);
            if (out.includes('\n')) resolveLine(out.split('\n')[0]!);
          });
        });
        const params = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
        child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params })}\n`);
        const answer = JSON.parse(await line) as { result: { protocolVersion: string; capabilities: { tools?: unknown } } };
        expect(answer.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
        expect(answer.result.capabilities.tools).toBeDefined();
      } finally {
        child.kill('SIGTERM');
      }
    });

    it('forwards each call with the key and X-Service-Tool: service.<tool_name>', async () => {
      const r = (await client.callTool({ name: 'invoices', arguments: { status: 'AUTHORISED', totals: true, limit: 1 } })) as CallToolResult;
      expect(r.isError, text(r)).toBeFalsy();
      const body = json(r);
      expect(body.invoices).toHaveLength(1);
      expect(body.totals.grandTotal).toEqual({ count: 2, amount: '155.5' });
      expect(typeof body.nextCursor).toBe('string');
      const next = json((await client.callTool({ name: 'invoices', arguments: { status: 'AUTHORISED', limit: 1, cursor: body.nextCursor } })) as CallToolResult);
      expect(next.invoices[0].id).not.toBe(body.invoices[0].id);
      const drill = json((await client.callTool({ name: 'credit_note', arguments: { id: 'cn-1' } })) as CallToolResult);
      expect(drill.creditNote.total).toBe('30');
      const audit = await api.audit('o1');
      expect(audit.slice(0, 3).map((a) => [a.tool, a.route])).toEqual([
        ['service.credit_note', expect.stringContaining('/api/agent/credit-notes/')],
        ['service.invoices', '/api/agent/invoices'],
        ['service.invoices', '/api/agent/invoices'],
      ]);
    });

    it('bad arguments are validation_error tool errors, before any request', async () => {
      const before = await auditCount();
      for (const args of [{ dateFrom: '2023-02-29' }, { limit: 0 }, { limit: 'ten' }, { autoPaginate: 'yes' }, { bogus: 1 }]) {
        const r = (await client.callTool({ name: 'invoices', arguments: args })) as CallToolResult;
        expect(r.isError, JSON.stringify(args)).toBe(true);
        expect(text(r)).toMatch(/^error: validation_error - /);
        expect(r.structuredContent).toMatchObject({ error: { kind: 'validation_error' } });
      }
      const noId = (await client.callTool({ name: 'contact', arguments: {} })) as CallToolResult;
      expect(text(noId)).toMatch(/^error: validation_error - id/);
      expect(await auditCount()).toBe(before);
    });

    it('API errors are tool errors with the spec 7 kinds', async () => {
      const missing = (await client.callTool({ name: 'contact', arguments: { id: 'no-such-contact' } })) as CallToolResult;
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/^error: not_found - /);
      expect(missing.structuredContent).toMatchObject({ error: { kind: 'not_found' } });
      const otherOrg = (await client.callTool({ name: 'invoices', arguments: { orgId: 'o2' } })) as CallToolResult;
      expect(otherOrg.isError).toBe(true);
      expect(text(otherOrg)).toMatch(/^error: (invalid_scope|bad_request) - /);
    });
  });

  describe('MCP over streamable HTTP (cashline mcp --http, SDK client)', () => {
    let child: ChildProcess;
    let url: string;
    beforeAll(async () => {
      child = spawn('node', [BIN, 'mcp', '--http', '--port', '0', '--base-url', api.url], { env: { PATH: process.env.PATH! }, stdio: ['ignore', 'ignore', 'pipe'] });
      url = await new Promise<string>((resolveUrl, reject) => {
        let err = '';
        child.stderr!.on('data', (d: Buffer) => {
          err += String(d);
          const m = /streamable HTTP on (http:\/\/\S+)/.exec(err);
          if (m) resolveUrl(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`mcp --http exited ${code}: ${err}`)));
      });
    });
    afterAll(() => {
      child?.kill('SIGTERM');
    });

    let lastTransport: StreamableHTTPClientTransport;
    const connect = async (bearer: string, headers: Record<string, string> = {}) => {
      const client = new Client({ name: 'test-http', version: '1.0.0' });
      lastTransport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}`, ...headers } } });
      await client.connect(lastTransport);
      return client;
    };

    it(`the SDK client asks for ${LATEST_PROTOCOL_VERSION} (its newest) and is served it; results are typed (structuredContent)`, async () => {
      const mine = await connect(key);
      try {
        expect(lastTransport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
        const { tools } = await mine.listTools();
        const r = (await mine.callTool({ name: 'invoices', arguments: { limit: 2 } })) as CallToolResult;
        const e = ENDPOINTS.find((x) => x.name === 'invoices')!;
        expect(new OutputChecker().problems(tools.find((t) => t.name === 'invoices')!, e, r)).toEqual([]);
        expect((r.structuredContent as { invoices: unknown[] }).invoices).toHaveLength(2);
      } finally {
        await mine.close();
      }
    });

    it('each caller is served with its own key; tools and errors as over stdio', async () => {
      const mine = await connect(key);
      const theirs = await connect(staleKey);
      try {
        expect((await mine.listTools()).tools.map((t) => t.name)).toEqual(ENDPOINTS.map(toolName));
        const orgs = json((await mine.callTool({ name: 'orgs', arguments: {} })) as CallToolResult);
        expect(orgs.orgs.map((o: { id: string }) => o.id)).toEqual(['o1']);
        expect((await api.audit('o1'))[0]!.tool).toBe('service.orgs');
        const bank = (await theirs.callTool({ name: 'bank_accounts', arguments: {} })) as CallToolResult;
        expect(bank.isError).toBeFalsy();
        expect(text(bank)).toMatch(/^ledgerAlert \(critical, reconnect_required\): .* tell the user/);
        expect(json(bank).bankAccounts.map((b: { id: string }) => b.id)).toEqual(['o2-bank']);
        expect((await api.audit('o2'))[0]!.tool).toBe('service.bank_accounts');
        const bad = (await mine.callTool({ name: 'account_balances', arguments: { date: '2026-02-30' } })) as CallToolResult;
        expect(text(bad)).toMatch(/^error: validation_error - date must be a real date/);
      } finally {
        await mine.close();
        await theirs.close();
      }
    });

    it('a revoked or unknown key is auth_required; no bearer at all is refused with 401', async () => {
      const stranger = await connect('cl_user_nope_nope');
      try {
        const r = (await stranger.callTool({ name: 'status', arguments: {} })) as CallToolResult;
        expect(r.isError).toBe(true);
        expect(text(r)).toMatch(/^error: auth_required - /);
      } finally {
        await stranger.close();
      }
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });

    it('a partner key picks the organisation with X-Service-Org-Id or the orgId argument', async () => {
      const { key: partnerKey } = await api.partner(['o1', 'o2']);
      const partner = await connect(partnerKey, { 'x-service-org-id': 'o2' });
      try {
        const viaHeader = json((await partner.callTool({ name: 'purchase_orders', arguments: {} })) as CallToolResult);
        expect(viaHeader.purchaseOrders.map((p: { id: string }) => p.id)).toEqual(['o2-po']);
        const viaArg = json((await partner.callTool({ name: 'purchase_orders', arguments: { orgId: 'o1', status: 'BILLED' } })) as CallToolResult);
        expect(viaArg.purchaseOrders.map((p: { id: string }) => p.id)).toEqual(['po-2']);
        expect((await api.audit('o1'))[0]!.tool).toBe('service.purchase_orders');
      } finally {
        await partner.close();
      }
    });
  });
});
