/**
 * Typed tool output (issue 19; MCP 2025-06-18 and later), without a store:
 * every catalogue entry's outputSchema is an object schema ajv (strict, JSON
 * Schema 2020-12) accepts; the independent checks of test/helpers/mcp-output.ts
 * fail on a wrong answer; error results pass the SDK client's own validation
 * (SDK 1.32.2 validates the structuredContent of error results too, which is
 * why the error shape is a branch of every outputSchema); an answer outside
 * the schema is a server_error; the newest protocol revision the SDK knows is
 * the one negotiated.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from '@hono/zod-openapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { ENDPOINTS, endpoint, toolName } from '../src/schemas/endpoints.js';
import { buildMcpServer, callTool, toolInputSchema, toolList, toolOutputSchema } from '../src/mcp/server.js';
import { OutputChecker, requiredArgs } from './helpers/mcp-output.js';

const checker = new OutputChecker();
const entry = (name: string, response: z.ZodType) =>
  endpoint({ name, path: `/api/agent/${name}`, query: null, response, summary: `test ${name}`, description: `Test entry ${name}.` });
const ok = (structuredContent: Record<string, unknown>, text = JSON.stringify(structuredContent)): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent,
});

async function connected(server: Server): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(b);
  return client;
}

describe('outputSchema of every tool', () => {
  it('every catalogue entry gives an object schema that ajv (strict, 2020-12) compiles: the answer, then the error', () => {
    const tools = toolList(ENDPOINTS);
    expect(tools.map((t) => t.name)).toEqual(ENDPOINTS.map(toolName));
    for (const t of tools) {
      expect(checker.schemaProblems(t)).toEqual([]);
      expect(t.outputSchema!.type).toBe('object');
    }
    // Each answer branch is the REST endpoint's response schema, closed as the REST answers are.
    const inv = (tools.find((t) => t.name === 'invoices')!.outputSchema!.anyOf as Record<string, unknown>[])[0]!;
    expect(inv).toMatchObject({ type: 'object', additionalProperties: false, required: expect.arrayContaining(['invoices', 'nextCursor']) });
  });

  it('a response schema that is not an object, or has no JSON Schema, is refused by name', () => {
    expect(() => toolOutputSchema(entry('test-list', z.array(z.string())))).toThrow(/test_list: an MCP outputSchema must be an object/);
    expect(() => toolOutputSchema(entry('test-date', z.object({ at: z.date() })))).toThrow(/test_date: its response schema has no JSON Schema/);
  });

  it('the checks fail on a wrong answer: wrong type, unknown key, an error as an answer, text that differs, a wrong schema', () => {
    const e = entry('test-item', z.object({ id: z.number(), name: z.string().optional() }));
    const tool = { name: 'test_item', outputSchema: toolOutputSchema(e) };
    expect(checker.problems(tool, e, ok({ id: 1, name: 'x' }))).toEqual([]);
    expect(checker.problems(tool, e, ok({ id: 'x' })).join('\n')).toMatch(/outputSchema \(ajv\).*\n.*zod response schema: id/);
    expect(checker.problems(tool, e, ok({ id: 1, extra: true })).join('\n')).toMatch(/outputSchema \(ajv\)[\s\S]*unknown keys/);
    expect(checker.problems(tool, e, ok({ error: { kind: 'not_found', message: 'no' } })).join('\n')).toMatch(/answer branch/);
    expect(checker.problems(tool, e, ok({ id: 1 }, '{"id":2}'))).toEqual(['test_item: the last text block is not the structuredContent serialized']);
    expect(checker.problems(tool, e, { content: [{ type: 'text', text: '{}' }] })).toEqual(['test_item: no structuredContent']);
    // A schema that says something else than the answer: the same answer now fails.
    const wrong = { name: 'test_item', outputSchema: toolOutputSchema(entry('test-item', z.object({ id: z.string() }))) };
    expect(checker.problems(wrong, e, ok({ id: 1 })).length).toBeGreaterThan(0);
    expect(checker.schemaProblems({ name: 'bad', outputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }).join()).toMatch(/bad: /);
    expect(checker.schemaProblems({ name: 'array', outputSchema: { type: 'array' } as never }).join()).toMatch(/MCP requires "object"/);
  });
});

describe('error results and the SDK client', () => {
  it('SDK 1.32.2 validates the structuredContent of error results too: a schema without the error branch makes the client throw', async () => {
    const server = new Server({ name: 'plain', version: '1' }, { capabilities: { tools: {} } });
    const body = toolOutputSchema(entry('test-item', z.object({ id: z.string() })));
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'only_body', inputSchema: { type: 'object' }, outputSchema: { ...(body.anyOf as Record<string, unknown>[])[0]!, type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({
      isError: true,
      content: [{ type: 'text', text: 'error: not_found - no' }],
      structuredContent: { error: { kind: 'not_found', message: 'no' } },
    }));
    const client = await connected(server);
    try {
      await client.listTools();
      await expect(client.callTool({ name: 'only_body', arguments: {} })).rejects.toThrow(/does not match the tool's output schema/);
    } finally {
      await client.close();
    }
  });

  it("Cashline's error results (validation, network) reach the SDK client as isError with {error}, never a thrown validation failure", async () => {
    const client = await connected(buildMcpServer({ baseUrl: 'http://127.0.0.1:9' }, 'cl_user_x'));
    try {
      const tools = (await client.listTools()).tools;
      const bad = (await client.callTool({ name: 'invoices', arguments: { limit: 0 } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(checker.errorProblems(tools.find((t) => t.name === 'invoices')!, bad)).toEqual([]);
      expect(bad.structuredContent).toMatchObject({ error: { kind: 'validation_error' } });
      const down = (await client.callTool({ name: 'status', arguments: {} })) as CallToolResult;
      expect(down.isError).toBe(true);
      expect(down.structuredContent).toMatchObject({ error: { kind: 'network_error', message: expect.stringMatching(/cannot reach/) } });
      expect(checker.errorProblems(tools.find((t) => t.name === 'status')!, down)).toEqual([]);
      expect(checker.errorProblems(tools.find((t) => t.name === 'status')!, { content: [], isError: true, structuredContent: { error: { kind: 'oops', message: 'x' } } }).join()).toMatch(/status: error result/);
      const unknown = (await client.callTool({ name: 'no_such_tool', arguments: {} })) as CallToolResult;
      expect(unknown.structuredContent).toMatchObject({ error: { kind: 'validation_error' } });
    } finally {
      await client.close();
    }
  });
});

describe('answers checked against the schema (a service of another version)', () => {
  let http: HttpServer;
  let baseUrl: string;
  const answers: Record<string, unknown> = {
    '/api/agent/test-right': { id: 7, ledgerAlert: { severity: 'critical', kind: 'reconnect_required', message: 'Reconnect Xero.' } },
    '/api/agent/test-more': { id: 7, addedLater: 'x' },
    '/api/agent/test-wrong': { id: 'seven' },
  };
  beforeAll(async () => {
    http = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers[new URL(req.url!, 'http://x').pathname] ?? {}));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => http.close(() => r())));

  const Body = z.object({
    id: z.number(),
    ledgerAlert: z.object({ severity: z.string(), kind: z.string(), message: z.string() }).optional(),
  });

  it('a right answer: structuredContent is the body, the ledgerAlert line first, the JSON last', async () => {
    const e = entry('test-right', Body);
    const r = await callTool({ baseUrl }, e, {}, 'cl_user_x');
    expect(checker.problems({ name: 'test_right', outputSchema: toolOutputSchema(e) }, e, r)).toEqual([]);
    expect(r.structuredContent).toEqual(answers['/api/agent/test-right']);
    const texts = r.content.map((c) => (c.type === 'text' ? c.text : c.type));
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe('ledgerAlert (critical, reconnect_required): Reconnect Xero. - tell the user about this; the data may be stale.');
    expect(JSON.parse(texts[1]!)).toEqual(r.structuredContent);
  });

  it('a field this client does not know is left out of structuredContent (the declared schema holds)', async () => {
    const e = entry('test-more', Body);
    const r = await callTool({ baseUrl }, e, {}, 'cl_user_x');
    expect(r.structuredContent).toEqual({ id: 7 });
    expect(checker.problems({ name: 'test_more', outputSchema: toolOutputSchema(e) }, e, r)).toEqual([]);
  });

  it('an answer outside the schema is a server_error naming the field', async () => {
    const r = await callTool({ baseUrl }, entry('test-wrong', Body), {}, 'cl_user_x');
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ error: { kind: 'server_error', message: expect.stringMatching(/test_wrong \(id: .*different versions/) } });
  });
});

describe('a query parameter the request needs', () => {
  const e = endpoint({
    name: 'test-week',
    path: '/api/agent/test-week',
    query: z.object({
      week: z.coerce.number().int().min(0).max(12).openapi({ param: { name: 'week', in: 'query', required: true }, type: 'integer', minimum: 0, maximum: 12 }),
      limit: z.coerce.number().int().min(1).optional(),
    }),
    response: z.object({ id: z.string() }),
    summary: 'a required parameter',
    description: 'Test entry with a required week.',
  });

  it('is a required tool input (refused before any request when missing); a walk of the defaults sends its smallest value', async () => {
    const input = z.toJSONSchema(toolInputSchema(e), { io: 'input' }) as { required?: string[] };
    expect(input.required).toEqual(['week']);
    const r = await callTool({ baseUrl: 'http://127.0.0.1:9' }, e, {}, 'cl_user_x');
    expect(r.structuredContent).toMatchObject({ error: { kind: 'validation_error', message: expect.stringMatching(/^week: /) } });
    expect(requiredArgs(e)).toEqual({ week: 0 });
    // A tool default makes it optional again.
    const withDefault = { ...e, toolDefaults: { week: '0' } };
    expect((z.toJSONSchema(toolInputSchema(withDefault), { io: 'input' }) as { required?: string[] }).required ?? []).toEqual([]);
    expect(requiredArgs(withDefault)).toEqual({});
  });
});

describe('protocol revisions', () => {
  const initialize = async (protocolVersion: string) => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const server = buildMcpServer({ baseUrl: 'http://127.0.0.1:9' }, 'cl_user_x');
    await server.connect(a);
    const answer = new Promise<JSONRPCMessage>((resolve) => {
      b.onmessage = resolve;
    });
    await b.start();
    await b.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const msg = (await answer) as unknown as { result: { protocolVersion: string; capabilities: Record<string, unknown> } };
    await server.close();
    return msg.result;
  };

  it(`a client asking for the newest revision the SDK knows (${LATEST_PROTOCOL_VERSION}) is served it; each supported one is echoed`, async () => {
    expect(LATEST_PROTOCOL_VERSION >= '2025-06-18').toBe(true);
    const latest = await initialize(LATEST_PROTOCOL_VERSION);
    expect(latest.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(latest.capabilities.tools).toBeDefined();
    for (const v of SUPPORTED_PROTOCOL_VERSIONS) expect((await initialize(v)).protocolVersion).toBe(v);
  });
});
