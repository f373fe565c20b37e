/** Subcommands of `cashline-server` that run the ledger and the service. */
import type { Command } from 'commander';
import { action, type CommandContext, type Io, KEEP_RUNNING, OperatorError } from './cli.js';
import { closeOnSignals, startServer } from '../api/server.js';
import { createLogger } from '../log.js';
import { RedisLimiter } from '../store/redis-usage.js';
import { importDirectory } from '../ledger/import.js';
import { requireOrg } from '../store/tenancy.js';
import { progressPrinter } from './progress.js';
import { setupDemo } from './demo.js';
import { recomputeBaselines, startBaselineWorker } from '../jobs/baselines.js';
import { recomputeForecast } from '../jobs/forecast.js';

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
  closeOnSignals(
    server,
    async () => {
      await limiter?.close();
      await store.close();
    },
    (msg) => logger.info(msg),
  );
  logger.info({ url: server.url, store: store.kind, counters: limiter ? 'redis' : 'sql' }, 'listening');
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
    .action(
      action(io, async (ctx, opts: { host?: string; port?: number }) => {
        const store = await ctx.store();
        const demo = await setupDemo(store.db, ctx.config.clock.now(), progressPrinter(io, 'demo'));
        const server = await serveApi(ctx, opts);
        const banner = { baseUrl: server.url, store: store.kind, orgId: demo.orgId, orgs: demo.orgs, partnerId: demo.partnerId, keys: demo.keys };
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
        if (opts.workers !== false) startWorkers(ctx);
        io.stdout(`${JSON.stringify({ baseUrl: server.url })}\n`);
        return KEEP_RUNNING;
      }),
    );

  program
    .command('import')
    .description('import Xero Accounting API response bodies from a folder (idempotent; all or nothing)')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--dir <dir>', 'folder of Organisation.json, Contacts.json, Invoices.json, …')
    .action(
      action(io, async (ctx, opts: { org: string; dir: string }) => {
        const store = await ctx.store();
        await requireOrg(store.db, opts.org);
        const progress = progressPrinter(io, 'import');
        try {
          const summary = await importDirectory(store.db, opts.org, opts.dir, {
            now: ctx.config.clock.now(),
            onProgress: (e) => progress(e.resource, e.done, e.total),
          });
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
    .command('worker')
    .description('run the background workers (the nightly baselines) without serving the API')
    .action(
      action(io, async (ctx) => {
        await startWorkers(ctx);
        io.stdout(`${JSON.stringify({ worker: 'running' })}\n`);
        return KEEP_RUNNING;
      }),
    );

  program
    .command('recompute')
    .description("compute an organisation's derived data now: baselines (cadence, delays, LTV, ABC, contacts summary, cohorts), then the forecast snapshots and notes")
    .requiredOption('--org <id>', 'organisation id')
    .action(
      action(io, async (ctx, opts: { org: string }) => {
        const store = await ctx.store();
        await requireOrg(store.db, opts.org);
        const now = ctx.config.clock.now();
        const baselines = await recomputeBaselines(store.db, opts.org, now);
        const forecast = await recomputeForecast(store.db, opts.org, now);
        return { baselines, forecast };
      }),
    );
}

/** The background workers of this process: the nightly baselines (src/jobs/baselines.ts), stopped on SIGTERM/SIGINT. */
async function startWorkers(ctx: CommandContext): Promise<void> {
  const store = await ctx.store();
  const logger = createLogger(ctx.config);
  const worker = startBaselineWorker(store.db, ctx.config.clock, {
    onTick: (r) => {
      if (r.ran.length || r.failed.length) logger.info({ ran: r.ran, failed: r.failed }, 'nightly baselines');
    },
    onError: (err) => logger.error({ err }, 'nightly baselines tick failed'),
  });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void worker.stop());
}
