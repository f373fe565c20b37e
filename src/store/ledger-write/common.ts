/** What every ledger writer shares: its error, the organisation check, chunking and the newest version of each record. */

export class LedgerWriteError extends Error {}

export function checkOrg(orgId: string, rows: ReadonlyArray<{ orgId: string }>, what: string): void {
  for (const r of rows) {
    if (r.orgId !== orgId) throw new LedgerWriteError(`${what}: a row of organisation ${r.orgId} in a write for ${orgId}`);
  }
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One entry per id: the newest by `updated` (ties: the later one). */
export function newestById<T>(items: readonly T[], idOf: (t: T) => string, updated: (t: T) => Date | null | undefined): T[] {
  const byId = new Map<string, T>();
  for (const it of items) {
    const prev = byId.get(idOf(it));
    if (prev) {
      const a = updated(prev)?.getTime() ?? -Infinity;
      const b = updated(it)?.getTime() ?? -Infinity;
      if (b < a) continue;
      byId.delete(idOf(it)); // keep the order of the latest occurrence
    }
    byId.set(idOf(it), it);
  }
  return [...byId.values()];
}

/** Rows per statement of the children (lines, allocations) inserted after their parents. */
export const LINE_CHUNK = 20_000;
