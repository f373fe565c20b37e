/** Subcommands of `cashline-server` that manage tenancy: organisations, users, keys, partners, sensitive flags. */
import { type Command, Option } from 'commander';
import { createKey, createOrg, createPartner, createUser, linkPartner, revokeKey, setAccountSensitive, setContactSensitive } from '../store/tenancy.js';
import { parseScopes } from '../domain/scopes.js';
import { PLANS } from '../domain/plans.js';
import { action, dateArg, intArg, type Io, OperatorError } from './action.js';

export function tenancyCommands(program: Command, io: Io): void {
  orgCommands(program, io);
  userCommands(program, io);
  keyCommands(program, io);
  partnerCommands(program, io);
  sensitiveCommand(program, io);
}

/** `org create`: an organisation with its owner and billing account. */
function orgCommands(program: Command, io: Io): void {
  program
    .command('org')
    .description('organisations')
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
}

/** `user create`: a member of an organisation. */
function userCommands(program: Command, io: Io): void {
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
}

/** `key create` (a user or a partner key, shown once) and `key revoke`. */
function keyCommands(program: Command, io: Io): void {
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
}

/** `partner create` and `partner link`: advisor practices and the organisations they serve. */
function partnerCommands(program: Command, io: Io): void {
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
}

/** `sensitive`: flag a contact or an account (redacted for keys without READ_SENSITIVE). */
function sensitiveCommand(program: Command, io: Io): void {
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
}
