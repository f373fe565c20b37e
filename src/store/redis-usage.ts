/**
 * The Redis limiter (REDIS_URL): burst and credit windows shared by every API
 * instance. Each bucket is a sorted set (a sliding log): member = a unique id
 * per request, score = its time in ms. Admission is one Lua script (trim the
 * window, count, admit or refuse, add), atomic in Redis, so concurrent
 * requests on any number of instances cannot double-spend. Time comes from
 * the Redis server (`TIME`) so instances with skewed clocks agree; tests may
 * pass their own clock (`timeSource: 'client'`).
 *
 * Failure: commands time out after `commandTimeoutMs`; the API then answers
 * 503 service_unavailable with Retry-After (never a wrong 429, never a hang),
 * and ioredis reconnects by itself when the server is back.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  BURST_LIMIT,
  BURST_WINDOW_MS,
  CREDIT_WINDOW_MS,
  type BurstResult,
  type CreditResult,
  type CreditSubject,
  type Limiter,
  secondsUntilFree,
  type Usage,
  usageFrom,
} from '../domain/plans.js';

// KEYS[1] bucket; ARGV: now (ms, '' = server time), window ms, limit, member
// Returns {admitted (0/1), now, scores of the window after the call...}
const ADMIT = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local admitted = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  admitted = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local scores = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local out = {admitted, now}
for i = 2, #scores, 2 do out[#out + 1] = scores[i] end
return out
`;

// KEYS[1] bucket; ARGV: now ('' = server time), window ms. Returns {now, scores...}
const WINDOW = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
local scores = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local out = {now}
for i = 2, #scores, 2 do out[#out + 1] = scores[i] end
return out
`;

export interface RedisLimiterOptions {
  /** 'server' (default): Redis TIME. 'client': the `now` the API passes (its clock). */
  timeSource?: 'server' | 'client';
  commandTimeoutMs?: number;
  prefix?: string;
}

export class RedisUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`Redis unavailable: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'RedisUnavailableError';
  }
}

type AdmitRedis = Redis & {
  clAdmit(key: string, now: string, window: number, limit: number, member: string): Promise<(number | string)[]>;
  clWindow(key: string, now: string, window: number): Promise<(number | string)[]>;
};

export class RedisLimiter implements Limiter {
  readonly name = 'redis';
  private readonly redis: AdmitRedis;
  private readonly client: boolean;
  private readonly prefix: string;

  constructor(url: string, opts: RedisLimiterOptions = {}) {
    const redis = new Redis(url, {
      commandTimeout: opts.commandTimeoutMs ?? 1_000,
      connectTimeout: 2_000,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      lazyConnect: false,
      retryStrategy: (times) => Math.min(times * 100, 1_000),
    });
    redis.on('error', () => {}); // reported per command; ioredis reconnects by itself
    redis.defineCommand('clAdmit', { numberOfKeys: 1, lua: ADMIT });
    redis.defineCommand('clWindow', { numberOfKeys: 1, lua: WINDOW });
    this.redis = redis as AdmitRedis;
    this.client = opts.timeSource === 'client';
    this.prefix = opts.prefix ?? 'cl';
  }

  private nowArg(now: Date): string {
    return this.client ? String(now.getTime()) : '';
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new RedisUnavailableError(err);
    }
  }

  private static parse(reply: (number | string)[], offset: number): { now: number; scores: number[] } {
    return { now: Number(reply[offset - 1]), scores: reply.slice(offset).map(Number) };
  }

  async hitBurst(keyId: string, route: string, now: Date): Promise<BurstResult> {
    const reply = await this.call(() =>
      this.redis.clAdmit(`${this.prefix}:burst:${keyId}:${route}`, this.nowArg(now), BURST_WINDOW_MS, BURST_LIMIT, randomUUID()),
    );
    const admitted = Number(reply[0]) === 1;
    const { now: at, scores } = RedisLimiter.parse(reply, 2);
    if (!admitted) {
      const freeing = scores[scores.length - BURST_LIMIT]!;
      return {
        allowed: false,
        limit: BURST_LIMIT,
        remaining: 0,
        retryAfterSeconds: secondsUntilFree(freeing, at, BURST_WINDOW_MS),
        resetSeconds: secondsUntilFree(scores[scores.length - 1]!, at, BURST_WINDOW_MS),
      };
    }
    return {
      allowed: true,
      limit: BURST_LIMIT,
      remaining: BURST_LIMIT - scores.length,
      retryAfterSeconds: 0,
      resetSeconds: secondsUntilFree(scores[0] ?? at, at, BURST_WINDOW_MS),
    };
  }

  private creditKey(s: CreditSubject): string {
    return `${this.prefix}:credit:${s.billingAccountId}:${s.meterId}`;
  }

  async reserveCredit(subject: CreditSubject, now: Date): Promise<CreditResult> {
    const member = randomUUID();
    const reply = await this.call(() =>
      this.redis.clAdmit(this.creditKey(subject), this.nowArg(now), CREDIT_WINDOW_MS, subject.limit, member),
    );
    const admitted = Number(reply[0]) === 1;
    const { now: at, scores } = RedisLimiter.parse(reply, 2);
    const usage = usageFrom(subject.limit, scores, at);
    if (!admitted) {
      const freeing = scores[scores.length - subject.limit]!;
      return { allowed: false, retryAfterSeconds: secondsUntilFree(freeing, at, CREDIT_WINDOW_MS), usage };
    }
    return { allowed: true, reservation: member, usage };
  }

  async releaseCredit(subject: CreditSubject, reservation: string): Promise<void> {
    await this.call(() => this.redis.zrem(this.creditKey(subject), reservation));
  }

  async usage(subject: CreditSubject, now: Date): Promise<Usage> {
    const reply = await this.call(() => this.redis.clWindow(this.creditKey(subject), this.nowArg(now), CREDIT_WINDOW_MS));
    const { now: at, scores } = RedisLimiter.parse(reply, 1);
    return usageFrom(subject.limit, scores, at);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
