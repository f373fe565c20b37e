/**
 * The environment, parsed once with zod. A bad value stops start-up with a
 * message naming the variable (see decisions.md, "Configuration").
 */
import { z } from 'zod';
import { type Clock, fixedClock, systemClock } from './clock.js';

const url = (scheme: RegExp, what: string) =>
  z.string().refine((v) => scheme.test(v), { message: `must be a ${what} URL` });

const isoInstant = z
  .string()
  .refine((v) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && Number.isFinite(Date.parse(v)), {
    message: 'must be an ISO 8601 instant such as 2026-11-23T09:00:00Z',
  });

/** A base64 text of exactly 32 bytes (an AES-256 key); the message never echoes the value. */
const isKey32 = (v: string) => {
  const t = v.trim();
  return /^[A-Za-z0-9+/]+={0,2}$/.test(t) && t.length % 4 === 0 && Buffer.from(t, 'base64').length === 32;
};
const KEY_MESSAGE = 'must be a base64 key of exactly 32 bytes (openssl rand -base64 32)';

const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);

export const configSchema = z.object({
  DATABASE_URL: z.preprocess(emptyAsUndefined, url(/^postgres(ql)?:\/\//, 'postgres://').optional()),
  /**
   * `transaction`: DATABASE_URL is a transaction pooler (PgBouncer's
   * pool_mode=transaction), so no session is held on it: key revocations
   * LISTEN on DATABASE_DIRECT_URL, or are polled every second without it
   * (docs/scaling.md "PgBouncer"). Unset: DATABASE_URL reaches PostgreSQL itself.
   */
  DATABASE_POOLER: z.preprocess(emptyAsUndefined, z.enum(['transaction']).optional()),
  /** A connection straight to PostgreSQL, past the pooler, for LISTEN (key revocations); only with DATABASE_URL. */
  DATABASE_DIRECT_URL: z.preprocess(emptyAsUndefined, url(/^postgres(ql)?:\/\//, 'postgres://').optional()),
  /**
   * A streaming standby of DATABASE_URL's server (docs/scaling.md "Read
   * replica"): lists, analytics and the forecast read there while it is up
   * and within DATABASE_REPLICA_MAX_LAG_SECONDS; everything else, and every
   * read when it is not, goes to the primary. Needs DATABASE_URL.
   */
  DATABASE_REPLICA_URL: z.preprocess(emptyAsUndefined, url(/^postgres(ql)?:\/\//, 'postgres://').optional()),
  /** Above this lag, in seconds, reads leave the replica until it catches up. */
  DATABASE_REPLICA_MAX_LAG_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().min(1).max(3600).default(10)),
  CASHLINE_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./.cashline')),
  REDIS_URL: z.preprocess(emptyAsUndefined, url(/^rediss?:\/\//, 'redis://').optional()),
  HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(8787)),
  CASHLINE_NOW: z.preprocess(emptyAsUndefined, isoInstant.optional()),
  CASHLINE_ENV: z.preprocess(emptyAsUndefined, z.enum(['dev', 'prod']).default('dev')),
  /** Signs cursors. Unset: a random per-process secret (cursors die with the process). */
  CASHLINE_CURSOR_SECRET: z.preprocess(emptyAsUndefined, z.string().min(16).optional()),
  CASHLINE_LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  CASHLINE_LLM_BASE_URL: z.preprocess(emptyAsUndefined, url(/^https?:\/\//, 'http(s)://').optional()),
  CASHLINE_LLM_API_KEY: z.preprocess(emptyAsUndefined, z.string().optional()),
  CASHLINE_LLM_MODEL: z.preprocess(emptyAsUndefined, z.string().optional()),
  /** The premium brief's chat-completions call: slower answers fall back to the rules tier. */
  CASHLINE_LLM_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(300_000).default(20_000)),
  /** Ledger sync cadence of the workers. */
  CASHLINE_SYNC_INTERVAL_MINUTES: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1440).default(30)),
  /** How often a worker looks for due jobs. */
  CASHLINE_WORKER_TICK_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(3600).default(60)),
  /**
   * Browser origins allowed to call the API (CORS), comma-separated
   * (`https://app.example.com,https://admin.example.com`), or `*`; unset: no
   * CORS headers (off by default).
   */
  CASHLINE_CORS_ORIGINS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .transform((v) => v.split(',').map((x) => x.trim()).filter(Boolean))
      .refine((list) => list.length > 0 && list.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), {
        message: 'must be * or comma-separated origins such as https://app.example.com (scheme and host, no path)',
      })
      .optional(),
  ),
  /** The audit log's writes (docs/reliability.md#audit-log): the longest a row waits in memory (ms), and rows per insert. */
  CASHLINE_AUDIT_FLUSH_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(60_000).default(500)),
  CASHLINE_AUDIT_BATCH: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(10_000).default(500)),
  /** How long a verified key is kept in process (docs/api.md#key-cache); 0 turns the cache off. */
  CASHLINE_KEY_CACHE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().min(0).max(300).default(5)),
  /**
   * Seals the ledger tokens at rest (AES-256-GCM, docs/sync.md "Tokens at
   * rest"): base64 of 32 bytes. Required with DATABASE_URL for anything that
   * reads or writes ledger tokens; unset on the embedded store, a key file in
   * the data folder is used (created on first start).
   */
  CASHLINE_ENCRYPTION_KEY: z.preprocess(emptyAsUndefined, z.string().refine(isKey32, { message: KEY_MESSAGE }).optional()),
  /** Earlier keys, comma-separated base64: they open what they sealed, never seal (a key rotation). */
  CASHLINE_ENCRYPTION_OLD_KEYS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => v.split(',').map((k) => k.trim()).filter(Boolean).every(isKey32), { message: `must be comma-separated keys, each ${KEY_MESSAGE.replace(/^must be /, '')}` })
      .optional(),
  ),
  XERO_CLIENT_ID: z.preprocess(emptyAsUndefined, z.string().optional()),
  XERO_CLIENT_SECRET: z.preprocess(emptyAsUndefined, z.string().optional()),
  XERO_API_URL: z.preprocess(emptyAsUndefined, url(/^https?:\/\//, 'http(s)://').default('https://api.xero.com/api.xro/2.0')),
  XERO_IDENTITY_URL: z.preprocess(emptyAsUndefined, url(/^https?:\/\//, 'http(s)://').default('https://identity.xero.com')),
  /** Xero's login service: the consent page is /identity/connect/authorize under it. */
  XERO_LOGIN_URL: z.preprocess(emptyAsUndefined, url(/^https?:\/\//, 'http(s)://').default('https://login.xero.com')),
  /**
   * The scopes a consent asks for: `granular` (default: Xero's granular read
   * scopes, which apps created from March 2026 must use), `broad` (the older
   * apps' accounting.transactions.read and accounting.reports.read), or a
   * space- or comma-separated list. Read only; offline_access is always added.
   */
  XERO_SCOPES: z.preprocess(emptyAsUndefined, z.string().default('granular')),
  /** The webhook signing key of the Xero app (POST /hooks/xero); unset: webhooks are refused. */
  XERO_WEBHOOK_KEY: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  /** The address users reach this service at (the web consent's callback, ledgerAlert links); default http://HOST:PORT. */
  CASHLINE_PUBLIC_URL: z.preprocess(emptyAsUndefined, url(/^https?:\/\/[^/\s]+\/?$/, 'http(s)://host[:port] (no path)').optional()),
});

export type Config = z.infer<typeof configSchema> & { clock: Clock };

/** The premium brief tier's endpoint, or null when CASHLINE_LLM_BASE_URL or CASHLINE_LLM_MODEL is unset (rules tier only). */
export function llmConfig(c: Pick<Config, 'CASHLINE_LLM_BASE_URL' | 'CASHLINE_LLM_API_KEY' | 'CASHLINE_LLM_MODEL' | 'CASHLINE_LLM_TIMEOUT_MS'>) {
  if (!c.CASHLINE_LLM_BASE_URL || !c.CASHLINE_LLM_MODEL) return null;
  return { baseUrl: c.CASHLINE_LLM_BASE_URL, apiKey: c.CASHLINE_LLM_API_KEY, model: c.CASHLINE_LLM_MODEL, timeoutMs: c.CASHLINE_LLM_TIMEOUT_MS };
}

/** Where users reach the service: CASHLINE_PUBLIC_URL, or http://HOST:PORT. */
export function publicUrl(c: Pick<Config, 'CASHLINE_PUBLIC_URL' | 'HOST' | 'PORT'>): string {
  if (c.CASHLINE_PUBLIC_URL) return c.CASHLINE_PUBLIC_URL.replace(/\/+$/, '');
  const host = c.HOST.includes(':') ? `[${c.HOST}]` : c.HOST === '0.0.0.0' ? '127.0.0.1' : c.HOST;
  return `http://${host}:${c.PORT}`;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const cfg = parsed.data;
  if (cfg.DATABASE_REPLICA_URL && !cfg.DATABASE_URL) {
    throw new ConfigError('invalid configuration: DATABASE_REPLICA_URL: needs DATABASE_URL (the primary the replica follows)');
  }
  return { ...cfg, clock: cfg.CASHLINE_NOW ? fixedClock(cfg.CASHLINE_NOW) : systemClock };
}
