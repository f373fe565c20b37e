/** Invoices, bills, credit notes, overpayments and prepayments, with their lines, allocations and payments. */
import { sql } from 'drizzle-orm';
import { type Db, rows as queryRows } from '../db.js';
import * as s from '../schema.js';
import type { AllocationRow, AppliedCreditRow, CashItemLineRow, MappedCashItem } from '../rows.js';
import { checkOrg, chunks, LINE_CHUNK, newestById } from './common.js';
import { upsertPayments } from './payments-bank.js';
import { deleteChildren, insertRows } from './unnest.js';
import { upsert, type UpsertSpec } from './upsert.js';

const CASH_ITEMS: UpsertSpec = {
  table: s.cashItems,
  key: ['id'],
  // A record without FullyPaidOnDate is not (or no longer) fully paid.
  modes: { paidDate: 'set' },
  guard: 'ledgerUpdatedAt',
  // Items are written (with their lines) this many at a time.
  chunk: 1000,
};

export interface CashItemsWritten {
  items: number;
  lines: number;
  payments: number;
  allocations: number;
}

/**
 * Invoices, bills and credit notes with what they carry: an upserted item's
 * lines are replaced when the record carries lines; a credit note's
 * allocations are replaced when it carries them; embedded payments are merged
 * (upsertPayments) and credits applied to invoices are added to the notes'
 * allocations unless already there. An item older than the stored one is
 * left alone, with all it carries.
 */
export async function upsertCashItems(
  db: Db,
  orgId: string,
  items: readonly MappedCashItem[],
  onProgress?: (done: number, total: number) => void,
): Promise<CashItemsWritten> {
  const out: CashItemsWritten = { items: 0, lines: 0, payments: 0, allocations: 0 };
  checkOrg(orgId, items.map((i) => i.item), 'cash items');
  const unique = newestById(items, (m) => m.item.id, (m) => m.item.ledgerUpdatedAt);
  let done = 0;
  for (const part of chunks(unique, CASH_ITEMS.chunk)) {
    const written = await upsert(db, orgId, CASH_ITEMS, part.map((m) => m.item), 'cash items');
    out.items += written.size;
    const mine = part.filter((m) => written.has(m.item.id));
    const withLines = mine.filter((m) => m.lines !== null);
    if (withLines.length) {
      await deleteChildren(db, orgId, s.cashItemLines, 'itemId', withLines.map((m) => m.item.id));
      // In key order: the primary key's b-tree fills page by page.
      withLines.sort((a, b) => (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0));
      const lines: CashItemLineRow[] = withLines.flatMap((m) => m.lines!);
      out.lines += await insertRows(db, orgId, s.cashItemLines, lines, LINE_CHUNK, 'cash item lines');
    }
    const withAllocations = mine.filter((m) => m.allocations !== null);
    if (withAllocations.length) {
      await deleteChildren(db, orgId, s.creditNoteAllocations, 'creditNoteId', withAllocations.map((m) => m.item.id));
      const allocations: AllocationRow[] = withAllocations.flatMap((m) => m.allocations!);
      out.allocations += await insertRows(db, orgId, s.creditNoteAllocations, allocations, LINE_CHUNK, 'allocations');
    }
    out.allocations += await mergeAppliedCredits(db, orgId, mine.flatMap((m) => m.appliedCredits));
    out.payments += await upsertPayments(db, orgId, mine.flatMap((m) => m.payments));
    done += part.length;
    onProgress?.(done, unique.length);
  }
  return out;
}

/**
 * Credits applied to invoices, seen from the invoices: added to the credit
 * note's allocations (after its last seq) unless an allocation of the same
 * amount to the same invoice is already stored. (The date is not compared:
 * an invoice may report the note's date rather than the allocation's.) The
 * note's own Allocations, when imported, replace these.
 */
export async function mergeAppliedCredits(db: Db, orgId: string, rows: readonly AppliedCreditRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  checkOrg(orgId, rows, 'applied credits');
  let n = 0;
  for (const part of chunks(rows, LINE_CHUNK)) {
    const json = JSON.stringify(
      part.map((r, i) => ({
        ord: i,
        credit_note_id: r.creditNoteId,
        invoice_id: r.invoiceId ?? null,
        invoice_number: r.invoiceNumber ?? null,
        amount: r.amount,
        date: r.date ?? null,
      })),
    );
    const res = await queryRows<{ n: number }>(
      db,
      sql`with ins as (
        insert into credit_note_allocations (org_id, credit_note_id, seq, invoice_id, invoice_number, amount, date)
        select ${orgId}, x.credit_note_id,
          coalesce((select max(a.seq) from credit_note_allocations a where a.org_id = ${orgId} and a.credit_note_id = x.credit_note_id), -1)
            + row_number() over (partition by x.credit_note_id order by x.ord),
          x.invoice_id, x.invoice_number, x.amount, x.date
        from json_to_recordset(${json}::json) as x(ord int, credit_note_id text, invoice_id text, invoice_number text, amount numeric, date date)
        where not exists (
          select 1 from credit_note_allocations a
          where a.org_id = ${orgId} and a.credit_note_id = x.credit_note_id
            and a.invoice_id is not distinct from x.invoice_id and a.amount = x.amount)
        returning 1)
      select count(*)::int as n from ins`,
    );
    n += Number(res[0]?.n ?? 0);
  }
  return n;
}
