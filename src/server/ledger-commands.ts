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
import { syncLockKey, withSessionLock } from '../store/claims.js';
import { llmConfig } from '../config.js';
import { connectLedger, ledgerEndpoint, SyncError, syncOrganisation } from '../ledger/sync/sync.js';
import { ledgerAlertFor } from '../api/envelope.js';
import { ledgerConnection } from '../store/queries/connections.js';

export function ledgerCommands(program: Command, io: Io): void {
  importCommand(program, io);
  syncCommand(program, io);
  const ledger = program.command('ledger').description("the organisation's ledger connection");
  connectCommand(ledger, io);
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
    // The workers' lock too: never two syncs of one organisation at a time (released by the server if this process dies).
    const r = await withSessionLock(store.pool, syncLockKey(opts.org), () =>
      syncOrganisation(store.db, opts.org, {
        ...endpoint,
        now: () => ctx.config.clock.now(),
        force: true,
        ...(opts.pageSize ? { pageSize: opts.pageSize } : {}),
        onProgress: (resource, done, total) => progress(resource, done, total),
        log: (level, msg, extra) => logger[level](extra ?? {}, msg),
      }),
    );
    if (!r) throw new OperatorError(`a sync of organisation ${opts.org} is already running in another process`);
    const alert = await ledgerAlertFor(store.db, opts.org, ctx.config.clock.now());
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

/** `ledger connect`: store the connection after the OAuth consent. */
function connectCommand(ledger: Command, io: Io): void {
  ledger
    .command('connect')
    .description('store the ledger connection of an organisation after the OAuth consent (tenant id and refresh token, sealed with CASHLINE_ENCRYPTION_KEY); the next sync refreshes the access token')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--tenant-id <id>', 'Xero tenant (organisation) id')
    .requiredOption('--refresh-token <token>', 'the refresh token of the consent')
    .action(
      action(io, async (ctx, opts: { org: string; tenantId: string; refreshToken: string }) => {
        const store = await ctx.orgStore(opts.org);
        const keyring = requireKeyring(ctx);
        await sealTokensAtStart(ctx, store, stderrLog(ctx.io));
        await connectLedger(store.db, keyring, { orgId: opts.org, tenantId: opts.tenantId, refreshToken: opts.refreshToken, now: ctx.config.clock.now() });
        return { orgId: opts.org, tenantId: opts.tenantId, connected: true };
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
        const alert = await ledgerAlertFor(store.db, opts.org, ctx.config.clock.now());
        return {
          orgId: opts.org,
          connected: Boolean(c),
          ...(c
            ? {
                tenantId: c.tenantId,
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
