/** Subcommands of `cashline-server` that keep running: demo, serve and worker (the API and the background workers). */
import type { Command } from 'commander';
import { action, type CommandContext, type Io, KEEP_RUNNING, OperatorError, sealTokensAtStart } from './action.js';
import { closeOnSignals, startServer } from '../api/server.js';
import { RedisLimiter } from '../store/redis-usage.js';
import { progressPrinter } from './progress.js';
import { setupDemo } from './demo.js';
import { startWorkerLoop } from '../jobs/worker.js';
import { llmConfig } from '../config.js';
import { SealError } from '../ledger/seal.js';
import { type LedgerEndpoint, ledgerEndpoint, type SyncResult } from '../ledger/sync/sync.js';
import type { OAuthEndpoint } from '../ledger/oauth.js';
import { createLogger, type Logger } from '../log.js';
import { consentFlow, webhookSyncs } from './ledger-web.js';
import { startDemoLedger } from './demo-ledger.js';
import { startOpsSocket } from './ops-socket.js';

/**
 * The XERO_* ledger endpoint this process can sync with, or null, said once
 * in the log with why: no XERO_CLIENT_ID, an unreadable key file, or no
 * CASHLINE_ENCRYPTION_KEY with DATABASE_URL (every run would fail on its
 * first token and trip the breakers: the configuration is the thing to fix).
 * Computed once per process and shared by the API's webhook syncs and the workers.
 */
function configuredLedger(ctx: CommandContext, logger: Logger): LedgerEndpoint | null {
  let endpoint: LedgerEndpoint;
  try {
    endpoint = ledgerEndpoint(ctx.config);
  } catch (err) {
    if (err instanceof SealError) logger.warn(`ledger sync not configured: ${err.message}: this process does not sync`);
    else logger.info('ledger sync not configured (XERO_CLIENT_ID unset): this process does not sync');
    return null;
  }
  if (!endpoint.keyring.hasKey) {
    logger.warn('ledger sync not configured: CASHLINE_ENCRYPTION_KEY is unset with DATABASE_URL (the ledger tokens are sealed with it): this process does not sync');
    return null;
  }
  return endpoint;
}

export interface ServeOptions {
  host?: string;
  port?: number;
  /** The ledger to sync from (demo --ledger's server); default the XERO_* configuration. */
  ledger?: LedgerEndpoint | null;
  /** The web consent's Xero (demo --ledger's server); default the XERO_* configuration. */
  oauth?: OAuthEndpoint;
  /** After each sync a webhook asked for (the demo's banner). */
  onWebhookSync?: (r: SyncResult) => void;
}

/** Starts the API on the context's store and keeps the process serving until SIGTERM/SIGINT. */
export async function serveApi(ctx: CommandContext, opts: ServeOptions = {}) {
  const store = await ctx.store();
  const logger = createLogger(ctx.config);
  // Plain tokens of rows from before sealing are sealed now (without a key: a warning; the API touches no token).
  await sealTokensAtStart(ctx, store, (level, msg) => logger[level](msg));
  // Counters: Redis when REDIS_URL is set (shared by every instance), else the SQL store.
  const limiter = ctx.config.REDIS_URL ? new RedisLimiter(ctx.config.REDIS_URL) : undefined;
  // The ledger's web side: the consent pages, and the prompt sync of what a Xero webhook names.
  const ledger = opts.ledger === undefined ? configuredLedger(ctx, logger) : opts.ledger;
  const trigger = webhookSyncs(ctx.config, store, logger, ledger, opts.onWebhookSync);
  const consent = consentFlow(ctx.config, store, logger, opts.oauth);
  const server = await startServer({
    store,
    config: ctx.config,
    logger,
    host: opts.host ?? ctx.config.HOST,
    port: opts.port ?? ctx.config.PORT,
    ...(limiter ? { limiter } : {}),
    ...(consent ? { consent } : {}),
    ...(trigger ? { onLedgerChanged: (orgIds: string[]) => trigger.request(orgIds) } : {}),
  });
  // On the embedded store, operations commands on this data folder run here (ops-socket.ts).
  const program = ctx.io.program;
  const opsSocket = program && store.kind === 'pglite' && ctx.config.CASHLINE_DATA_DIR !== 'memory://' ? await startOpsSocket(ctx.config.CASHLINE_DATA_DIR, store, program) : null;
  closeOnSignals(
    server,
    async () => {
      await trigger?.close();
      await opsSocket?.close();
      await limiter?.close();
      await store.close();
    },
    (msg) => logger.info(msg),
  );
  // The read replica's changes of state: where the reads that tolerate staleness go, and why (docs/scaling.md "Read replica").
  store.replica?.onChange((replica) =>
    logger[replica.readsGoTo === 'replica' ? 'info' : 'warn']({ replica }, replica.readsGoTo === 'replica' ? 'read replica in use' : `reads on the primary: read replica ${replica.state}`),
  );
  logger.info({ url: server.url, store: store.kind, counters: limiter ? 'redis' : 'sql', ...(store.replica ? { replica: store.replica.status() } : {}), ...(opsSocket ? { opsSocket: opsSocket.path } : {}) }, 'listening');
  return server;
}

function portArg(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new OperatorError('--port must be a port number');
  return Number(v);
}

export function serveCommands(program: Command, io: Io): void {
  demoCommand(program, io);
  serveCommand(program, io);
}

/** `demo`: the demo organisations (idempotent), their keys, then serve with the workers. */
function demoCommand(program: Command, io: Io): void {
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
        // The organisation the ledger sync created in this run is new too.
        const created = ledger?.created ? [ledger.synced.orgId] : [];
        const demo = await setupDemo(store.db, ctx.config.clock.now(), progressPrinter(io, 'demo'), { llm: llmConfig(ctx.config), created });
        // With --ledger the API also takes the demo server's webhooks (signed with its key) and its web consent.
        const waiting = new Map<string, (r: SyncResult) => void>();
        const served = ledger ? { ...ctx, config: { ...ctx.config, XERO_WEBHOOK_KEY: ledger.webhookKey } } : ctx;
        // The ledger this process syncs (webhooks and workers alike): the demo's server, or the XERO_* configuration.
        const endpoint = ledger ? ledger.config : configuredLedger(ctx, createLogger(ctx.config));
        const server = await serveApi(served, {
          ...(opts.host ? { host: opts.host } : {}),
          ...(opts.port !== undefined ? { port: opts.port } : {}),
          ledger: endpoint,
          ...(ledger ? { oauth: ledger.oauth, onWebhookSync: (r: SyncResult) => waiting.get(r.orgId)?.(r) } : {}),
        });
        // A change made on the ledger side, arriving by webhook.
        let webhook: Awaited<ReturnType<NonNullable<typeof ledger>['showWebhook']>> | null = null;
        if (ledger) {
          try {
            webhook = await ledger.showWebhook(server.url, (orgId) => new Promise((resolve) => waiting.set(orgId, resolve)));
          } catch (err) {
            const cause = (err as Error & { cause?: Error }).cause;
            io.stderr(`demo ledger: ${(err as Error).message}${cause ? ` (${cause.message})` : ''}\n`);
          }
        }
        // The workers run in the demo process (nightly baselines and forecast, the daily brief,
        // and with --ledger the sync), so the demo stays fresh while it serves. They start after
        // the webhook's show: on the embedded store their first recompute would hold the store meanwhile.
        await startWorkers(ctx, endpoint);
        if (ledger) for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void ledger.close());
        const banner = {
          baseUrl: server.url,
          store: store.kind,
          orgId: demo.orgId,
          orgs: demo.orgs,
          partnerId: demo.partnerId,
          keys: demo.keys,
          ...(ledger ? { ledger: { xeroApiUrl: ledger.apiUrl, connected: ledger.connected, synced: ledger.synced, webhook } } : {}),
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
            ...(ledger && webhook
              ? [
                  `  ledger: ${ledger.connected.tenantName} connected through consent (${ledger.connected.scopes.length} scopes), synced in ${ledger.synced.durationMs} ms`,
                  `  webhook: invoice ${webhook.invoiceNumber} paid in the ledger (${webhook.paid}) arrived and synced in ${webhook.arrivedInMs} ms`,
                ]
              : []),
            '',
          ].join('\n'),
        );
        return KEEP_RUNNING;
      }, { replica: true }),
    );
}

/** `serve`: the agent API, with the workers unless --no-workers. */
function serveCommand(program: Command, io: Io): void {
  program
    .command('serve')
    .description('serve the agent API')
    .option('--no-workers', 'do not run the background workers in this process')
    .option('--host <host>', 'listen address (default HOST or 127.0.0.1)')
    .option('--port <port>', 'listen port (default PORT or 8787)', portArg)
    .action(
      action(io, async (ctx, opts: { host?: string; port?: number; workers?: boolean }) => {
        const ledger = configuredLedger(ctx, createLogger(ctx.config));
        const server = await serveApi(ctx, { ...opts, ledger });
        if (opts.workers !== false) await startWorkers(ctx, ledger);
        io.stdout(`${JSON.stringify({ baseUrl: server.url })}\n`);
        return KEEP_RUNNING;
      }, { replica: true }),
    );
}

/** `worker`: the background workers without the API. */
export function workerCommand(program: Command, io: Io): void {
  program
    .command('worker')
    .description('run the background workers (ledger sync cadence, nightly baselines and forecast, the 06:00 UTC daily brief) without serving the API')
    .action(
      action(io, async (ctx) => {
        const logger = createLogger(ctx.config);
        await sealTokensAtStart(ctx, await ctx.store(), (level, msg) => logger[level](msg));
        await startWorkers(ctx);
        io.stdout(`${JSON.stringify({ worker: 'running' })}\n`);
        return KEEP_RUNNING;
      }),
    );
}

/**
 * The background workers of this process (src/jobs/worker.ts): ledger sync on
 * its cadence, the nightly baselines and forecast snapshot, the daily brief;
 * stopped on SIGTERM/SIGINT. `ledger` overrides the XERO_* settings (demo --ledger).
 */
async function startWorkers(ctx: CommandContext, ledger?: LedgerEndpoint | null): Promise<void> {
  const store = await ctx.store();
  const logger = createLogger(ctx.config);
  const endpoint = ledger === undefined ? configuredLedger(ctx, logger) : ledger;
  const loop = startWorkerLoop(
    {
      db: store.db,
      clock: ctx.config.clock,
      ledger: endpoint,
      llm: llmConfig(ctx.config),
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
