/**
 * A PostgreSQL server of a test's own (initdb into a temporary folder, its own
 * port), for tests that stop and restart the database under load: the shared
 * server at 127.0.0.1:5432 serves every other test file at the same time and
 * must never be stopped. Uses the machine's PostgreSQL binaries (Debian's
 * /usr/lib/postgresql/<version>/bin); run as root, the server runs as the
 * `postgres` user (initdb refuses root). Missing binaries fail the test.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.js';

export interface PrivatePg {
  url: string;
  start(): void;
  /** `pg_ctl stop -m fast`: connections are terminated, new ones refused. */
  stop(): void;
  destroy(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql: this test needs them');
}

export async function startPrivatePg(): Promise<PrivatePg> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'cashline-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : join(bin, cmd), asRoot ? ['-u', 'postgres', '--', join(bin, cmd), ...args] : args, { stdio: 'pipe' });
  const port = await freePort();
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const pg: PrivatePg = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => void run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']),
    stop: () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    destroy() {
      try {
        pg.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  pg.start();
  return pg;
}
