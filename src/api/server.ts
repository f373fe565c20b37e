/**
 * Serves the app on node:http. `close()` (and SIGTERM/SIGINT through
 * `closeOnSignals`) stops accepting connections, lets in-flight requests
 * finish (up to `drainMs`) - serving, with `Connection: close`, a request
 * that arrives meanwhile on a connection already open - and once nothing has
 * been in flight for a moment, closes what is left, and writes the audit rows still buffered. Requests whose head the HTTP parser rejects (headers over
 * `maxHeaderBytes`, malformed bytes) get a JSON error too, never a bare reset.
 */
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import type { Server } from 'node:http';
import { serve, type HttpBindings } from '@hono/node-server';
import { auditLog, createApp, type AppOptions } from './app.js';
import { KeyCache } from './key-cache.js';
import { LedgerHealthCache } from './ledger-cache.js';
import { watchRevocations } from '../store/key-revocations.js';

/**
 * After SIGTERM, how long nothing must be in flight before the remaining
 * (idle) connections are cut: an idle keep-alive connection has had no
 * answer saying Connection: close, so a client may be sending its next
 * request on it; a second covers a request on its way across a slow network
 * or from a client short of CPU (100 ms was measured too short for the
 * latter under a loaded test run: test/sigterm-drain.test.ts).
 */
const IDLE_GRACE_MS = 1_000;

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Requests being answered right now. */
  inFlight(): number;
  /** Writes the audit rows recorded so far (they are otherwise written in batches). */
  flushAudit(): Promise<void>;
}

export interface ServerOptions extends AppOptions {
  host: string;
  port: number;
  /** How long close() waits for in-flight requests (default 10 s). */
  drainMs?: number;
  /** How long nothing must be in flight before close() cuts the idle connections (default IDLE_GRACE_MS). */
  idleGraceMs?: number;
  /** Largest request head accepted (default 64 KiB); larger ones get 431. */
  maxHeaderBytes?: number;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  // Verified keys kept in process; a revocation anywhere drops them here (docs/api.md#key-cache), heard once the server listens.
  const keys = new KeyCache(opts.config.CASHLINE_KEY_CACHE_SECONDS * 1000);
  // Users reach the service at CASHLINE_PUBLIC_URL, or at the address it listens on (known once it listens: port 0 picks one).
  let listening = '';
  const audit = opts.audit ?? auditLog(opts);
  // The ledger connections' health of the envelope, kept like the keys and dropped on every change (docs/api.md#key-cache).
  const ledger = new LedgerHealthCache(opts.config.CASHLINE_KEY_CACHE_SECONDS * 1000);
  const app = createApp({ ...opts, keys, audit, ledger, publicUrl: opts.publicUrl ?? (() => opts.config.CASHLINE_PUBLIC_URL?.replace(/\/+$/, '') ?? listening) });
  let inFlight = 0;
  let closing: Promise<void> | null = null;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        fetch: async (req, env) => {
          // In flight until the answer is written out (or the connection dies).
          inFlight++;
          let done = false;
          const finished = () => {
            if (!done) {
              done = true;
              inFlight--;
            }
          };
          const outgoing = (env as Partial<HttpBindings>).outgoing;
          if (outgoing) outgoing.once('close', finished);
          try {
            const res = await app.fetch(req, env);
            // Draining: the client must not send another request on this connection (it would race the close of an idle socket).
            if (closing) res.headers.set('Connection', 'close');
            return res;
          } catch (err) {
            finished();
            throw err;
          } finally {
            if (!outgoing) finished();
          }
        },
        hostname: opts.host,
        port: opts.port,
        serverOptions: { maxHeaderSize: opts.maxHeaderBytes ?? 64 * 1024 },
      },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
  // Longer than the 60 s idle timeout of common load balancers and long enough
  // that a client never races the server's close of an idle socket under load
  // (an ECONNRESET on reuse); headersTimeout must exceed it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      tooLarge
        ? { error: 'bad_request', message: 'The request headers are too large.' }
        : { error: 'bad_request', message: 'Malformed HTTP request.' },
    );
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  // LISTEN where a session may be held (Store.listen); behind a transaction pooler without DATABASE_DIRECT_URL, a poll.
  const revocations = watchRevocations({
    listen: opts.store.listen,
    ...(opts.store.kind === 'postgres' && !opts.store.listen ? { poll: { db: opts.store.db, cached: () => keys.prefixes() } } : {}),
    onRevoked: (prefix) => keys.drop(prefix),
    onLedgerChanged: (orgId) => ledger.drop(orgId),
    onLost: (err) => {
      keys.clear();
      ledger.drop(null);
      opts.logger.warn(
        { cause: err.message },
        opts.store.listen
          ? 'key revocations: the LISTEN connection was lost; cached keys dropped, each kept at most its time-to-live until it is back'
          : 'key revocations: a poll failed; cached keys dropped',
      );
    },
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  listening = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  const drainMs = opts.drainMs ?? 10_000;
  const idleGraceMs = opts.idleGraceMs ?? IDLE_GRACE_MS;

  const close = () =>
    (closing ??= (async () => {
      // Stop accepting: the listening socket only (net.Server's close; http's would also cut the idle keep-alive
      // connections, on which a client's next request may already be on its way).
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      // Drain: answers now say Connection: close, so clients stop reusing their connections; once nothing has been
      // in flight for idleGraceMs (every active client has had its last answer), or at the deadline, cut what is left.
      const deadline = performance.now() + drainMs;
      let quietSince = performance.now();
      while (performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
        if (inFlight > 0) quietSince = performance.now();
        else if (performance.now() - quietSince >= idleGraceMs) {
          // Timers run before the event loop reads the sockets: a request whose bytes have arrived but are not read
          // yet (a process starved of CPU) would be cut with its connection. Let one read pass run, then look again.
          await new Promise((r) => setImmediate(r));
          if (inFlight === 0) break;
          quietSince = performance.now();
        }
      }
      server.closeAllConnections();
      await closed;
      await revocations.close();
      // Every answered request's audit row, before the store closes.
      await audit.close();
    })());

  return { url: `http://${host}:${port}`, port, close, inFlight: () => inFlight, flushAudit: () => audit.flush() };
}

/** Closes `server` (then runs `after`, e.g. closing the store) on SIGTERM or SIGINT, once; then exits. */
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
