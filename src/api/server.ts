/**
 * Serves the app on node:http. `close()` (and SIGTERM/SIGINT through
 * `closeOnSignals`) stops accepting connections, lets in-flight requests
 * finish (up to `drainMs`), then closes what is left.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createApp, type AppOptions } from './app.js';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Requests being answered right now. */
  inFlight(): number;
}

export async function startServer(opts: AppOptions & { host: string; port: number; drainMs?: number }): Promise<RunningServer> {
  const app = createApp(opts);
  let inFlight = 0;
  let closing: Promise<void> | null = null;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        fetch: async (req, env) => {
          inFlight++;
          try {
            return await app.fetch(req, env);
          } finally {
            inFlight--;
          }
        },
        hostname: opts.host,
        port: opts.port,
      },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
  server.keepAliveTimeout = 5_000;
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const drainMs = opts.drainMs ?? 10_000;

  const close = () =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + drainMs;
      while (inFlight > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        server.closeIdleConnections();
      }
      server.closeAllConnections();
      await closed;
    })());

  return { url: `http://${host}:${port}`, port, close, inFlight: () => inFlight };
}

/** Closes `server` (then runs `after`) on SIGTERM or SIGINT, once. */
export function closeOnSignals(server: RunningServer, after: () => Promise<void>, log: (msg: string) => void): void {
  let done = false;
  const handler = (signal: NodeJS.Signals) => {
    if (done) return;
    done = true;
    log(`${signal}: draining ${server.inFlight()} in-flight request(s)`);
    server
      .close()
      .then(after)
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
