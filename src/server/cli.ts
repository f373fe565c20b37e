/**
 * `cashline-server`: runs the service and its operations. The subcommands and
 * flags are fixed by decisions.md ("Operations interface"): each prints JSON
 * on stdout and exits 0 on success, or prints `error: <message>` on stderr and
 * exits non-zero. Progress of long work goes to stderr.
 */
import { Command, CommanderError, Option } from 'commander';
import { type Config, loadConfig } from '../config.js';
import { openStore } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { createKey, createOrg, createPartner, createUser, linkPartner, revokeKey, setAccountSensitive, setContactSensitive } from '../store/tenancy.js';
import { parseScopes } from '../domain/scopes.js';
import { PLANS } from '../domain/plans.js';
import { extraCommands } from './commands.js';
import { forecastCommands } from './forecast-commands.js';
import { forwardToServer, isServingCommand, liveServerSocket } from './ops-socket.js';
import { action, dateArg, describeError, intArg, type Io, OperatorError, processIo } from './action.js';


export function buildProgram(io: Io = processIo): Command {
  const program = new Command('cashline-server')
    .description('Cashline service and operations. Every command prints JSON on success.')
    .showHelpAfterError()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: (s, write) => write(s) })
    .exitOverride();

  program
    .command('migrate')
    .description('apply the store migrations (idempotent)')
    .action(
      action(io, async (ctx) => {
        const config = ctx.config;
        if (io.sharedStore) return { ...(await migrate(io.sharedStore.db)), store: io.sharedStore.kind };
        const store = await openStore({ databaseUrl: config.DATABASE_URL, dataDir: config.CASHLINE_DATA_DIR });
        try {
          const r = await migrate(store.db);
          return { ...r, store: store.kind };
        } finally {
          await store.close();
        }
      }),
    );

  const org = program.command('org').description('organisations');
  org
    .command('create')
    .description('create an organisation with its owner and billing account')
    .requiredOption('--name <name>', 'organisation name')
    .option('--timezone <tz>', 'IANA time zone', 'Australia/Sydney')
    .option('--base-currency <ccy>', 'ISO currency code', 'AUD')
    .option('--fy-end-day <d>', 'financial year end day', intArg('--fy-end-day', 1, 31), 30)
    .option('--fy-end-month <m>', 'financial year end month', intArg('--fy-end-month', 1, 12), 6)
    .addOption(new Option('--plan <plan>', 'plan').choices([...PLANS]).default('Free'))
    .addOption(
      new Option('--subscription <status>', 'subscription status')
        .choices(['trialing', 'active', 'past_due', 'canceled', 'trial_ended'])
        .default('active'),
    )
    .option('--trial-ends <date>', 'trial end date YYYY-MM-DD', dateArg('--trial-ends'))
    .action(
      action(io, async (ctx, opts: Record<string, string | number | undefined>) => {
        const store = await ctx.store();
        return createOrg(store.db, {
          name: String(opts.name),
          timezone: String(opts.timezone),
          baseCurrency: String(opts.baseCurrency),
          fyEndDay: Number(opts.fyEndDay),
          fyEndMonth: Number(opts.fyEndMonth),
          plan: String(opts.plan),
          subscription: String(opts.subscription),
          trialEndsAt: opts.trialEnds ? new Date(`${opts.trialEnds}T00:00:00Z`) : null,
          now: ctx.config.clock.now(),
        });
      }),
    );

  program
    .command('user')
    .description('users')
    .command('create')
    .description('add a member to an organisation')
    .requiredOption('--org <id>', 'organisation id')
    .option('--name <name>', 'user name')
    .action(
      action(io, async (ctx, opts: { org: string; name?: string }) => {
        const store = await ctx.store();
        return createUser(store.db, { orgId: opts.org, name: opts.name, now: ctx.config.clock.now() });
      }),
    );

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('create a user key (--org [--user]) or a partner key (--partner); the key is shown once')
    .option('--org <id>', 'organisation the user key is bound to')
    .option('--user <id>', 'member whose credits the key spends (default: the owner)')
    .option('--partner <id>', 'partner practice (makes a partner key)')
    .requiredOption('--scopes <list>', 'comma-separated scopes, or all')
    .option('--name <name>', 'a label for the key')
    .action(
      action(io, async (ctx, opts: { org?: string; user?: string; partner?: string; scopes: string; name?: string }) => {
        let scopes;
        try {
          scopes = parseScopes(opts.scopes);
        } catch (e) {
          throw new OperatorError(`--scopes: ${(e as Error).message}`);
        }
        const store = await ctx.store();
        return createKey(store.db, {
          orgId: opts.org,
          userId: opts.user,
          partnerId: opts.partner,
          scopes,
          name: opts.name,
          now: ctx.config.clock.now(),
        });
      }),
    );
  key
    .command('revoke')
    .description('revoke a key at once')
    .requiredOption('--prefix <keyPrefix>', 'the key prefix')
    .action(
      action(io, async (ctx, opts: { prefix: string }) => {
        const store = await ctx.store();
        return revokeKey(store.db, opts.prefix, ctx.config.clock.now());
      }),
    );

  const partner = program.command('partner').description('partner (advisor) practices');
  partner
    .command('create')
    .requiredOption('--name <name>', 'practice name')
    .action(
      action(io, async (ctx, opts: { name: string }) => {
        const store = await ctx.store();
        return createPartner(store.db, { name: opts.name, now: ctx.config.clock.now() });
      }),
    );
  partner
    .command('link')
    .requiredOption('--partner <id>', 'partner id')
    .requiredOption('--org <id>', 'organisation id')
    .action(
      action(io, async (ctx, opts: { partner: string; org: string }) => {
        const store = await ctx.store();
        return linkPartner(store.db, { partnerId: opts.partner, orgId: opts.org, now: ctx.config.clock.now() });
      }),
    );

  program
    .command('sensitive')
    .description('flag a contact or an account sensitive (or not, with --off)')
    .requiredOption('--org <id>', 'organisation id')
    .option('--contact <xeroContactId>', 'contact to flag')
    .option('--account <codeOrBankAccountId>', 'account code, or bank account id')
    .option('--off', 'clear the flag')
    .action(
      action(io, async (ctx, opts: { org: string; contact?: string; account?: string; off?: boolean }) => {
        if (Boolean(opts.contact) === Boolean(opts.account)) throw new OperatorError('give exactly one of --contact or --account');
        const store = await ctx.store();
        const on = !opts.off;
        return opts.contact
          ? setContactSensitive(store.db, opts.org, opts.contact, on)
          : setAccountSensitive(store.db, opts.org, opts.account!, on);
      }),
    );

  extraCommands(program, io);
  forecastCommands(program, io);

  return program;
}

export async function main(argv: string[], io: Io = processIo): Promise<void> {
  // The embedded store held by a live server: the server runs the command (ops-socket.ts).
  const socket = io.sharedStore ? null : serverSocketFor(argv, io.env);
  if (socket) {
    try {
      const code = await forwardToServer(socket, argv, io);
      if (code !== 0) process.exitCode = code;
    } catch (err) {
      process.exitCode = 1;
      io.stderr(`error: ${describeError(err)}\n`);
    }
    return;
  }
  const program = buildProgram({ ...io, program: main });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode !== 0) process.exitCode = err.exitCode || 1;
      return;
    }
    process.exitCode = 1;
    io.stderr(`error: ${describeError(err)}\n`);
  }
}

function serverSocketFor(argv: string[], env: NodeJS.ProcessEnv): string | null {
  if (isServingCommand(argv) || argv.length === 0 || argv.some((a) => a === '--help' || a === '-h' || a === '-V' || a === '--version')) return null;
  let config: Config;
  try {
    config = loadConfig(env);
  } catch {
    return null; // the command reports the configuration error itself
  }
  if (config.DATABASE_URL) return null; // PostgreSQL is shared by any number of processes
  return liveServerSocket(config.CASHLINE_DATA_DIR);
}
