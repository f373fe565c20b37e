/** Journal lines. */
import type { Db } from '../db.js';
import * as s from '../schema.js';
import type { JournalLineRow } from '../rows.js';
import { upsert, type UpsertSpec } from './upsert.js';

const JOURNAL_LINES: UpsertSpec = {
  table: s.journalLines,
  key: ['journalId', 'id'],
  chunk: 10_000,
};

/** Journal lines (journals are immutable in Xero: a re-import rewrites the same values). */
export async function upsertJournalLines(db: Db, orgId: string, rows: readonly JournalLineRow[]): Promise<number> {
  return (await upsert(db, orgId, JOURNAL_LINES, rows, 'journal lines')).size;
}
