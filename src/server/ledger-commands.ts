/** Subcommands of `cashline-server` that bring the books in (import, sync, the ledger connection) and recompute what derives from them. */
import type { Command } from 'commander';
import { action, type CommandContext, intArg, type Io, OperatorError, requireKeyring, sealTokensAtStart, stderrLog } from './action.js';
import { createLogger } from '../log.js';
import { importDirectory } from '../ledger/import.js';
import { progressPrinter } from './progress.js';
import { recomputeBaselines } from '../jobs/baselines.js';
import { recomputeForecast } from '../jobs/forecast.js';
import { recalibrate } from '../jobs/calibration.js';
import { generateDailyBrief } from '../jobs/brief.js';
import { syncLockKey, withLease } from '../store/claims.js';
import { llmConfig, publicUrl } from '../config.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline/promises';
import { connectByConsent, connectLink, disconnectLedger } from '../ledger/consent.js';
import { ConsentError, oauthEndpoint, pickTenant, type TenantConnection } from '../ledger/oauth.js';
import { DEFAULT_LOOPBACK_PORT } from '../ledger/loopback.js';
import { SealError } from '../ledger/seal.js';
import { connectLedger, ledgerEndpoint, SyncError, syncOrganisation } from '../ledger/sync/sync.js';
import { ledgerAlertFor } from '../api/envelope.js';
import { ledgerConnection } from '../store/queries/connections.js';

export function ledgerCommands(program: Command, io: Io): void {
  importCommand(program, io);
  syncCommand(program, io);
  const ledger = program.command('ledger').description("the organisation's ledger connection");
  connectCommand(ledger, io);
  disconnectCommand(ledger, io);
  linkCommand(ledger, io);
  statusCommand(ledger, io);
}

/** `import`: Xero Accounting API response bodies from a folder (idempotent; all or nothing). */
function importCommand(program: Command, io: Io): void {
  program
    .command('import')
    .description('import Xero Accounting API response bodies from a folder (idempotent; all or nothing)')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--dir <dir>', 'folder of Organisation.json, Contacts.json, Invoices.json, …')
    .option('--accept-ledger-currency', "when Organisation.json names another base currency, make it the organisation's (otherwise the import fails)")
    .action(action(io, runImport));
}

async function runImport(ctx: CommandContext, opts: { org: string; dir: string; acceptLedgerCurrency?: boolean }) {
  const store = await ctx.orgStore(opts.org);
  const io = ctx.io;
  const progress = progressPrinter(io, 'import');
  try {
    const summary = await importDirectory(store.db, opts.org, opts.dir, {
      now: ctx.config.clock.now(),
      onProgress: (e) => progress(e.resource, e.done, e.total),
      acceptLedgerCurrency: Boolean(opts.acceptLedgerCurrency),
    });
    progress.done();
    // What was read and what was not, for a person; the JSON on stdout says the same.
    for (const file of summary.files) {
      const resource = file.replace(/\.json$/, '') as keyof typeof summary.counts;
      io.stderr(`import: read ${file}: ${(summary.counts[resource] ?? 0).toLocaleString('en')} records\n`);
    }
    for (const f of summary.skipped) io.stderr(`import: skipped ${f.file}: ${f.reason}\n`);
    if (summary.baseCurrencyChanged) {
      io.stderr(`import: base currency changed from ${summary.baseCurrencyChanged.from} to ${summary.baseCurrencyChanged.to} (--accept-ledger-currency)\n`);
    }
    return summary;
  } catch (err) {
    if (err instanceof Error && err.name === 'ImportError') throw new OperatorError(err.message);
    throw err;
  } finally {
    progress.done();
  }
}

/** `sync`: an incremental sync of the organisation's Xero connection now (progress on stderr). */
function syncCommand(program: Command, io: Io): void {
  program
    .command('sync')
    .description("pull the organisation's ledger now: an incremental sync from its Xero connection (progress on stderr)")
    .requiredOption('--org <id>', 'organisation id')
    .option('--page-size <n>', 'records per page of the paged resources (1-1000, default 1000)', intArg('--page-size', 1, 1000))
    .action(action(io, runSync));
}

async function runSync(ctx: CommandContext, opts: { org: string; pageSize?: number }) {
  const store = await ctx.orgStore(opts.org);
  let endpoint;
  try {
    endpoint = ledgerEndpoint(ctx.config);
  } catch (err) {
    throw new OperatorError((err as Error).message);
  }
  // Without the key the run could only fail on its first token: say so before touching the connection.
  requireKeyring(ctx);
  await sealTokensAtStart(ctx, store, stderrLog(ctx.io));
  const progress = progressPrinter(ctx.io, 'sync');
  const logger = createLogger(ctx.config);
  try {
    // The workers' lease too: never two syncs of one organisation at a time (free again at once if this process dies,
    // for a process of this host; within its lease, 30 s, for one elsewhere).
    const r = await withLease(store.db, syncLockKey(opts.org), (held) =>
      syncOrganisation(store.db, opts.org, {
        ...endpoint,
        heartbeat: async () => held(),
        now: () => ctx.config.clock.now(),
        force: true,
        ...(opts.pageSize ? { pageSize: opts.pageSize } : {}),
        onProgress: (resource, done, total) => progress(resource, done, total),
        log: (level, msg, extra) => logger[level](extra ?? {}, msg),
      }),
    );
    if (!r) throw new OperatorError(`a sync of organisation ${opts.org} is already running in another process (one that died on another host holds its lease for at most 30 s)`);
    const alert = await ledgerAlertFor(store.db, opts.org, ctx.config.clock.now(), publicUrl(ctx.config));
    const out = { ...r.value, ...(alert ? { ledgerAlert: alert } : {}) };
    if (r.value.outcome !== 'ok') {
      process.exitCode = 1;
      ctx.io.stderr(`error: sync ${r.value.outcome}: ${r.value.error ?? ''}\n`);
    }
    return out;
  } catch (err) {
    if (err instanceof SyncError) throw new OperatorError(err.message);
    throw err;
  } finally {
    progress.done();
  }
}

/** A consent's refusal (and a key that cannot seal) is the operator's error (exit 1, its message); anything else propagates. */
function asOperatorError(err: unknown): never {
  if (err instanceof ConsentError || err instanceof SealError) throw new OperatorError(err.message);
  throw err;
}

/** The consent's endpoint and the keyring from the configuration, or an operator error naming what is missing. */
function consentSetup(ctx: CommandContext) {
  try {
    return { ep: oauthEndpoint(ctx.config), keyring: requireKeyring(ctx) };
  } catch (err) {
    return asOperatorError(err);
  }
}

/** Runs a consent step, its refusals as operator errors. */
async function consentStep<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    return asOperatorError(err);
  }
}

/**
 * `ledger connect`: the OAuth consent in the browser (authorisation code with
 * PKCE, answer on a loopback address), the tenant picked, the tokens sealed.
 * With --tenant-id and --refresh-token: stores a connection made elsewhere.
 */
function connectCommand(ledger: Command, io: Io): void {
  ledger
    .command('connect')
    .description("connect the organisation's Xero: opens Xero's consent page in the browser, receives the answer on a loopback address, stores the connection (tokens sealed); prints JSON")
    .requiredOption('--org <id>', 'organisation id')
    .option('--tenant <name-or-id>', 'the Xero organisation to connect when the consent authorises several (otherwise asked, or an error listing them)')
    .option('--no-browser', 'do not open a browser: print the consent address alone on one line of stderr')
    .option('--port <n>', `loopback port of the redirect address http://localhost:PORT/callback, as registered at Xero (default ${DEFAULT_LOOPBACK_PORT}; 0: any free port)`, intArg('--port', 0, 65535))
    .option('--timeout <seconds>', 'how long to wait for the consent (default 300)', intArg('--timeout', 5, 3600))
    .option('--tenant-id <id>', 'without consent: the Xero tenant id of a connection made elsewhere (with --refresh-token)')
    .option('--refresh-token <token>', 'without consent: the refresh token of a connection made elsewhere (with --tenant-id)')
    .action(
      action(io, async (ctx, opts: { org: string; tenant?: string; browser: boolean; port?: number; timeout?: number; tenantId?: string; refreshToken?: string }) => {
        const store = await ctx.orgStore(opts.org);
        if (opts.refreshToken || opts.tenantId) {
          if (!opts.refreshToken || !opts.tenantId) throw new OperatorError('--tenant-id and --refresh-token go together (or neither, for the consent in the browser)');
          const keyring = requireKeyring(ctx);
          await sealTokensAtStart(ctx, store, stderrLog(ctx.io));
          await consentStep(() => connectLedger(store.db, keyring, { orgId: opts.org, tenantId: opts.tenantId!, refreshToken: opts.refreshToken!, now: ctx.config.clock.now() }));
          return { orgId: opts.org, tenantId: opts.tenantId, connected: true };
        }
        const { ep, keyring } = consentSetup(ctx);
        await sealTokensAtStart(ctx, store, stderrLog(ctx.io));
        const interactive = !io.sharedStore && process.stdin.isTTY === true && process.stderr.isTTY === true;
        return consentStep(() =>
          connectByConsent(store.db, ep, keyring, {
            orgId: opts.org,
            tenant: opts.tenant,
            port: opts.port ?? DEFAULT_LOOPBACK_PORT,
            timeoutMs: (opts.timeout ?? 300) * 1000,
            now: () => ctx.config.clock.now(),
            announce: (url) => {
              if (!opts.browser) return io.stderr(`${url}\n`);
              io.stderr(`ledger connect: opening Xero's consent page in your browser; if it does not open, visit:\n${url}\n`);
              openBrowser(url);
            },
            ...(interactive ? { ask: (tenants: TenantConnection[]) => askTenant(io, tenants) } : {}),
          }),
        );
      }),
    );
}

/** Opens the address in the user's browser (best effort: the address is printed as well). */
function openBrowser(url: string): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    /* the printed address is the fallback */
  }
}

/** Asks on the terminal which of several authorised tenants to connect. */
async function askTenant(io: Io, tenants: TenantConnection[]): Promise<TenantConnection> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    io.stderr('The consent authorised several Xero organisations:\n');
    tenants.forEach((t, i) => io.stderr(`  ${i + 1}. ${t.tenantName} (${t.tenantId})\n`));
    for (;;) {
      const a = (await rl.question(`Which one should Cashline read? [1-${tenants.length}] `)).trim();
      const n = Number(a);
      if (Number.isInteger(n) && n >= 1 && n <= tenants.length) return tenants[n - 1]!;
      const byName = pickTenantOrNull(tenants, a);
      if (byName) return byName;
    }
  } finally {
    rl.close();
  }
}

function pickTenantOrNull(tenants: TenantConnection[], wanted: string): TenantConnection | null {
  try {
    return wanted ? pickTenant(tenants, wanted) : null;
  } catch {
    return null;
  }
}

/** `ledger disconnect`: removes the connection at Xero, revokes the refresh token, deletes the stored tokens; the books stay. */
function disconnectCommand(ledger: Command, io: Io): void {
  ledger
    .command('disconnect')
    .description("disconnect the organisation's Xero: removes the tenant connection at Xero, revokes the refresh token and deletes the stored tokens; the stored books stay, marked no longer updating")
    .requiredOption('--org <id>', 'organisation id')
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.orgStore(opts.org);
        const { ep, keyring } = consentSetup(ctx);
        const r = await consentStep(() => disconnectLedger(store.db, ep, keyring, opts.org, ctx.config.clock.now()));
        for (const w of r.warnings) io.stderr(`ledger disconnect: ${w}\n`);
        return r;
      }),
    );
}

/** `ledger link`: a short-lived signed link to the web consent (for the organisation's owner). */
function linkCommand(ledger: Command, io: Io): void {
  ledger
    .command('link')
    .description("print a short-lived signed link to connect the organisation's Xero on the web (GET /connect/xero at CASHLINE_PUBLIC_URL)")
    .requiredOption('--org <id>', 'organisation id')
    .option('--tenant <name-or-id>', 'the Xero organisation to connect if the consent authorises several')
    .option('--minutes <n>', 'how long the link stays valid (default 60)', intArg('--minutes', 1, 7 * 24 * 60))
    .action(
      action(io, async (ctx, opts: { org: string; tenant?: string; minutes?: number }) => {
        await ctx.orgStore(opts.org);
        const keyring = requireKeyring(ctx);
        const link = await consentStep(async () => connectLink(keyring, publicUrl(ctx.config), opts.org, ctx.config.clock.now(), (opts.minutes ?? 60) * 60_000, opts.tenant));
        return { orgId: opts.org, ...link };
      }),
    );
}

/** `ledger status`: the connection's health as agents see it. */
function statusCommand(ledger: Command, io: Io): void {
  ledger
    .command('status')
    .description("the connection's health: the ledgerAlert agents see (none when healthy), last successful sync, breaker")
    .requiredOption('--org <id>', 'organisation id')
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.orgStore(opts.org);
        const c = await ledgerConnection(store.db, opts.org);
        const alert = await ledgerAlertFor(store.db, opts.org, ctx.config.clock.now(), publicUrl(ctx.config));
        return {
          orgId: opts.org,
          connected: Boolean(c),
          ...(c
            ? {
                tenantId: c.tenantId,
                tenantName: c.tenantName,
                connectionId: c.connectionId,
                scopes: c.scopes ? c.scopes.split(' ') : null,
                unavailable: c.unavailable,
                disconnectedAt: c.disconnectedAt?.toISOString() ?? null,
                syncRequestedAt: c.syncRequestedAt?.toISOString() ?? null,
                tokenState: c.tokenState,
                breakerState: c.breakerState,
                consecutiveFailures: c.consecutiveFailures,
                lastSuccessfulSync: c.lastSuccessfulSync?.toISOString() ?? null,
                lastAttemptAt: c.lastAttemptAt?.toISOString() ?? null,
                lastError: c.lastError,
              }
            : {}),
          ledgerAlert: alert ?? null,
        };
      }),
    );
}

/** `recompute`: baselines, the forecast snapshots and notes, and today's brief if the UTC day has none. */
export function recomputeCommand(program: Command, io: Io): void {
  program
    .command('recompute')
    .description("compute an organisation's derived data now: baselines (cadence, delays, LTV, ABC, contacts summary, cohorts), the calibration of the forecast bands, the forecast snapshots and notes, and today's brief if the UTC day has none")
    .requiredOption('--org <id>', 'organisation id')
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.orgStore(opts.org);
        const now = ctx.config.clock.now();
        const baselines = await recomputeBaselines(store.db, opts.org, now);
        const progress = progressPrinter(ctx.io, 'calibration');
        const calibration = await recalibrate(store.db, opts.org, now, (d, t) => progress('cut-offs', d, t));
        progress.done();
        const forecast = await recomputeForecast(store.db, opts.org, now);
        // Today's brief, when the UTC day has none yet (a day never gets two).
        const brief = await generateDailyBrief(store.db, opts.org, now, { llm: llmConfig(ctx.config) });
        return { baselines, calibration, forecast, brief };
      }),
    );
}
