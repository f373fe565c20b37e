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
  type Admission,
  type AdmissionRequest,
  BURST_LIMIT,
  BURST_WINDOW_MS,
  CREDIT_WINDOW_MS,
  type BurstResult,
  type CreditResult,
  type CreditSubject,
  type Limiter,
  secondsUntilFree,
  type Taken,
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

// One request's admission (issue 21: one round trip). KEYS[1] burst bucket, KEYS[2] credit bucket, KEYS[3] daily
// counter (KEYS[2..3] only read when ARGV[5] is not ''). ARGV: now ('' = server time), burst window, burst limit,
// burst member, credit mode ('reserve' | 'read' | ''), credit window, credit limit, credit member, daily mode
// ('count' | 'read'), daily counter's time to live (ms).
// Returns {now, burst admitted, #burst scores, burst scores..., credit admitted (-1: not asked), #credit scores,
// credit scores..., daily used (-1: not asked)}. The burst's scores are its window after the call.
const ADMIT_ALL = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function window(key, width)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - width)
  local scores = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local out = {}
  for i = 2, #scores, 2 do out[#out + 1] = scores[i] end
  return out
end
local out = {now}
local bwidth = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - bwidth)
local badmitted = 0
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  badmitted = 1
end
redis.call('PEXPIRE', KEYS[1], bwidth)
local bscores = window(KEYS[1], bwidth)
out[#out + 1] = badmitted
out[#out + 1] = #bscores
for i = 1, #bscores do out[#out + 1] = bscores[i] end
if badmitted == 0 or ARGV[5] == '' then
  out[#out + 1] = -1
  out[#out + 1] = 0
  out[#out + 1] = -1
  return out
end
local cwidth = tonumber(ARGV[6])
local cadmitted = 1
if ARGV[5] == 'reserve' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - cwidth)
  if redis.call('ZCARD', KEYS[2]) < tonumber(ARGV[7]) then
    redis.call('ZADD', KEYS[2], now, ARGV[8])
    redis.call('PEXPIRE', KEYS[2], cwidth)
  else
    cadmitted = 0
  end
end
local cscores = window(KEYS[2], cwidth)
out[#out + 1] = cadmitted
out[#out + 1] = #cscores
for i = 1, #cscores do out[#out + 1] = cscores[i] end
local daily = 0
if cadmitted == 1 and ARGV[9] == 'count' then
  daily = redis.call('INCR', KEYS[3])
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[10]))
else
  daily = tonumber(redis.call('GET', KEYS[3]) or '0')
end
out[#out + 1] = daily
return out
`;

// Undoes an admission. KEYS[1] credit bucket, KEYS[2] daily counter; ARGV: credit member ('' none), '1' to uncount the day.
const SETTLE = `
if ARGV[1] ~= '' then redis.call('ZREM', KEYS[1], ARGV[1]) end
if ARGV[2] == '1' and tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 1
`;

/** The daily counters outlive their UTC day by a day (a request near midnight settles after it). */
const DAILY_TTL_MS = 2 * 24 * 60 * 60 * 1000;

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
  clAdmitAll(...args: (string | number)[]): Promise<(number | string)[]>;
  clSettle(credit: string, daily: string, member: string, uncount: string): Promise<number>;
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
    redis.defineCommand('clAdmitAll', { numberOfKeys: 3, lua: ADMIT_ALL });
    redis.defineCommand('clSettle', { numberOfKeys: 2, lua: SETTLE });
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

  private dailyKey(orgId: string, day: string): string {
    return `${this.prefix}:daily:${orgId}:${day}`;
  }

  async admit(req: AdmissionRequest, now: Date): Promise<Admission> {
    const s = req.subject;
    const member = randomUUID();
    const reply = await this.call(() =>
      this.redis.clAdmitAll(
        `${this.prefix}:burst:${req.keyId}:${req.route}`,
        s ? this.creditKey(s) : `${this.prefix}:none`,
        s ? this.dailyKey(s.orgId, req.day) : `${this.prefix}:none`,
        this.nowArg(now),
        BURST_WINDOW_MS,
        BURST_LIMIT,
        randomUUID(),
        s ? req.credit : '',
        CREDIT_WINDOW_MS,
        s?.limit ?? 0,
        member,
        req.daily,
        DAILY_TTL_MS,
      ),
    );
    const at = Number(reply[0]);
    const burstAdmitted = Number(reply[1]) === 1;
    const nBurst = Number(reply[2]);
    const burst = RedisLimiter.burstVerdict(burstAdmitted, reply.slice(3, 3 + nBurst).map(Number), at);
    let i = 3 + nBurst;
    const creditAdmitted = Number(reply[i]);
    const nCredit = Number(reply[i + 1]);
    const scores = reply.slice(i + 2, i + 2 + nCredit).map(Number);
    i += 2 + nCredit;
    const dailyUsed = Number(reply[i]);
    if (!s || creditAdmitted === -1) return { burst, credit: null, usage: null, dailyUsed: null, taken: null };
    const usage = usageFrom(s.limit, scores, at);
    let credit: CreditResult | null = null;
    if (req.credit === 'reserve') {
      credit =
        creditAdmitted === 1
          ? { allowed: true, reservation: member, usage }
          : { allowed: false, retryAfterSeconds: secondsUntilFree(scores[scores.length - s.limit]!, at, CREDIT_WINDOW_MS), usage };
    }
    const reservation = credit?.allowed ? member : null;
    const day = creditAdmitted === 1 && req.daily === 'count' ? req.day : null;
    return {
      burst,
      credit,
      usage,
      dailyUsed: creditAdmitted === 1 ? dailyUsed : null,
      taken: reservation || day ? { subject: s, reservation, day } : null,
    };
  }

  async settle(taken: Taken): Promise<void> {
    const day = taken.day ?? '';
    await this.call(() =>
      this.redis.clSettle(this.creditKey(taken.subject), this.dailyKey(taken.subject.orgId, day), taken.reservation ?? '', taken.day ? '1' : ''),
    );
  }

  /** The burst verdict from the window after the call (scores, oldest first). */
  private static burstVerdict(admitted: boolean, scores: number[], at: number): BurstResult {
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

  async hitBurst(keyId: string, route: string, now: Date): Promise<BurstResult> {
    const reply = await this.call(() =>
      this.redis.clAdmit(`${this.prefix}:burst:${keyId}:${route}`, this.nowArg(now), BURST_WINDOW_MS, BURST_LIMIT, randomUUID()),
    );
    const { now: at, scores } = RedisLimiter.parse(reply, 2);
    return RedisLimiter.burstVerdict(Number(reply[0]) === 1, scores, at);
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
