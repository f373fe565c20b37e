/**
 * `cashline`: the command-line client of the agent API. One subcommand per
 * entry of the endpoint catalogue (src/schemas/endpoints.ts), with one flag
 * per query parameter of the server's own schema, checked before any
 * request. JSON on stdout by default (stable, for agents and jq);
 * `--format table` for people; `--chart` where the entry has a chart. Base
 * URL and key from --base-url/--api-key or CASHLINE_BASE_URL/CASHLINE_API_KEY.
 * Errors are `error: <kind> - <message>` on stderr with a distinct exit code
 * per kind (docs/cli.md). `cashline mcp` (src/mcp/command.ts, added by
 * bin/cashline.ts) serves the same catalogue as MCP tools.
 */
import { Command, CommanderError, Option } from 'commander';
import { CliError, DEFAULT_BASE_URL, getJson, orgOfRequest, type ClientOptions } from '../client/http.js';
import { numericFields, renderTable, warningLines } from './format.js';
import { forecastChart, type ForecastChartInput } from './chart.js';
import { ENDPOINTS, ParamError, checkParam, flagOf, paramsOf, pathOf, type Endpoint, type ParamSpec } from '../schemas/endpoints.js';

export interface CliIo {
  stdout: (t: string) => void;
  stderr: (t: string) => void;
  env: NodeJS.ProcessEnv;
  /** The terminal's width, when stdout is one; `--format table` fits it (80 otherwise). */
  columns?: number | undefined;
}

/** The width `--format table` fits when stdout is not a terminal (a pipe, a file, a test). */
export const TABLE_WIDTH = 80;

interface GlobalFlags {
  baseUrl?: string;
  apiKey?: string;
  org?: string;
  format?: string;
}


/** Endpoints with `--chart` (by catalogue name): a terminal rendering of their answer. */
export type Charts = Readonly<Record<string, ((body: unknown) => string) | undefined>>;
export const CHARTS: Charts = {
  forecast: (body) => forecastChart(body as ForecastChartInput),
};

/**
 * What a person reads first in `--format table` (by catalogue name): columns kept when a table leaves some out,
 * with their headers. A forecast week: what comes in and goes out, the closing cash and its 80% band, and the
 * chance cash is short that week. The track record, per horizon: how far off the receipts and the closing cash
 * were and how often they fell inside the 80% band (whether the ranges hold).
 */
export const TABLE_FIRST: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'forecast-accuracy': {
    'receipts.wape': 'receipts WAPE',
    'receipts.coverage80': 'receipts in band',
    'closing.wape': 'closing WAPE',
    'closing.coverage80': 'closing in band',
  },
  forecast: {
    inflow: 'inflow',
    outflow: 'outflow',
    closing: 'closing',
    'bands.closing.p10': 'closing P10',
    'bands.closing.p90': 'closing P90',
    shortfallProbability: 'shortfall',
  },
};

export function clientOptions(flags: GlobalFlags, env: NodeJS.ProcessEnv, tool: string): ClientOptions {
  const baseUrl = flags.baseUrl ?? env.CASHLINE_BASE_URL ?? DEFAULT_BASE_URL;
  const apiKey = flags.apiKey ?? env.CASHLINE_API_KEY;
  if (!apiKey) throw new CliError('validation_error', 'an API key is needed: --api-key or CASHLINE_API_KEY');
  if (!/^https?:\/\//.test(baseUrl)) throw new CliError('validation_error', `--base-url must be an http(s) URL, got '${baseUrl}'`);
  return { baseUrl, apiKey, orgId: flags.org ?? env.CASHLINE_ORG_ID, tool };
}

/** The query of a subcommand from its parsed flags; every value checked by the server's own parser (validation_error before any request). */
export function queryFromFlags(e: Endpoint, flags: Record<string, unknown>): Record<string, string | undefined> {
  const query: Record<string, string | undefined> = {};
  for (const p of paramsOf(e)) {
    const flag = flagOf(p.name);
    const value = flags[camel(flag)];
    if (value === undefined) continue;
    try {
      query[p.name] = p.kind === 'boolean' ? (value === true ? 'true' : undefined) : checkParam(e, p.name, `--${flag}`, String(value));
    } catch (err) {
      if (err instanceof ParamError) throw new CliError('validation_error', err.message);
      throw err;
    }
  }
  return query;
}

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const PLACEHOLDER: Record<ParamSpec['kind'], string> = { text: 'value', date: 'date', boolean: '', integer: 'n', number: 'x', enum: 'value' };

/**
 * The first sentence of a description: up to the first full stop followed by a space (or the end) outside
 * parentheses and quotes, and not of an abbreviation (e.g., i.e.); markdown code marks dropped.
 */
export function firstSentence(description: string): string {
  const text = description.replace(/`([^`]*)`/g, '$1');
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === "'" && (i === 0 || /[\s(]/.test(text[i - 1]!) || quoted)) quoted = !quoted;
    else if (ch === '.' && depth === 0 && !quoted && (i === text.length - 1 || /\s/.test(text[i + 1]!)) && !/\b(e\.g|i\.e|etc|vs)$/i.test(text.slice(0, i))) {
      return text.slice(0, i);
    }
  }
  return text.replace(/\.$/, '');
}

/** A flag's help: the first sentence of the parameter's description (the server's), with its values or bounds. */
function flagHelp(p: ParamSpec): string {
  const first = firstSentence(p.description);
  if (p.kind === 'enum') return `${first} (${p.values!.join(', ')})`;
  if ((p.kind === 'integer' || p.kind === 'number') && p.maximum !== undefined && !first.includes(String(p.maximum))) return `${first} (${p.minimum}-${p.maximum})`;
  return first;
}

/** A command added to the CLI by the wiring (bin/cashline.ts adds `mcp`). */
export type CliExtension = (program: Command, io: CliIo, catalogue: readonly Endpoint[]) => void;

export function buildCli(io: CliIo, catalogue: readonly Endpoint[] = ENDPOINTS, charts: Charts = CHARTS, extensions: readonly CliExtension[] = []): Command {
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
    for (const p of paramsOf(e)) {
      const flag = flagOf(p.name);
      cmd.option(p.kind === 'boolean' ? `--${flag}` : `--${flag} <${PLACEHOLDER[p.kind]}>`, flagHelp(p));
    }
    const chart = charts[e.name];
    if (chart) cmd.option('--chart', 'draw it in the terminal instead of printing JSON');
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
      if (flags.chart && chart) io.stdout(chart(body));
      else if (global.format === 'table') {
        const first = TABLE_FIRST[e.name];
        io.stdout(renderTable(body, { ...numericFields(e.response), width: Math.max(40, io.columns ?? TABLE_WIDTH), ...(first ? { first } : {}) }));
      }
      else io.stdout(`${JSON.stringify(body, null, 2)}\n`);
    });
  }

  for (const add of extensions) add(program, io, catalogue);
  return program;
}

/**
 * The forecast's views as words: `cashline forecast accuracy` is
 * `cashline forecast-accuracy` (and `forecast items`, `forecast changes`):
 * the first word that names a command, `forecast`, followed by the rest of
 * a `forecast-<view>` command's name.
 */
export function viewCommand(argv: readonly string[], catalogue: readonly Endpoint[]): string[] {
  const names = new Set(catalogue.map((e) => e.name));
  const i = argv.findIndex((a) => names.has(a));
  if (i < 0 || argv[i] !== 'forecast' || !names.has(`forecast-${argv[i + 1]}`)) return [...argv];
  return [...argv.slice(0, i), `forecast-${argv[i + 1]}`, ...argv.slice(i + 2)];
}

export async function runCli(argv: string[], io: CliIo, catalogue?: readonly Endpoint[], charts?: Charts, extensions?: readonly CliExtension[]): Promise<number> {
  const program = buildCli(io, catalogue, charts, extensions);
  try {
    await program.parseAsync(viewCommand(argv, catalogue ?? ENDPOINTS), { from: 'user' });
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
