/**
 * What every `cashline-server` command is built with: the I/O it prints to,
 * its context (configuration, the store opened on demand), argument parsers,
 * and `action`, which runs a command and prints its JSON result or
 * `error: <message>` with exit code 1.
 */
import { InvalidArgumentError } from 'commander';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { type OpenOptions, openStore, type Store } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { requireOrg, TenancyError } from '../store/tenancy.js';
import { isCalendarDate } from '../domain/calendar.js';
import { StoreLockedError } from '../store/embedded-lock.js';
import { type Keyring, loadKeyring, SealError } from '../ledger/seal.js';
import { sealPlainTokens } from '../ledger/tokens.js';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** The running server's store: the command runs inside the server (src/server/ops-socket.ts). */
  sharedStore?: Store;
  /** The whole program (`main`): a serving command runs operations forwarded over its socket with it. */
  program?: (argv: string[], io: Io) => Promise<void>;
}

/** An error whose message is for the operator (no stack trace printed). */
export class OperatorError extends Error {}

export interface CommandContext {
  config: Config;
  io: Io;
  /** Opens (once) and migrates the configured store. */
  store(): Promise<Store>;
  /** The store, once the organisation is known to exist (`unknown organisation` otherwise). */
  orgStore(orgId: string): Promise<Store>;
  /**
   * The keyring sealing the ledger tokens (src/ledger/seal.ts), loaded once:
   * CASHLINE_ENCRYPTION_KEY, or the embedded store's key file; on PostgreSQL
   * without the variable, one that throws when a token is touched.
   */
  keyring(): Keyring;
}

/**
 * The store this configuration names: PostgreSQL (reached directly or through
 * a transaction pooler) or the embedded one; with the read replica
 * (DATABASE_REPLICA_URL: its pool and its lag monitor) only for `replica`, the
 * commands that serve reads (serve, demo) or report on it (status).
 */
export function storeOptions(config: Config, opts: { replica?: boolean } = {}): OpenOptions {
  if (config.DATABASE_DIRECT_URL && !config.DATABASE_URL) throw new ConfigError('invalid configuration: DATABASE_DIRECT_URL: needs DATABASE_URL');
  return {
    databaseUrl: config.DATABASE_URL,
    dataDir: config.CASHLINE_DATA_DIR,
    pooled: config.DATABASE_POOLER === 'transaction',
    directUrl: config.DATABASE_DIRECT_URL,
    replicaUrl: opts.replica ? config.DATABASE_REPLICA_URL : undefined,
    replicaMaxLagSeconds: config.DATABASE_REPLICA_MAX_LAG_SECONDS,
  };
}

export const processIo: Io = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
};

export function intArg(name: string, min: number, max: number) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a whole number`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}`);
    return n;
  };
}

export function dateArg(name: string) {
  return (value: string): string => {
    if (!isCalendarDate(value)) throw new InvalidArgumentError(`${name} must be a date YYYY-MM-DD`);
    return value;
  };
}

/**
 * Wraps an action: builds the context, runs it, prints its JSON result, and
 * turns failures into `error: <message>` with exit code 1. Long-running
 * actions (serve, demo) return `undefined` and keep the process alive.
 */
export function action<A extends unknown[]>(
  io: Io,
  fn: (ctx: CommandContext, ...args: A) => Promise<unknown>,
  opts: { replica?: boolean } = {},
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    let store: Store | undefined;
    let keepOpen = false;
    try {
      const config = loadConfig(io.env);
      let keyring: Keyring | undefined;
      const ctx: CommandContext = {
        config,
        io,
        async store() {
          if (io.sharedStore) return io.sharedStore;
          if (!store) {
            store = await openStore(storeOptions(config, opts));
            await migrate(store.db);
          }
          return store;
        },
        async orgStore(orgId) {
          const s = await this.store();
          await requireOrg(s.db, orgId);
          return s;
        },
        keyring() {
          keyring ??= loadKeyring(config);
          return keyring;
        },
      };
      const result = await fn(ctx, ...args);
      if (result === KEEP_RUNNING) {
        keepOpen = true;
        return;
      }
      io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    } catch (err) {
      process.exitCode = 1;
      io.stderr(`error: ${describeError(err)}\n`);
    } finally {
      if (store && !keepOpen) await store.close().catch(() => {});
    }
  };
}

/**
 * Seals the plain ledger tokens of rows from before sealing (a process's
 * first start on an older store). Without a key (PostgreSQL without
 * CASHLINE_ENCRYPTION_KEY) it only warns, naming the variable: serving the
 * API touches no token and goes on.
 */
export async function sealTokensAtStart(ctx: CommandContext, store: Store, log: (level: 'info' | 'warn', message: string) => void): Promise<void> {
  let keyring: Keyring;
  try {
    keyring = ctx.keyring();
  } catch (err) {
    // An unreadable key file: what touches a token fails with this message; serving goes on.
    if (err instanceof SealError) return log('warn', err.message);
    throw err;
  }
  const r = await sealPlainTokens(store.db, keyring, (m) => log('warn', m));
  if (r.sealed) log('info', `sealed the plain tokens of ${r.sealed} ledger connection(s) from before sealing`);
}

/** The log of a one-shot command: lines on stderr. */
export const stderrLog = (io: Io) => (level: 'info' | 'warn', message: string) => io.stderr(`${level === 'warn' ? 'warning' : 'note'}: ${message}\n`);

/** A command that reads or writes ledger tokens: the keyring, or an error naming CASHLINE_ENCRYPTION_KEY when it holds no key. */
export function requireKeyring(ctx: CommandContext): Keyring {
  const keyring = ctx.keyring();
  if (!keyring.hasKey) {
    throw new OperatorError('CASHLINE_ENCRYPTION_KEY must be set with DATABASE_URL to read or write ledger tokens (base64 of 32 bytes, the same on every instance; docs/sync.md "Tokens at rest")');
  }
  return keyring;
}

/** Returned by actions that keep serving (serve, worker, demo). */
export const KEEP_RUNNING = Symbol('keep-running');

export function describeError(err: unknown): string {
  if (
    err instanceof TenancyError ||
    err instanceof ConfigError ||
    err instanceof OperatorError ||
    err instanceof StoreLockedError ||
    err instanceof InvalidArgumentError
  ) {
    return err.message;
  }
  if (err instanceof Error) {
    // Known operational errors carry a clear message; anything else is
    // reported by its message only (never a stack trace on stderr).
    return err.message || err.name;
  }
  return String(err);
}

