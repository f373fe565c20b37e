/**
 * `cashline-server xero-server`: the shipped Xero-compatible server
 * (src/xero-server/) on its own, serving the demo generator's main business,
 * so Cashline's real Xero connection (consent, token refresh, webhooks) can be
 * run end to end without the internet. It prints `export NAME=value` lines on
 * stdout (eval them in a shell) and how to use them on stderr, then serves
 * until SIGINT/SIGTERM. docs/sync.md.
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { generateDemo } from '../demo/generate.js';
import { datasetFromFiles, startXeroServer } from '../xero-server/server.js';
import { action, intArg, type Io, KEEP_RUNNING } from './action.js';
import { DEMO_ORGS } from './demo.js';

interface XeroServerOpts {
  host: string;
  port: number;
  autoConsent?: boolean;
  webhookUrl?: string;
  webhookKey?: string;
  seed?: number;
  scale?: number;
  perMinute: number;
}

function scaleArg(v: string): number {
  const n = Number(v);
  if (!/^\d*\.?\d+$/.test(v) || !(n > 0) || n > 10) throw new InvalidArgumentError('--scale must be a number above 0, at most 10');
  return n;
}

function urlArg(v: string): string {
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return v;
  } catch {
    // reported below
  }
  throw new InvalidArgumentError('--webhook-url must be an http(s) URL');
}

/** A value as a shell word: single-quoted, so `eval "$(…)"` reads it back exactly. */
const shellWord = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

export function xeroServerCommand(program: Command, io: Io): void {
  program
    .command('xero-server')
    .description("serve the demo business from the shipped Xero-compatible server (identity, Accounting API, writes, webhooks); prints export lines for the XERO_* settings, then serves until SIGINT/SIGTERM")
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option('--port <port>', 'listen port (0: any free port)', intArg('--port', 0, 65535), 0)
    .option('--auto-consent', 'approve every authorise request at once (no consent page)')
    .option('--webhook-url <url>', 'POST signed webhook events of writes here', urlArg)
    .option('--webhook-key <key>', 'the webhook signing key (default: a new random one, printed)')
    .option('--seed <n>', "the demo generator's seed (default the demo's)", intArg('--seed', 0, 2 ** 31 - 1))
    .option('--scale <x>', "the demo business's size (default the demo's, 1)", scaleArg)
    .option('--per-minute <n>', "calls a minute per tenant before a 429 (Xero's limit: 60)", intArg('--per-minute', 1, 1_000_000), 60)
    .action(action(io, (ctx, opts: XeroServerOpts) => run(io, ctx.config.clock.now(), opts)));
}

async function run(io: Io, now: Date, opts: XeroServerOpts): Promise<typeof KEEP_RUNNING> {
  const demo = DEMO_ORGS[0];
  const out = generateDemo({ seed: opts.seed ?? demo.seed, asOf: now, scale: opts.scale ?? demo.scale, name: demo.name, profile: demo.profile });
  // A key as Xero gives one: 32 random bytes, base64.
  const webhookKey = opts.webhookUrl ? (opts.webhookKey ?? randomBytes(32).toString('base64')) : undefined;
  const server = await startXeroServer({
    data: datasetFromFiles(out.files),
    host: opts.host,
    port: opts.port,
    autoConsent: opts.autoConsent ?? false,
    limits: { perMinute: opts.perMinute, concurrent: 5 },
    ...(opts.webhookUrl && webhookKey ? { webhook: { url: opts.webhookUrl, key: webhookKey } } : {}),
  });
  const vars: [string, string][] = [
    ['XERO_CLIENT_ID', server.clientId],
    ['XERO_CLIENT_SECRET', server.clientSecret],
    ['XERO_LOGIN_URL', server.loginUrl],
    ['XERO_IDENTITY_URL', server.identityUrl],
    ['XERO_API_URL', server.apiUrl],
    ...(webhookKey ? ([['XERO_WEBHOOK_KEY', webhookKey]] as [string, string][]) : []),
    ['XERO_SERVER_TOKEN', server.writeToken],
  ];
  io.stdout(vars.map(([k, v]) => `export ${k}=${shellWord(v)}\n`).join(''));
  io.stderr(
    [
      `# Xero-compatible server for "${demo.name}" (tenant ${server.tenantId}) at ${server.url}`,
      `# eval "$(cashline-server xero-server …)" in a shell, then connect an organisation: cashline-server ledger connect --org ID`,
      `# XERO_SERVER_TOKEN writes to the books: curl -X PUT -H "Authorization: Bearer $XERO_SERVER_TOKEN" -H "Xero-Tenant-Id: ${server.tenantId}" $XERO_API_URL/Invoices -d '{…}'`,
      '',
    ].join('\n'),
  );
  let closing = false;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      if (closing) return;
      closing = true;
      void server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
  return KEEP_RUNNING;
}
