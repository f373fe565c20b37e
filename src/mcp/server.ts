/**
 * The MCP server: one read-only tool per entry of the endpoint catalogue
 * (src/schemas/endpoints.ts), each forwarded to the agent HTTP API with the
 * caller's key and `X-Service-Tool: service.<tool_name>`. A client of the
 * HTTP API only, like the CLI (no store code).
 *
 * Tool inputs come from the server's query schemas: the same parameter
 * names and descriptions, typed per the parameter's rule (booleans as
 * booleans, bounded integers as integers, dates as YYYY-MM-DD strings that
 * must be real dates), plus `id` for drills and an optional `orgId` for
 * partner keys. Bad arguments, and every API error, come back as tool errors
 * (isError) whose text is `error: <kind> - <message>` with the kinds of
 * spec 7, and whose structuredContent is `{error: {kind, message,
 * retryAfterSeconds?}}`.
 *
 * Typed output (MCP 2025-06-18 and later): every tool declares an
 * outputSchema, the JSON Schema of the endpoint's own zod response schema
 * (the one the REST answer is checked against), with the error shape as a
 * second branch; a successful call returns the API's JSON body, checked with
 * that zod schema, as structuredContent and serialized in a text block.
 *
 * Transports: stdio (`cashline mcp`; the key from --api-key or
 * CASHLINE_API_KEY) and stateless streamable HTTP (`cashline mcp --http`;
 * each HTTP request carries the caller's own key as `Authorization: Bearer`,
 * and optionally `X-Service-Org-Id`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { CliError, ERROR_KINDS, getJson, orgOfRequest, type ErrorKind } from '../client/http.js';
import { ENDPOINTS, ParamError, checkParam, paramsOf, pathOf, toolName, type Endpoint, type ParamSpec } from '../schemas/endpoints.js';

export interface McpConfig {
  baseUrl: string;
  /** The key of a stdio server; an HTTP server uses each caller's bearer key. */
  apiKey?: string | undefined;
  /** Default organisation (partner keys); a tool's orgId argument wins. */
  orgId?: string | undefined;
  catalogue?: readonly Endpoint[];
}

/** The server's instructions for a model: how the tools fit together (only tools the catalogue has are named). */
export function serverInstructions(catalogue: readonly Endpoint[]): string {
  const has = (name: string) => catalogue.some((e) => toolName(e) === name);
  const groups = [
    ['the day at a glance', ['daily_summary', 'brief']],
    ['cash now and ahead', ['cash_position', 'forecast', 'forecast_items', 'scenarios', 'bank_accounts', 'account_balances']],
    ['receivables', ['receivables_aged', 'invoices', 'credit_notes', 'credit_note']],
    ['payables', ['payables_aged', 'bills', 'purchase_orders', 'purchase_order']],
    ['customers and suppliers', ['contacts', 'contact', 'contacts_summary']],
    ['trends', ['revenue', 'expenses', 'cohorts', 'retention']],
    ['an advisor\'s clients (partner keys)', ['orgs', 'portfolio']],
  ] as const;
  const map = groups
    .map(([what, names]) => [what, names.filter(has)] as const)
    .filter(([, names]) => names.length)
    .map(([what, names]) => `${what}: ${names.join(', ')}`)
    .join('; ');
  return [
    "Cashline reads one business's books (from Xero) and its cash forecast. All tools are read-only.",
    'Start with status (free, never charged) to check the key; with a partner key call orgs and pass orgId to every other tool.',
    `Tools by question: ${map}.`,
    'Amounts are decimal strings ("1234.5"), never numbers. When a result has ledgerAlert, tell the user: the ledger connection needs attention and figures may be stale.',
    'Lists page with nextCursor; for sums use totals=true or autoPaginate=true, never the sum of one page. Each call except status uses one query credit: prefer totals over paging through everything.',
  ].join(' ');
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A tool input of the parameter's own type (as the server's schema documents it). */
function typeOf(p: ParamSpec): z.ZodType {
  switch (p.kind) {
    case 'boolean':
      return z.boolean();
    case 'number': {
      const n = z.number().min(p.minimum ?? -Number.MAX_VALUE);
      return p.maximum === undefined ? n : n.max(p.maximum);
    }
    case 'integer': {
      const n = z.number().int().min(p.minimum ?? Number.MIN_SAFE_INTEGER);
      return p.maximum === undefined ? n : n.max(p.maximum);
    }
    case 'enum':
      return z.enum(p.values!);
    case 'date':
      return z.string().regex(DATE, 'must be YYYY-MM-DD');
    case 'text':
      return z.string().min(1);
  }
}

/** Optional unless the request needs it and the tool has no default for it. */
function inputFor(p: ParamSpec, optional: boolean): z.ZodType {
  return (optional ? typeOf(p).optional() : typeOf(p)).describe(p.description);
}

/** The zod input schema of an entry's tool. */
export function toolInputSchema(e: Endpoint): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  if (e.id) {
    const id = z.string().min(1).describe(e.id.description);
    shape.id = e.id.defaultsToOrg ? id.optional() : id;
  }
  for (const p of paramsOf(e)) {
    const toolDefault = e.toolDefaults?.[p.name];
    const input = inputFor(p, !p.required || toolDefault !== undefined);
    shape[p.name] = toolDefault === undefined ? input : input.describe(`${p.description} This tool's default: ${toolDefault}.`);
  }
  shape.orgId = z
    .string()
    .min(1)
    .optional()
    .describe('Only for partner (advisory) keys: the id of the organisation to read, from the orgs tool. User keys leave it out.');
  return z.strictObject(shape);
}

/** The structuredContent of an error result (isError), the second branch of every tool's outputSchema. */
const ToolErrorContent = z
  .strictObject({
    error: z.strictObject({
      kind: z.enum(Object.keys(ERROR_KINDS) as [ErrorKind, ...ErrorKind[]]),
      message: z.string(),
      retryAfterSeconds: z.number().min(0).optional(),
    }),
  })
  .describe('An error result (isError: true): the kind of spec 7 and the message.');

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of an entry's structured results (the tool's outputSchema):
 * `anyOf` the endpoint's zod response schema as output (every object closed,
 * as the REST answers are) and the error shape, under a top-level
 * `type: 'object'` as MCP requires. Clients of SDK 1.x validate the
 * structuredContent of error results too, so the error shape is part of the
 * contract. A response schema that JSON Schema cannot express (a transform, a
 * Date) or that is not an object throws, naming the entry: a test walks the
 * whole catalogue.
 */
export function toolOutputSchema(e: Endpoint): JsonSchema & { type: 'object' } {
  let generated: JsonSchema;
  try {
    generated = z.toJSONSchema(e.response, { io: 'output' }) as JsonSchema;
  } catch (err) {
    throw new Error(`${toolName(e)}: its response schema has no JSON Schema (${(err as Error).message})`);
  }
  const { $schema, $defs, ...body } = generated;
  if (body.type !== 'object') throw new Error(`${toolName(e)}: an MCP outputSchema must be an object, the response schema is ${JSON.stringify(body.type ?? body)}`);
  const { $schema: _, ...error } = z.toJSONSchema(ToolErrorContent, { io: 'output' }) as JsonSchema;
  // A recursive response schema refers to its root as '#': the body is now the first branch.
  const success = JSON.parse(JSON.stringify(body).replaceAll('{"$ref":"#"}', '{"$ref":"#/anyOf/0"}')) as JsonSchema;
  return {
    ...($schema ? { $schema } : {}),
    type: 'object',
    description: `${e.summary}: the API's JSON answer (first branch) or, on an error result, {error} (second branch).`,
    anyOf: [success, error],
    ...($defs ? { $defs } : {}),
  };
}

function toolError(err: CliError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: err.format() }],
    structuredContent: {
      error: { kind: err.kind, message: err.message, ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}) },
    },
  };
}

/** Calls one tool: checks the arguments, forwards the request, shapes the result. */
export async function callTool(config: McpConfig, e: Endpoint, args: unknown, apiKey: string | undefined, orgHeader?: string): Promise<CallToolResult> {
  try {
    const parsed = toolInputSchema(e).safeParse(args ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length ? issue.path.join('.') : 'arguments';
      throw new CliError('validation_error', `${where}: ${issue.message}`);
    }
    const input = parsed.data as Record<string, unknown>;
    const query: Record<string, string | undefined> = {};
    for (const { name } of paramsOf(e)) {
      const v = input[name] ?? e.toolDefaults?.[name];
      if (v === undefined || v === false) continue;
      try {
        query[name] = checkParam(e, name, name, String(v));
      } catch (err) {
        if (err instanceof ParamError) throw new CliError('validation_error', err.message);
        throw err;
      }
    }
    if (!apiKey) throw new CliError('auth_required', 'no API key: send Authorization: Bearer <key>');
    const opts = {
      baseUrl: config.baseUrl,
      apiKey,
      orgId: (input.orgId as string | undefined) ?? orgHeader ?? config.orgId,
      tool: `service.${toolName(e)}`,
    };
    let id = input.id as string | undefined;
    if (e.id?.defaultsToOrg && id === undefined) id = await orgOfRequest(opts, 'pass id (or orgId), from the orgs tool');
    const body = await getJson(opts, pathOf(e, id), query);
    // The declared outputSchema is the contract: an answer outside it (a service of another version) is said so, not passed on.
    const checked = e.response.safeParse(body);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw new CliError(
        'server_error',
        `the service's answer does not match this client's schema of ${toolName(e)} (${issue.path.join('.') || 'body'}: ${issue.message}); the service and cashline may be different versions`,
      );
    }
    const structuredContent = checked.data as Record<string, unknown>;
    const content: CallToolResult['content'] = [];
    const alert = (body as { ledgerAlert?: { severity: string; kind: string; message: string } } | undefined)?.ledgerAlert;
    if (alert)
      content.push({ type: 'text', text: `ledgerAlert (${alert.severity}, ${alert.kind}): ${alert.message} - tell the user about this; the data may be stale.` });
    // The same JSON as text, for hosts that show only text (the MCP spec's backwards compatibility).
    content.push({ type: 'text', text: JSON.stringify(structuredContent) });
    return { content, structuredContent };
  } catch (err) {
    if (err instanceof CliError) return toolError(err);
    return toolError(new CliError('server_error', (err as Error).message));
  }
}

const toolLists = new WeakMap<readonly Endpoint[], Tool[]>();

/** The tool list (JSON Schema inputs and outputs from the zod definitions), built once per catalogue. */
export function toolList(catalogue: readonly Endpoint[]): Tool[] {
  const cached = toolLists.get(catalogue);
  if (cached) return cached;
  const tools = catalogue.map((e) => ({
    name: toolName(e),
    title: e.summary,
    description: e.description,
    inputSchema: z.toJSONSchema(toolInputSchema(e), { io: 'input' }) as Tool['inputSchema'],
    outputSchema: toolOutputSchema(e),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }));
  toolLists.set(catalogue, tools);
  return tools;
}

/** An MCP server over the catalogue, calling the API with `apiKey`. */
export function buildMcpServer(config: McpConfig, apiKey: string | undefined, orgHeader?: string): Server {
  const catalogue = config.catalogue ?? ENDPOINTS;
  const server = new Server({ name: 'cashline', version: '0.1.0' }, { capabilities: { tools: {} }, instructions: serverInstructions(catalogue) });
  const tools = toolList(catalogue);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const e = catalogue.find((x) => toolName(x) === req.params.name);
    if (!e) return toolError(new CliError('validation_error', `no tool named '${req.params.name}'`));
    return callTool(config, e, req.params.arguments, apiKey, orgHeader);
  });
  return server;
}

export async function serveStdio(config: McpConfig): Promise<void> {
  const server = buildMcpServer(config, config.apiKey);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  process.stdin.on('end', () => void server.close());
  await closed;
}

export interface RunningMcpHttp {
  url: string;
  close(): Promise<void>;
  closed: Promise<void>;
}

const bearer = (req: IncomingMessage) => /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];

function jsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

/**
 * Stateless streamable HTTP on `/mcp`: a fresh server and transport per
 * request, bound to that request's bearer key (requests without one: 401).
 */
export async function serveHttp(config: McpConfig & { host: string; port: number }): Promise<RunningMcpHttp> {
  let port = config.port;
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(config.host);
  const http = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path !== '/mcp') return jsonRpcError(res, 404, 'not found: the MCP endpoint is /mcp');
      const key = bearer(req);
      if (!key) return jsonRpcError(res, 401, 'auth_required: send your Cashline API key as Authorization: Bearer <key>', { 'www-authenticate': 'Bearer' });
      const orgHeader = typeof req.headers['x-service-org-id'] === 'string' ? req.headers['x-service-org-id'] : undefined;
      const server = buildMcpServer(config, key, orgHeader);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        ...(loopback ? { enableDnsRebindingProtection: true, allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] } : {}),
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    })().catch((err: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, `server_error: ${(err as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const closed = new Promise<void>((resolve) => http.once('close', () => resolve()));
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}/mcp`,
    closed,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
