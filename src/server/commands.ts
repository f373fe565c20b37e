/** Subcommands of `cashline-server` that run the ledger and the service. */
import type { Command } from 'commander';
import { action, type CommandContext, intArg, type Io, KEEP_RUNNING, OperatorError } from './action.js';
import { closeOnSignals, startServer } from '../api/server.js';
import { createLogger } from '../log.js';
import { RedisLimiter } from '../store/redis-usage.js';
import { importDirectory } from '../ledger/import.js';
import { requireOrg } from '../store/tenancy.js';
import { progressPrinter } from './progress.js';
import { setupDemo } from './demo.js';
import { recomputeBaselines } from '../jobs/baselines.js';
import { recomputeForecast } from '../jobs/forecast.js';
import { generateDailyBrief } from '../jobs/brief.js';
import { startWorkerLoop } from '../jobs/worker.js';
import { syncLockKey, withSessionLock } from '../store/claims.js';
import { llmConfig } from '../config.js';
import { connectLedger, ledgerEndpoint, SyncError, syncOrganisation } from '../ledger/sync/sync.js';
import { ledgerAlertFor } from '../api/envelope.js';
import { ledgerConnection } from '../store/queries/connections.js';
import { startDemoLedger } from './demo-ledger.js';
import { startOpsSocket } from './ops-socket.js';

/** Starts the API on the context's store and keeps the process serving until SIGTERM/SIGINT. */
export async function serveApi(ctx: CommandContext, opts: { host?: string; port?: number } = {}) {
  const store = await ctx.store();
  const logger = createLogger(ctx.config);
  // Counters: Redis when REDIS_URL is set (shared by every instance), else the SQL store.
  const limiter = ctx.config.REDIS_URL ? new RedisLimiter(ctx.config.REDIS_URL) : undefined;
  const server = await startServer({
    store,
    config: ctx.config,
    logger,
    host: opts.host ?? ctx.config.HOST,
    port: opts.port ?? ctx.config.PORT,
    ...(limiter ? { limiter } : {}),
  });
  // On the embedded store, operations commands on this data folder run here (ops-socket.ts).
  const program = ctx.io.program;
  const opsSocket = program && store.kind === 'pglite' && ctx.config.CASHLINE_DATA_DIR !== 'memory://' ? await startOpsSocket(ctx.config.CASHLINE_DATA_DIR, store, program) : null;
  closeOnSignals(
    server,
    async () => {
      await opsSocket?.close();
      await limiter?.close();
      await store.close();
    },
    (msg) => logger.info(msg),
  );
  logger.info({ url: server.url, store: store.kind, counters: limiter ? 'redis' : 'sql', ...(opsSocket ? { opsSocket: opsSocket.path } : {}) }, 'listening');
  return server;
}

function portArg(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new OperatorError('--port must be a port number');
  return Number(v);
}

export function extraCommands(program: Command, io: Io): void {
  program
    .command('demo')
    .description('create the demo organisations (idempotent), print the base URL and three demo keys, then serve')
    .option('--host <host>', 'listen address (default HOST or 127.0.0.1)')
    .option('--port <port>', 'listen port (default PORT or 8787)', portArg)
    .option('--ledger', "serve the demo's books from the shipped Xero-compatible server and sync them from it (instead of importing files); the workers keep syncing")
    .action(
      action(io, async (ctx, opts: { host?: string; port?: number; ledger?: boolean }) => {
        const store = await ctx.store();
        const ledger = opts.ledger ? await startDemoLedger(ctx, store.db, progressPrinter(io, 'demo ledger')) : null;
        const demo = await setupDemo(store.db, ctx.config.clock.now(), progressPrinter(io, 'demo'), { llm: llmConfig(ctx.config) });
        // The organisation the ledger sync created in this run is new too.
        if (ledger?.created) for (const o of demo.orgs) if (o.id === ledger.synced.orgId) o.created = true;
        const server = await serveApi(ctx, opts);
        // The workers run in the demo process (nightly baselines and forecast, the daily brief,
        // and with --ledger the sync), so the demo stays fresh while it serves.
        await startWorkers(ctx, ledger?.config);
        if (ledger) for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void ledger.close());
        const banner = {
          baseUrl: server.url,
          store: store.kind,
          orgId: demo.orgId,
          orgs: demo.orgs,
          partnerId: demo.partnerId,
          keys: demo.keys,
          ...(ledger ? { ledger: { xeroApiUrl: ledger.apiUrl, synced: ledger.synced } } : {}),
        };
        io.stdout(`${JSON.stringify(banner)}\n`);
        io.stderr(
          [
            '',
            `Cashline demo serving at ${server.url} (store: ${store.kind})`,
            `  full scope with READ_SENSITIVE:     ${demo.keys.full}`,
            `  full scope without READ_SENSITIVE:  ${demo.keys.noSensitive}`,
            `  partner key (send X-Service-Org-Id): ${demo.keys.partner}`,
            `  try: curl -s -H "Authorization: Bearer ${demo.keys.full}" ${server.url}/api/agent/status`,
            `  API reference: ${server.url}/api/agent/docs`,
            `  workers running in this process: nightly baselines and forecast, the daily brief${ledger ? ', ledger sync' : ''}`,
            '',
          ].join('\n'),
        );
        return KEEP_RUNNING;
      }),
    );

  program
    .command('serve')
    .description('serve the agent API')
    .option('--no-workers', 'do not run the background workers in this process')
    .option('--host <host>', 'listen address (default HOST or 127.0.0.1)')
    .option('--port <port>', 'listen port (default PORT or 8787)', portArg)
    .action(
      action(io, async (ctx, opts: { host?: string; port?: number; workers?: boolean }) => {
        const server = await serveApi(ctx, opts);
        if (opts.workers !== false) await startWorkers(ctx);
        io.stdout(`${JSON.stringify({ baseUrl: server.url })}\n`);
        return KEEP_RUNNING;
      }),
    );

  program
    .command('import')
    .description('import Xero Accounting API response bodies from a folder (idempotent; all or nothing)')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--dir <dir>', 'folder of Organisation.json, Contacts.json, Invoices.json, …')
    .option('--accept-ledger-currency', "when Organisation.json names another base currency, make it the organisation's (otherwise the import fails)")
    .action(
      action(io, async (ctx, opts: { org: string; dir: string; acceptLedgerCurrency?: boolean }) => {
        const store = await ctx.store();
        await requireOrg(store.db, opts.org);
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
      }),
    );

  program
    .command('sync')
    .description("pull the organisation's ledger now: an incremental sync from its Xero connection (progress on stderr)")
    .requiredOption('--org <id>', 'organisation id')
    .option('--page-size <n>', 'records per page of the paged resources (1-1000, default 1000)', intArg('--page-size', 1, 1000))
    .action(
      action(io, async (ctx, opts: { org: string; pageSize?: number }) => {
        const store = await ctx.store();
        await requireOrg(store.db, opts.org);
        let endpoint;
        try {
          endpoint = ledgerEndpoint(ctx.config);
        } catch (err) {
          throw new OperatorError((err as Error).message);
        }
        const progress = progressPrinter(io, 'sync');
        const logger = createLogger(ctx.config);
        try {
          // The same claim as the workers' sync: never two syncs of one organisation at a time.
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
            io.stderr(`error: sync ${r.value.outcome}: ${r.value.error ?? ''}\n`);
          }
          return out;
        } catch (err) {
          if (err instanceof SyncError) throw new OperatorError(err.message);
          throw err;
        } finally {
          progress.done();
        }
      }),
    );

  const ledgerCmd = program.command('ledger').description('the organisation\'s ledger connection');
  ledgerCmd
    .command('connect')
    .description('store the ledger connection of an organisation after the OAuth consent (tenant id and refresh token); the next sync refreshes the access token')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--tenant-id <id>', 'Xero tenant (organisation) id')
    .requiredOption('--refresh-token <token>', 'the refresh token of the consent')
    .action(
      action(io, async (ctx, opts: { org: string; tenantId: string; refreshToken: string }) => {
        const store = await ctx.store();
        await requireOrg(store.db, opts.org);
        await connectLedger(store.db, { orgId: opts.org, tenantId: opts.tenantId, refreshToken: opts.refreshToken, now: ctx.config.clock.now() });
        return { orgId: opts.org, tenantId: opts.tenantId, connected: true };
      }),
    );
  ledgerCmd
    .command('status')
    .description("the connection's health: the ledgerAlert agents see (none when healthy), last successful sync, breaker")
    .requiredOption('--org <id>', 'organisation id')
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.store();
        await requireOrg(store.db, opts.org);
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

  program
    .command('worker')
    .description('run the background workers (ledger sync cadence, nightly baselines and forecast, the 06:00 UTC daily brief) without serving the API')
    .action(
      action(io, async (ctx) => {
        await startWorkers(ctx);
        io.stdout(`${JSON.stringify({ worker: 'running' })}\n`);
        return KEEP_RUNNING;
      }),
    );

  program
    .command('recompute')
    .description("compute an organisation's derived data now: baselines (cadence, delays, LTV, ABC, contacts summary, cohorts), the forecast snapshots and notes, and today's brief if the UTC day has none")
    .requiredOption('--org <id>', 'organisation id')
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.store();
        await requireOrg(store.db, opts.org);
        const now = ctx.config.clock.now();
        const baselines = await recomputeBaselines(store.db, opts.org, now);
        const forecast = await recomputeForecast(store.db, opts.org, now);
        // Today's brief, when the UTC day has none yet (a day never gets two).
        const brief = await generateDailyBrief(store.db, opts.org, now, { llm: llmConfig(ctx.config) });
        return { baselines, forecast, brief };
      }),
    );
}

/**
 * The background workers of this process (src/jobs/worker.ts): ledger sync on
 * its cadence, the nightly baselines and forecast snapshot, the daily brief;
 * stopped on SIGTERM/SIGINT. `ledger` overrides the XERO_* settings (demo --ledger).
 */
async function startWorkers(ctx: CommandContext, ledger?: import('../ledger/sync/sync.js').LedgerEndpoint): Promise<void> {
  const store = await ctx.store();
  const logger = createLogger(ctx.config);
  let endpoint = ledger ?? null;
  if (!endpoint) {
    try {
      endpoint = ledgerEndpoint(ctx.config);
    } catch {
      logger.info('ledger sync not configured (XERO_CLIENT_ID/XERO_CLIENT_SECRET unset): the workers do not sync');
    }
  }
  const loop = startWorkerLoop(
    {
      db: store.db,
      clock: ctx.config.clock,
      ledger: endpoint,
      llm: llmConfig(ctx.config),
      ...(store.pool ? { pool: store.pool } : {}),
      syncEveryMs: ctx.config.CASHLINE_SYNC_INTERVAL_MINUTES * 60_000,
      log: (level, msg, extra) => logger[level](extra ?? {}, msg),
    },
    {
      intervalMs: ctx.config.CASHLINE_WORKER_TICK_SECONDS * 1000,
      onTick: (r) => {
        if (r.syncs.length || r.baselines.ran.length || r.forecasts.length || r.briefs.length || r.errors.length) {
          logger.info({ syncs: r.syncs, baselines: r.baselines.ran.map((x) => x.orgId), forecasts: r.forecasts, briefs: r.briefs, errors: r.errors }, 'worker tick');
        }
      },
    },
  );
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void loop.stop());
}
