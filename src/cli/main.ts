/**
 * `cashline`: the command-line client of the agent API. One subcommand per
 * GET endpoint; JSON on stdout (stable, for agents and jq). Base URL and key
 * from --base-url/--api-key or CASHLINE_BASE_URL/CASHLINE_API_KEY. Errors are
 * `error: <kind> - <message>` on stderr with a distinct exit code per kind
 * (docs/cli.md).
 */
import { Command, CommanderError, Option } from 'commander';
import type { z } from 'zod';
import { CliError, getJson, type ClientOptions } from './http.js';
import { isCalendarDate } from '../domain/calendar.js';
import type {
  AccountBalancesQuery,
  ContactListQuery,
  CreditNoteListQuery,
  InvoiceListQuery,
  PurchaseOrderListQuery,
} from '../schemas/params.js';

/** Query objects typed by the server's own schemas: a renamed parameter fails the build. */
type Query<S extends z.ZodType> = { [K in keyof z.infer<S>]?: string };

interface ListFlags {
  status?: string;
  contactId?: string;
  dateFrom?: string;
  dateTo?: string;
  limit?: string;
  cursor?: string;
  all?: boolean;
  totals?: boolean;
  lines?: boolean;
  type?: string;
  sort?: string;
  date?: string;
}

function checkDate(flag: string, v: string | undefined): string | undefined {
  if (v !== undefined && !isCalendarDate(v)) throw new CliError('validation_error', `${flag} must be a real date YYYY-MM-DD, got '${v}'`);
  return v;
}

function checkLimit(v: string | undefined): string | undefined {
  if (v !== undefined && !/^[1-9]\d*$/.test(v)) throw new CliError('validation_error', `--limit must be a whole number of at least 1, got '${v}'`);
  return v;
}

const flag = (b: boolean | undefined) => (b ? 'true' : undefined);

function itemQuery(f: ListFlags): Query<typeof CreditNoteListQuery> {
  return {
    status: f.status,
    contactId: f.contactId,
    dateFrom: checkDate('--date-from', f.dateFrom),
    dateTo: checkDate('--date-to', f.dateTo),
    limit: checkLimit(f.limit),
    cursor: f.cursor,
    autoPaginate: flag(f.all),
    totals: flag(f.totals),
  };
}

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
  endpoint('bank-accounts', '/api/agent/bank-accounts', 'bank accounts with reconciled and statement balances');

  const run = async (name: string, path: string, query: Record<string, string | undefined>) => {
    const opts = clientOptions(program.opts<GlobalFlags>(), io.env, name);
    io.stdout(`${JSON.stringify(await getJson(opts, path, query), null, 2)}\n`);
  };
  const itemFlags = (cmd: Command) =>
    cmd
      .option('--status <list>', 'comma-separated statuses (OR)')
      .option('--contact-id <id>', 'ledger contact id')
      .option('--date-from <date>', 'from this issue date, YYYY-MM-DD')
      .option('--date-to <date>', 'to this issue date, YYYY-MM-DD (inclusive)')
      .option('--limit <n>', 'rows per page (capped at 200)')
      .option('--cursor <cursor>', 'nextCursor of the previous page')
      .option('--all', 'the whole matched set in one response (autoPaginate, up to 5,000 rows)')
      .option('--totals', 'add totals over the whole filtered set');

  for (const [name, path, what] of [
    ['invoices', '/api/agent/invoices', 'receivable invoices'],
    ['bills', '/api/agent/bills', 'payable bills'],
  ] as const) {
    itemFlags(program.command(name).description(what))
      .option('--lines', 'include each item\'s lines')
      .action(async (f: ListFlags) => {
        const q: Query<typeof InvoiceListQuery> = { ...itemQuery(f), lines: flag(f.lines) };
        await run(name, path, q);
      });
  }
  itemFlags(program.command('credit-notes').description('receivable credit notes')).action(async (f: ListFlags) => {
    const q: Query<typeof CreditNoteListQuery> = itemQuery(f);
    await run('credit-notes', '/api/agent/credit-notes', q);
  });
  itemFlags(program.command('purchase-orders').description('purchase orders (status matches verbatim)')).action(async (f: ListFlags) => {
    const q: Query<typeof PurchaseOrderListQuery> = itemQuery(f);
    await run('purchase-orders', '/api/agent/purchase-orders', q);
  });
  program
    .command('contacts')
    .description('contacts')
    .addOption(new Option('--type <type>', 'customer, supplier or both').choices(['customer', 'supplier', 'both']))
    .addOption(new Option('--sort <order>', 'order').choices(['recent_desc', 'revenue_desc', 'spend_desc']))
    .option('--limit <n>', 'rows per page (capped at 200)')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .option('--all', 'every matching contact in one response (up to 5,000)')
    .option('--totals', 'add counts by type')
    .action(async (f: ListFlags) => {
      const q: Query<typeof ContactListQuery> = {
        type: f.type,
        sort: f.sort,
        limit: checkLimit(f.limit),
        cursor: f.cursor,
        autoPaginate: flag(f.all),
        totals: flag(f.totals),
      };
      await run('contacts', '/api/agent/contacts', q);
    });
  program
    .command('account-balances')
    .description('balance-sheet account balances as at a date')
    .option('--date <date>', "as at this day, YYYY-MM-DD (default today in the organisation's zone)")
    .action(async (f: ListFlags) => {
      const q: Query<typeof AccountBalancesQuery> = { date: checkDate('--date', f.date) };
      await run('account-balances', '/api/agent/account-balances', q);
    });
  for (const [name, path, what] of [
    ['contact', '/api/agent/contacts/', 'one contact, by its ledger id'],
    ['credit-note', '/api/agent/credit-notes/', 'one credit note, by id'],
    ['purchase-order', '/api/agent/purchase-orders/', 'one purchase order, by id'],
  ] as const) {
    program
      .command(name)
      .description(what)
      .argument('<id>', 'the id')
      .action(async (id: string) => {
        if (!id.trim()) throw new CliError('validation_error', '<id> must not be empty');
        await run(name, `${path}${encodeURIComponent(id)}`, {});
      });
  }
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
