/**
 * A PgBouncer of a test's own (Debian's `pgbouncer` package, /usr/sbin/pgbouncer),
 * in transaction mode in front of the shared PostgreSQL server, on a free
 * port, its configuration in a temporary folder. Run as root, it runs as the
 * `postgres` user (PgBouncer refuses root). A missing binary fails the test.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './net.js';

export interface PgBouncer {
  /** postgres:// URL of `database` through the pooler. */
  url: string;
  /** Everything PgBouncer logged so far. */
  log(): string;
  stop(): Promise<void>;
}

function binary(): string {
  for (const p of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) if (existsSync(p)) return p;
  try {
    return execFileSync('sh', ['-c', 'command -v pgbouncer']).toString().trim();
  } catch {
    throw new Error('pgbouncer is not installed (apt-get install pgbouncer): test/pgbouncer.test.ts needs it');
  }
}

/** PgBouncer in front of `server` (a postgres:// URL: its host, port and user), serving `database`. */
export async function startPgBouncer(server: string, database: string, opts: { poolSize: number }): Promise<PgBouncer> {
  const bin = binary();
  const target = new URL(server);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'cashline-pgbouncer-'));
  // Readable by the `postgres` user it runs as.
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${opts.poolSize}`,
      'max_client_conn = 200',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(bin, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`;
  for (let i = 0; ; i++) {
    if (exited) throw new Error(`pgbouncer exited at start: ${out}`);
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      await c.query('select 1');
      break;
    } catch (err) {
      if (i >= 50) throw new Error(`pgbouncer did not answer at ${url}: ${(err as Error).message}\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await c.end().catch(() => {});
    }
  }
  return {
    url,
    log: () => out,
    async stop() {
      if (!exited) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
