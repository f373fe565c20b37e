/**
 * The key look-up cache (issue 21; docs/api.md#key-cache): a verified key's
 * row, with its organisation and billing account, kept in process for
 * CASHLINE_KEY_CACHE_SECONDS (default 5; 0: off), so that a key calling
 * steadily costs one look-up per interval, not one per request. The secret
 * is still checked on every request (a hash and a constant-time compare).
 * Only keys that exist are kept (an unknown prefix is looked up every time:
 * nothing to fill the cache with). A revocation drops the key at once in
 * this process and, on PostgreSQL, in every other one within milliseconds
 * (LISTEN/NOTIFY, store/key-revocations.ts; behind a transaction pooler
 * without a direct connection, a poll every second); were that channel lost, the
 * cache is emptied and every entry lives at most its time-to-live, which is
 * the stated bound. Changes to the organisation or its billing account (a
 * plan, a time zone) reach a cached key within the same bound.
 */
import { keyByPrefix } from '../store/queries/auth.js';
import type { Db } from '../store/db.js';

type Found = NonNullable<Awaited<ReturnType<typeof keyByPrefix>>>;

/** At most this many keys are kept (the oldest out first). */
const MAX_KEYS = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { found: Found; until: number }>();
  /** Bumped by every drop and clear: a look-up that began before one does not keep what it read (it may predate the revocation). */
  private generation = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly ttlMs: number, private readonly now: () => number = () => performance.now()) {}

  /** The key of this prefix (cached or read), or undefined. */
  async lookup(db: Db, prefix: string): Promise<Found | undefined> {
    if (this.ttlMs <= 0) return keyByPrefix(db, prefix);
    const e = this.entries.get(prefix);
    if (e && e.until > this.now()) {
      this.hits++;
      return e.found;
    }
    this.misses++;
    const started = this.generation;
    const found = await keyByPrefix(db, prefix);
    if (found && found.key.revokedAt === null && started === this.generation) {
      this.entries.delete(prefix);
      this.entries.set(prefix, { found, until: this.now() + this.ttlMs });
      if (this.entries.size > MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
    } else this.entries.delete(prefix);
    return found;
  }

  /** A key was revoked. */
  drop(prefix: string): void {
    this.generation++;
    this.entries.delete(prefix);
  }

  /** Revocations may have been missed (the channel was lost): forget every key. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** The prefixes of the keys kept (the revocations' poll asks about these). */
  prefixes(): IterableIterator<string> {
    return this.entries.keys();
  }

  get size(): number {
    return this.entries.size;
  }
}
