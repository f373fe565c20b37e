/**
 * The Redis limiter (REDIS_URL): burst and credit windows shared by every API
 * instance. Each bucket is a sorted set (a sliding log): member = a unique id
 * per request, score = its time in ms. Admission is one Lua script (trim the
 * window, count, admit or refuse, add), atomic in Redis, so concurrent
 * requests on any number of instances cannot double-spend. It answers the
 * window's summary (count, oldest, newest, the call that frees the next
 * slot), never its members, so a full Reserve window (5,000 calls) costs
 * what an empty one does. Time comes from
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
  usageFromSummary,
} from '../domain/plans.js';

/** A window as the scripts answer it (the arguments of usageFromSummary). */
interface WindowSummary {
  used: number;
  oldestMs: number | null;
  newestMs: number | null;
  freeingMs: number | null;
}

// Every script answers a window by its summary, never its members (a Reserve plan's window holds up to
// 5,000 calls): {n, oldest, newest, freeing}, where freeing is the score whose ageing out frees the next
// slot, the (n - limit + 1)-th oldest (the oldest when n <= limit); -1 for an empty window's scores.
const LUA_PRELUDE = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function trim(key, width)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - width)
end
local function score(key, i)
  local r = redis.call('ZRANGE', key, i, i, 'WITHSCORES')
  if r[2] then return tonumber(r[2]) end
  return -1
end
local function summary(key, limit)
  local n = redis.call('ZCARD', key)
  local at = n - limit
  if at < 0 then at = 0 end
  return {n, score(key, 0), score(key, -1), score(key, at)}
end
local function push(out, t)
  for i = 1, #t do out[#out + 1] = t[i] end
end
-- Trims the window, adds the call when it holds fewer than limit: 1 admitted, 0 refused (not recorded).
local function admit(key, width, limit, member)
  trim(key, width)
  if redis.call('ZCARD', key) < limit then
    redis.call('ZADD', key, now, member)
    redis.call('PEXPIRE', key, width)
    return 1
  end
  return 0
end
`;

// KEYS[1] bucket; ARGV: now (ms, '' = server time), window ms, limit, member.
// Returns {now, admitted (0/1), summary of the window after the call...}.
const ADMIT = `${LUA_PRELUDE}
local limit = tonumber(ARGV[3])
local out = {now, admit(KEYS[1], tonumber(ARGV[2]), limit, ARGV[4])}
push(out, summary(KEYS[1], limit))
return out
`;

// One request's admission (issue 21: one round trip). KEYS[1] burst bucket, KEYS[2] credit bucket, KEYS[3] daily
// counter (KEYS[2..3] only touched when ARGV[5] is not ''). ARGV: now ('' = server time), burst window, burst
// limit, burst member, credit mode ('reserve' | 'read' | ''), credit window, credit limit, credit member, daily
// mode ('count' | 'read'), daily counter's time to live (ms).
// Returns {now, burst admitted, burst summary (4), credit admitted (-1: not asked), credit summary (4), daily used (-1: not asked)};
// each summary of the window after the call.
const ADMIT_ALL = `${LUA_PRELUDE}
local blimit = tonumber(ARGV[3])
local badmitted = admit(KEYS[1], tonumber(ARGV[2]), blimit, ARGV[4])
local out = {now, badmitted}
push(out, summary(KEYS[1], blimit))
if badmitted == 0 or ARGV[5] == '' then
  push(out, {-1, 0, -1, -1, -1, -1})
  return out
end
local cwidth = tonumber(ARGV[6])
local climit = tonumber(ARGV[7])
local cadmitted = 1
if ARGV[5] == 'reserve' then
  cadmitted = admit(KEYS[2], cwidth, climit, ARGV[8])
else
  trim(KEYS[2], cwidth)
end
out[#out + 1] = cadmitted
push(out, summary(KEYS[2], climit))
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

  /** The window summary at `reply[i..i+3]` ({n, oldest, newest, freeing}; -1: none). */
  private static summary(reply: (number | string)[], i: number): WindowSummary {
    const ms = (v: number | string | undefined) => (Number(v) < 0 ? null : Number(v));
    return { used: Number(reply[i]), oldestMs: ms(reply[i + 1]), newestMs: ms(reply[i + 2]), freeingMs: ms(reply[i + 3]) };
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
    const burst = RedisLimiter.burstVerdict(Number(reply[1]) === 1, RedisLimiter.summary(reply, 2), at);
    const creditAdmitted = Number(reply[6]);
    if (!s || creditAdmitted === -1) return { burst, credit: null, usage: null, dailyUsed: null, taken: null };
    const window = RedisLimiter.summary(reply, 7);
    const dailyUsed = Number(reply[11]);
    const usage = usageFromSummary(s.limit, window, at);
    let credit: CreditResult | null = null;
    if (req.credit === 'reserve') {
      credit =
        creditAdmitted === 1
          ? { allowed: true, reservation: member, usage }
          : { allowed: false, retryAfterSeconds: secondsUntilFree(window.freeingMs ?? at, at, CREDIT_WINDOW_MS), usage };
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

  /** The burst verdict from the window after the call. */
  private static burstVerdict(admitted: boolean, w: WindowSummary, at: number): BurstResult {
    if (!admitted) {
      // Refused requests are not recorded, so the window holds exactly BURST_LIMIT: `freeing` is its oldest.
      return {
        allowed: false,
        limit: BURST_LIMIT,
        remaining: 0,
        retryAfterSeconds: secondsUntilFree(w.freeingMs ?? at, at, BURST_WINDOW_MS),
        resetSeconds: secondsUntilFree(w.newestMs ?? at, at, BURST_WINDOW_MS),
      };
    }
    return {
      allowed: true,
      limit: BURST_LIMIT,
      remaining: BURST_LIMIT - w.used,
      retryAfterSeconds: 0,
      resetSeconds: secondsUntilFree(w.oldestMs ?? at, at, BURST_WINDOW_MS),
    };
  }

  async hitBurst(keyId: string, route: string, now: Date): Promise<BurstResult> {
    const reply = await this.call(() =>
      this.redis.clAdmit(`${this.prefix}:burst:${keyId}:${route}`, this.nowArg(now), BURST_WINDOW_MS, BURST_LIMIT, randomUUID()),
    );
    return RedisLimiter.burstVerdict(Number(reply[1]) === 1, RedisLimiter.summary(reply, 2), Number(reply[0]));
  }

  private creditKey(s: CreditSubject): string {
    return `${this.prefix}:credit:${s.billingAccountId}:${s.meterId}`;
  }

  async reserveCredit(subject: CreditSubject, now: Date): Promise<CreditResult> {
    const member = randomUUID();
    const reply = await this.call(() =>
      this.redis.clAdmit(this.creditKey(subject), this.nowArg(now), CREDIT_WINDOW_MS, subject.limit, member),
    );
    const at = Number(reply[0]);
    const window = RedisLimiter.summary(reply, 2);
    const usage = usageFromSummary(subject.limit, window, at);
    if (Number(reply[1]) !== 1) return { allowed: false, retryAfterSeconds: secondsUntilFree(window.freeingMs ?? at, at, CREDIT_WINDOW_MS), usage };
    return { allowed: true, reservation: member, usage };
  }

  async releaseCredit(subject: CreditSubject, reservation: string): Promise<void> {
    await this.call(() => this.redis.zrem(this.creditKey(subject), reservation));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
