/**
 * A hot standby of the local PostgreSQL (the shared server at 127.0.0.1:5432)
 * for the read-replica test and benchmark: `pg_basebackup -R -X stream` into a
 * temporary folder, then the machine's `postgres` on a free port of
 * 127.0.0.1, streaming from the primary. Run as root, it runs as the
 * `postgres` user (PostgreSQL refuses root). The primary must trust
 * replication connections from 127.0.0.1 (.ci/run sets it up); without that,
 * or without the binaries, `startStandby` throws saying so: the test fails,
 * never skips. `destroy()` stops it and removes the folder (also at the
 * process's exit, should a test forget).
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './net.js';

export interface Standby {
  port: number;
  /** A postgres:// URL of the standby, for `database` (default test). */
  url(database?: string): string;
  /** `pg_ctl stop -m fast`: its connections are terminated, new ones refused. */
  stop(): Promise<void>;
  /** Starts it again (it resumes streaming from the primary). */
  start(): Promise<void>;
  /** SIGSTOP to every process of the standby: it hangs without closing anything. */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
  /** pg_wal_replay_pause() / pg_wal_replay_resume(): the standby answers but stops applying the primary's changes. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops it (if running) and removes its folder. */
  destroy(): void;
}

const PRIMARY = { host: '127.0.0.1', port: 5432 };
/** Settings a hot standby must have at least as high as its primary (PostgreSQL refuses to start otherwise). */
const AT_LEAST_PRIMARY = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'pg_basebackup'))) return join(root, v, 'bin');
  throw new Error('PostgreSQL server binaries (pg_basebackup, pg_ctl) not found under /usr/lib/postgresql: the read-replica test needs them');
}

const execFileAsync = promisify(execFile);

export async function startStandby(): Promise<Standby> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const argv = (cmd: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args]);
  const run = (cmd: string, args: string[]) => execFileSync(...argv(cmd, args), { stdio: 'pipe' });
  const runAsync = async (cmd: string, args: string[]) => void (await execFileAsync(...argv(cmd, args)));

  const admin = new pg.Client({ ...PRIMARY, user: 'postgres', database: 'postgres' });
  await admin.connect();
  const settings: string[] = [];
  try {
    for (const name of AT_LEAST_PRIMARY) settings.push(`${name} = ${(await admin.query(`show ${name}`)).rows[0][name]}`);
  } finally {
    await admin.end();
  }

  const dir = mkdtempSync(join(tmpdir(), 'cashline-standby-'));
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const data = join(dir, 'data');
  const port = await freePort();
  let running = false;
  let destroyed = false;
  /** The postmaster and its children (WAL replay and receiver, backends). */
  const pids = (): number[] => {
    const head = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('pgrep', ['-P', String(head)]).toString().trim().split('\n').filter(Boolean).map(Number);
    return [head, ...children];
  };
  const standby: Standby = {
    port,
    url: (database = 'test') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      await runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async start() {
      await runAsync('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
      running = true;
    },
    freeze: () => pids().forEach((p) => process.kill(p, 'SIGSTOP')),
    thaw: () => pids().forEach((p) => process.kill(p, 'SIGCONT')),
    pauseReplay: () => onStandby('select pg_wal_replay_pause()'),
    resumeReplay: () => onStandby('select pg_wal_replay_resume()'),
    destroy() {
      if (destroyed) return;
      destroyed = true;
      process.off('exit', standby.destroy);
      if (running) {
        try {
          standby.thaw();
        } catch {
          // not frozen, or gone
        }
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } catch {
          // already stopped
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const onStandby = async (text: string) => {
    const c = new pg.Client({ connectionString: standby.url('postgres') });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  process.once('exit', standby.destroy);

  try {
    // A fast checkpoint: the default (spread) waits for minutes on an idle server.
    run('pg_basebackup', ['-h', PRIMARY.host, '-p', String(PRIMARY.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '-c', 'fast', '-w']);
  } catch (err) {
    standby.destroy();
    const stderr = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message);
    if (/no pg_hba\.conf entry for replication connection/.test(stderr)) {
      throw new Error(
        'the read-replica test starts a hot standby of the PostgreSQL at 127.0.0.1:5432 and needs it to trust replication connections from 127.0.0.1: ' +
          "add `host replication all 127.0.0.1/32 trust` to its pg_hba.conf (psql -Atc 'show hba_file') and reload it (select pg_reload_conf()); .ci/run does this. " +
          `pg_basebackup said: ${stderr.trim()}`,
      );
    }
    throw new Error(`pg_basebackup of 127.0.0.1:5432 failed: ${stderr.trim()}`);
  }
  // The primary's configuration files live elsewhere on Debian (/etc/postgresql): the standby gets its own.
  const conf = [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${dir}'`,
    'hot_standby = on',
    'fsync = off',
    ...settings,
  ];
  const files: [string, string][] = [
    ['postgresql.conf', `${conf.join('\n')}\n`],
    ['pg_hba.conf', 'local all all trust\nhost all all 127.0.0.1/32 trust\n'],
    ['pg_ident.conf', ''],
  ];
  for (const [name, text] of files) {
    writeFileSync(join(data, name), text);
    if (asRoot) execFileSync('chown', ['postgres:postgres', join(data, name)]);
  }
  try {
    await standby.start();
  } catch (err) {
    const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').slice(-2000) : '';
    standby.destroy();
    throw new Error(`the standby did not start: ${(err as Error).message}\n${log}`);
  }
  return standby;
}
