/**
 * `cashline`: the command-line client of the agent API. One subcommand per
 * entry of the endpoint catalogue (src/schemas/endpoints.ts), with one flag
 * per query parameter of the server's own schema, checked before any
 * request. JSON on stdout by default (stable, for agents and jq);
 * `--format table` for people; `--chart` where the entry has a chart. Base
 * URL and key from --base-url/--api-key or CASHLINE_BASE_URL/CASHLINE_API_KEY.
 * Errors are `error: <kind> - <message>` on stderr with a distinct exit code
 * per kind (docs/cli.md). `cashline mcp` serves the same catalogue as MCP
 * tools (src/mcp/server.ts).
 */
import { Command, CommanderError, Option } from 'commander';
import { CliError, getJson, orgOfRequest, type ClientOptions } from './http.js';
import { numericFields, renderTable, warningLines } from './format.js';
import {
  ENDPOINTS,
  PARAM_RULES,
  ParamError,
  checkParam,
  flagOf,
  pathOf,
  type Endpoint,
  type ParamName,
  type ParamRule,
} from '../schemas/endpoints.js';

export interface CliIo {
  stdout: (t: string) => void;
  stderr: (t: string) => void;
  env: NodeJS.ProcessEnv;
}

interface GlobalFlags {
  baseUrl?: string;
  apiKey?: string;
  org?: string;
  format?: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

export function clientOptions(flags: GlobalFlags, env: NodeJS.ProcessEnv, tool: string): ClientOptions {
  const baseUrl = flags.baseUrl ?? env.CASHLINE_BASE_URL ?? DEFAULT_BASE_URL;
  const apiKey = flags.apiKey ?? env.CASHLINE_API_KEY;
  if (!apiKey) throw new CliError('validation_error', 'an API key is needed: --api-key or CASHLINE_API_KEY');
  if (!/^https?:\/\//.test(baseUrl)) throw new CliError('validation_error', `--base-url must be an http(s) URL, got '${baseUrl}'`);
  return { baseUrl, apiKey, orgId: flags.org ?? env.CASHLINE_ORG_ID, tool };
}

/** The query of a subcommand from its parsed flags; every value checked (validation_error before any request). */
export function queryFromFlags(e: Endpoint, flags: Record<string, unknown>): Record<string, string | undefined> {
  const query: Record<string, string | undefined> = {};
  for (const param of Object.keys(e.query?.shape ?? {}) as ParamName[]) {
    const rule: ParamRule = PARAM_RULES[param];
    const flag = flagOf(param);
    const value = flags[camel(flag)];
    if (value === undefined) continue;
    try {
      query[param] = rule.kind === 'boolean' ? (value === true ? 'true' : undefined) : checkParam(param, `--${flag}`, String(value));
    } catch (err) {
      if (err instanceof ParamError) throw new CliError('validation_error', err.message);
      throw err;
    }
  }
  return query;
}

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const PLACEHOLDER: Record<ParamRule['kind'], string> = { string: 'value', list: 'list', date: 'date', boolean: '', int: 'n', enum: 'value' };

function flagHelp(rule: ParamRule): string {
  return rule.kind === 'enum' ? `${rule.help}: ${rule.values.join(', ')}` : rule.help;
}

export function buildCli(io: CliIo, catalogue: readonly Endpoint[] = ENDPOINTS): Command {
  const program = new Command('cashline')
    .description("Read a business's cash position, forecast, receivables and payables from a Cashline service.")
    .option('--base-url <url>', `service base URL (CASHLINE_BASE_URL, default ${DEFAULT_BASE_URL})`)
    .option('--api-key <key>', 'API key (CASHLINE_API_KEY)')
    .option('--org <id>', 'organisation id, for partner keys (CASHLINE_ORG_ID)')
    .addOption(new Option('--format <format>', 'output: json (default, stable) or table (for people)').choices(['json', 'table']))
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: (s, write) => write(s.replace(/^error: /, 'error: validation_error - ')) })
    .exitOverride();

  for (const e of catalogue) {
    const cmd = program.command(e.name).description(e.summary);
    if (e.id) cmd.argument(e.id.defaultsToOrg ? '[id]' : '<id>', e.id.description);
    for (const param of Object.keys(e.query?.shape ?? {}) as ParamName[]) {
      const rule: ParamRule = PARAM_RULES[param];
      const flag = flagOf(param);
      cmd.option(rule.kind === 'boolean' ? `--${flag}` : `--${flag} <${PLACEHOLDER[rule.kind]}>`, flagHelp(rule));
    }
    if (e.chart) cmd.option('--chart', 'draw it in the terminal instead of printing JSON');
    cmd.action(async (...args: unknown[]) => {
      let id = e.id ? (args[0] as string | undefined) : undefined;
      const flags = (e.id ? args[1] : args[0]) as Record<string, unknown>;
      if (id !== undefined && !id.trim()) throw new CliError('validation_error', '<id> must not be empty');
      const query = queryFromFlags(e, flags);
      const global = program.opts<GlobalFlags>();
      const opts = clientOptions(global, io.env, `service.cli_${e.name.replace(/-/g, '_')}`);
      if (e.id?.defaultsToOrg && id === undefined) id = await orgOfRequest(opts, 'give the organisation id, or --org');
      const body = await getJson(opts, pathOf(e, id), query);
      // What the service ignored (decisions.md `warnings`): on stderr whatever the format, and kept in the JSON.
      for (const line of warningLines(body)) io.stderr(`${line}\n`);
      if (flags.chart && e.chart) io.stdout(e.chart(body as never));
      else if (global.format === 'table') io.stdout(renderTable(body, numericFields(e.response)));
      else io.stdout(`${JSON.stringify(body, null, 2)}\n`);
    });
  }

  program
    .command('mcp')
    .description('serve the same endpoints as MCP tools: over stdio (default) or streamable HTTP')
    .option('--http', 'streamable HTTP instead of stdio (each caller sends its own key as a bearer token)')
    .option('--host <host>', 'HTTP listen address', '127.0.0.1')
    .option('--port <n>', 'HTTP port (0 picks a free one)', '8788')
    .action(async (f: { http?: boolean; host: string; port: string }) => {
      const global = program.opts<GlobalFlags>();
      const baseUrl = global.baseUrl ?? io.env.CASHLINE_BASE_URL ?? DEFAULT_BASE_URL;
      if (!/^https?:\/\//.test(baseUrl)) throw new CliError('validation_error', `--base-url must be an http(s) URL, got '${baseUrl}'`);
      const { serveStdio, serveHttp } = await import('../mcp/server.js');
      const config = { baseUrl, catalogue, apiKey: global.apiKey ?? io.env.CASHLINE_API_KEY, orgId: global.org ?? io.env.CASHLINE_ORG_ID };
      if (!f.http) {
        if (!config.apiKey) throw new CliError('validation_error', 'an API key is needed: --api-key or CASHLINE_API_KEY');
        await serveStdio(config);
        return;
      }
      if (!/^\d+$/.test(f.port) || Number(f.port) > 65535) throw new CliError('validation_error', `--port must be 0 to 65535, got '${f.port}'`);
      const running = await serveHttp({ ...config, host: f.host, port: Number(f.port) });
      io.stderr(`cashline mcp: streamable HTTP on ${running.url}\n`);
      await running.closed;
    });
  return program;
}

export async function runCli(argv: string[], io: CliIo, catalogue?: readonly Endpoint[]): Promise<number> {
  const program = buildCli(io, catalogue);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr(`${err.format()}\n`);
      return err.exitCode;
    }
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    io.stderr(`error: network_error - ${(err as Error).message}\n`);
    return 9;
  }
}
