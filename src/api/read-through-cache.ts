/**
 * What the API keeps in process between requests (the keys: key-cache.ts;
 * the ledger connections' health: ledger-cache.ts): values read through
 * from the store, each kept for a time-to-live (0: off, every look-up
 * reads), at most `maxEntries` (the oldest out first), dropped when told of
 * a change. A read that began before a drop does not keep what it read (it
 * may predate the change).
 */
export class ReadThroughCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  /** Bumped by every drop. */
  private generation = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxEntries = 10_000,
  ) {}

  /** The value of `key`, kept or read (`read`); kept afterwards only when `keep(value)`. */
  protected async through(key: string, read: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    if (this.ttlMs <= 0) return read();
    const e = this.entries.get(key);
    if (e && e.until > this.now()) {
      this.hits++;
      return e.value;
    }
    this.misses++;
    const started = this.generation;
    const value = await read();
    if (keep(value) && started === this.generation) {
      this.entries.delete(key);
      this.entries.set(key, { value, until: this.now() + this.ttlMs });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    } else this.entries.delete(key);
    return value;
  }

  /** `key` changed (null: any may have): forgotten. */
  drop(key: string | null): void {
    this.generation++;
    if (key === null) this.entries.clear();
    else this.entries.delete(key);
  }

  /** The keys kept. */
  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  get size(): number {
    return this.entries.size;
  }
}
