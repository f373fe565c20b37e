/**
 * `cashline`: the command-line client of the agent API. One subcommand per
 * GET endpoint; JSON on stdout (stable, for agents and jq). Base URL and key
 * from --base-url/--api-key or CASHLINE_BASE_URL/CASHLINE_API_KEY. Errors are
 * `error: <kind> - <message>` on stderr with a distinct exit code per kind
 * (docs/cli.md).
 */
import { Command, CommanderError } from 'commander';
import { CliError, getJson, type ClientOptions } from './http.js';

export interface CliIo {
  stdout: (t: string) => void;
  stderr: (t: string) => void;
  env: NodeJS.ProcessEnv;
}

interface GlobalFlags {
  baseUrl?: string;
  apiKey?: string;
  org?: string;
}

function clientOptions(flags: GlobalFlags, env: NodeJS.ProcessEnv, subcommand: string): ClientOptions {
  const baseUrl = flags.baseUrl ?? env.CASHLINE_BASE_URL ?? 'http://127.0.0.1:8787';
  const apiKey = flags.apiKey ?? env.CASHLINE_API_KEY;
  if (!apiKey) throw new CliError('validation_error', 'an API key is needed: --api-key or CASHLINE_API_KEY');
  if (!/^https?:\/\//.test(baseUrl)) throw new CliError('validation_error', `--base-url must be an http(s) URL, got '${baseUrl}'`);
  return { baseUrl, apiKey, orgId: flags.org, tool: `service.cli_${subcommand.replace(/-/g, '_')}` };
}

export function buildCli(io: CliIo): Command {
  const program = new Command('cashline')
    .description('Read a business\'s cash position, forecast, receivables and payables from a Cashline service.')
    .option('--base-url <url>', 'service base URL (CASHLINE_BASE_URL)')
    .option('--api-key <key>', 'API key (CASHLINE_API_KEY)')
    .option('--org <id>', 'organisation id (partner keys)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: (s, write) => write(s.replace(/^error: /, 'error: validation_error - ')) })
    .exitOverride();

  const endpoint = (name: string, path: string, description: string) =>
    program
      .command(name)
      .description(description)
      .action(async () => {
        const opts = clientOptions(program.opts<GlobalFlags>(), io.env, name);
        const body = await getJson(opts, path);
        io.stdout(`${JSON.stringify(body, null, 2)}\n`);
      });

  endpoint('status', '/api/agent/status', 'subscription, usage and key status (never charged)');
  endpoint('orgs', '/api/agent/orgs', 'organisations this key reaches');
  return program;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildCli(io);
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
