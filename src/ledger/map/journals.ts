/** Journals (GET /Journals). */
import type { JournalLineRow } from '../../store/rows.js';
import { parseWith } from '../xero/errors.js';
import { XeroJournal } from '../xero/schemas.js';
import { decimalOf, optDecimalOf, textOf } from '../xero/fields.js';
import type { MapContext } from './shared.js';

/** A journal from GET /Journals: one row per journal line. */
export function mapJournal(raw: unknown, ctx: MapContext): JournalLineRow[] {
  const j = parseWith(XeroJournal, raw);
  return (j.JournalLines ?? []).map((l) => ({
    orgId: ctx.orgId,
    journalId: j.JournalID,
    id: l.JournalLineID,
    journalNumber: j.JournalNumber ?? null,
    journalDate: j.JournalDate,
    accountId: textOf(l.AccountID),
    accountCode: textOf(l.AccountCode),
    netAmount: decimalOf(l.NetAmount),
    taxAmount: optDecimalOf(l.TaxAmount) ?? '0',
    sourceType: textOf(j.SourceType),
    sourceId: textOf(j.SourceID),
  }));
}
