/**
 * Operations while the embedded server runs (docs/cli.md "Operations while
 * the server runs"). PGlite is single-process (src/store/embedded-lock.ts):
 * no second process may open the data folder. A server on the embedded store
 * therefore listens on a Unix domain socket in its data folder
 * (`cashline.sock`, mode 0600: its owner only), and `cashline-server <command>`
 * run on that folder while the server holds it sends its arguments there; the
 * server runs the very same command on its own store and streams back its
 * stdout, stderr and exit code, which the client prints and exits with. So the
 * JSON and exit codes are those of a command that opens the store itself.
 *
 * Protocol: one request per connection, a line of JSON `{argv, env}`; the
 * answer is lines of JSON `{t:'out'|'err', d}` then `{t:'exit', code}`.
 * Commands run one at a time in the server.
 */
import { chmodSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import type { Store } from '../store/db.js';
import type { Io } from './action.js';

export const OPS_SOCKET = 'cashline.sock';

/** Commands that serve (never forwarded: they need the store for themselves; xero-server uses none but keeps running). */
const SERVING = new Set(['serve', 'demo', 'worker', 'xero-server']);

export const opsSocketPath = (dataDir: string) => join(resolve(dataDir), OPS_SOCKET);

export interface OpsSocket {
  path: string;
  close(): Promise<void>;
}

type Run = (argv: string[], io: Io) => Promise<void>;

/** Listens on the data folder's socket and runs the commands sent there on `store`. */
export function startOpsSocket(dataDir: string, store: Store, run: Run): Promise<OpsSocket> {
  const path = opsSocketPath(dataDir);
  // The caller holds the store's lock: a socket file left here is a dead server's.
  rmSync(path, { force: true });
  let queue: Promise<void> = Promise.resolve();
  const server: Server = createServer((conn) => {
    let buf = '';
    let started = false;
    conn.setEncoding('utf8');
    conn.on('error', () => {});
    conn.on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0 || started) return;
      started = true;
      const send = (m: object) => {
        if (!conn.destroyed) conn.write(`${JSON.stringify(m)}\n`);
      };
      let req: { argv?: unknown; env?: unknown };
      try {
        req = JSON.parse(buf.slice(0, nl));
      } catch {
        send({ t: 'err', d: 'error: bad operations request\n' });
        send({ t: 'exit', code: 1 });
        conn.end();
        return;
      }
      const argv = Array.isArray(req.argv) ? req.argv.map(String) : [];
      const env = req.env && typeof req.env === 'object' ? (req.env as NodeJS.ProcessEnv) : {};
      queue = queue.then(() => runOne(argv, env, store, run, send)).finally(() => conn.end());
    });
  });
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    // Bind with an owner-only mode from the start (no window where others could connect).
    const umask = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', reject);
        chmodSync(path, 0o600);
        const cleanup = () => rmSync(path, { force: true });
        process.once('exit', cleanup);
        resolveListen({
          path,
          close: () =>
            new Promise<void>((r) => {
              server.close(() => r());
              cleanup();
            }),
        });
      });
    } finally {
      process.umask(umask);
    }
  });
}

async function runOne(argv: string[], env: NodeJS.ProcessEnv, store: Store, run: Run, send: (m: object) => void): Promise<void> {
  if (SERVING.has(argv[0] ?? '')) {
    send({ t: 'err', d: `error: ${argv[0]} cannot run while a server holds the embedded store\n` });
    send({ t: 'exit', code: 1 });
    return;
  }
  // The command's exit code is process.exitCode (as in its own process): kept aside and restored.
  const before = process.exitCode;
  process.exitCode = 0;
  let code = 1;
  try {
    await run(argv, { stdout: (d) => send({ t: 'out', d }), stderr: (d) => send({ t: 'err', d }), env, sharedStore: store });
    code = Number(process.exitCode ?? 0);
  } catch (err) {
    send({ t: 'err', d: `error: ${(err as Error).message}\n` });
  } finally {
    process.exitCode = before;
  }
  send({ t: 'exit', code });
}

/**
 * The socket of the live server holding the embedded store at `dataDir`, if
 * any (its lock file names a live process other than this one, and its socket
 * is there); null otherwise (the command opens the store itself).
 */
export function liveServerSocket(dataDir: string): string | null {
  if (dataDir === 'memory://') return null;
  const dir = resolve(dataDir);
  let holder: number;
  try {
    holder = Number(readFileSync(join(dir, 'cashline.lock'), 'utf8').trim());
  } catch {
    return null;
  }
  if (!holder || holder === process.pid) return null;
  try {
    process.kill(holder, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  const path = join(dir, OPS_SOCKET);
  return existsSync(path) ? path : null;
}

export const isServingCommand = (argv: readonly string[]) => SERVING.has(argv[0] ?? '');

/** Path options resolved here before sending (the server's working directory is not ours). */
const PATH_OPTIONS = new Set(['--dir']);

/** Sends the command to the server; prints what it prints; resolves with its exit code. */
export function forwardToServer(socketPath: string, argv: string[], io: Io): Promise<number> {
  const args = argv.map((a, i) => (i > 0 && PATH_OPTIONS.has(argv[i - 1]!) ? resolve(a) : a));
  return new Promise((resolveCode, reject) => {
    const conn = createConnection(socketPath);
    let buf = '';
    let code: number | null = null;
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(`${JSON.stringify({ argv: args, env: io.env })}\n`));
    conn.on('data', (chunk: string) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const m = JSON.parse(buf.slice(0, nl)) as { t: string; d?: string; code?: number };
        buf = buf.slice(nl + 1);
        if (m.t === 'out') io.stdout(m.d ?? '');
        else if (m.t === 'err') io.stderr(m.d ?? '');
        else if (m.t === 'exit') code = m.code ?? 1;
      }
    });
    conn.on('error', reject);
    conn.on('close', () => (code === null ? reject(new Error('the running server closed the operations socket before answering')) : resolveCode(code)));
  });
}
