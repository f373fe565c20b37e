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
import { ReadThroughCache } from './read-through-cache.js';

type Found = Awaited<ReturnType<typeof keyByPrefix>>;

export class KeyCache extends ReadThroughCache<Found> {
  /** The key of this prefix (cached or read), or undefined; only keys that exist and are not revoked are kept. */
  lookup(db: Db, prefix: string): Promise<Found> {
    return this.through(prefix, () => keyByPrefix(db, prefix), (found) => found !== undefined && found.key.revokedAt === null);
  }

  /** Revocations may have been missed (the channel was lost): forget every key. */
  clear(): void {
    this.drop(null);
  }

  /** The prefixes of the keys kept (the revocations' poll asks about these). */
  prefixes(): IterableIterator<string> {
    return this.keys();
  }
}
