/**
 * Child API processes and ports for tests that run the service for real:
 * `serveProcess(env)` starts `dist/bin/cashline-server.js serve --port 0`
 * (run `npm run build` first; `npm test` does) and resolves with its base URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

export const SERVER_BIN = resolve(import.meta.dirname, '..', '..', 'dist', 'bin', 'cashline-server.js');

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => r(port));
    });
  });
}

export interface ServedProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
}

/** `cashline-server serve --port 0 [args]` with `env` (plus PATH and a shared cursor secret). */
export function serveProcess(env: Record<string, string>, args: string[] = []): Promise<ServedProcess> {
  return new Promise((resolveServe, reject) => {
    const child = spawn('node', [SERVER_BIN, 'serve', '--port', '0', ...args], {
      env: { PATH: process.env.PATH!, CASHLINE_LOG_LEVEL: 'warn', CASHLINE_CURSOR_SECRET: 'shared-secret-for-every-instance', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let started = false;
    child.stderr!.on('data', (d) => (out += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /\{"baseUrl":"([^"]+)"\}/.exec(out);
      if (m && !started) {
        started = true;
        resolveServe({ child, url: m[1]!, output: () => out });
      }
    });
    child.on('exit', (code) => {
      if (!started) reject(new Error(`serve exited ${code}: ${out}`));
    });
    setTimeout(() => {
      if (!started) reject(new Error(`serve did not start: ${out}`));
    }, 60_000);
  });
}

/**
 * SIGTERM to each child, then waits until every one has exited: a server
 * still draining (its last writes) would otherwise race the test's clean-up
 * of its database (a DROP SCHEMA ... CASCADE deadlocked with one).
 */
export async function stopProcesses(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((c) => {
      if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      return gone;
    }),
  );
}
