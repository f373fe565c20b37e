/**
 * An organisation with demo books, as the forecast tests want one: a small
 * demo business generated at `now`, written as Xero response bodies,
 * imported through the same mapping and writer as a sync, connected and
 * fresh, with the demo's sensitive contacts flagged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestApi } from './http.js';
import { generateDemo, writeXeroFiles } from '../../src/demo/generate.js';
import { importDirectory } from '../../src/ledger/import.js';
import { setContactSensitive } from '../../src/store/tenancy.js';

export async function orgWithDemoBooks(api: TestApi, opts: { name: string; now: Date; seed: number; scale?: number }): Promise<{ orgId: string; sensitiveContactIds: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'cashline-demo-books-'));
  try {
    const demo = generateDemo({ asOf: opts.now, scale: opts.scale ?? 0.2, seed: opts.seed });
    writeXeroFiles(dir, demo.files);
    const orgId = (await api.org({ name: opts.name, plan: 'Reserve' })).orgId;
    await importDirectory(api.store.db, orgId, dir, { now: opts.now });
    await api.ledger(orgId);
    for (const id of demo.sensitive.contactIds) await setContactSensitive(api.store.db, orgId, id, true);
    return { orgId, sensitiveContactIds: demo.sensitive.contactIds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
