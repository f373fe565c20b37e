/**
 * The lists' `q` search (docs/lists.md#q): a case- and accent-insensitive
 * substring match (a prefix is a substring), answered by the trigram indexes
 * of migration 0012_search on `cashline_search_fold(column)`. Both sides are
 * folded by that one SQL function, so what a row's text and the search text
 * become can never disagree.
 *
 * A document matches by its own fields or by its contact's name. The
 * contacts a search names are looked up first (`namedContacts`, one indexed
 * query) and the documents' query takes them as one bound array: planned as
 * a constant, `contact_id = any(...)` is then an index condition beside the
 * documents' own trigram conditions (one bitmap scan for the OR) and, when
 * the planner scans instead, a hashed look-up per row rather than a walk
 * through the list.
 *
 * Sensitive contacts: a caller without READ_SENSITIVE must not learn that a
 * contact's real name exists, not even through totalCount or
 * redactedItemCount. So for such a caller (`gate`) the name of a sensitive
 * contact is never searched; its documents still match by their own number
 * or reference (and are then withheld and counted, as any gated row).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';

/** `q` as a LIKE pattern: its own %, _ and \ taken literally, folded, between wildcards. */
export function searchPattern(q: string): SQL {
  const literal = q.replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql`('%' || cashline_search_fold(${literal}) || '%')`;
}

/** The folded column contains the pattern (the index expression of migration 0012_search). */
export function folded(col: SQL, pattern: SQL): SQL {
  return sql`cashline_search_fold(${col}) like ${pattern}`;
}

/** The ids of the organisation's contacts whose name contains `q`; with `gate`, sensitive contacts are left out. */
export async function namedContacts(db: Db, orgId: string, q: string, gate: boolean): Promise<string[]> {
  const found = await rows<{ id: string }>(
    db,
    sql`select c.id from contacts c where c.org_id = ${orgId} and ${folded(sql`c.name`, searchPattern(q))}${gate ? sql` and not c.is_sensitive` : sql``}`,
  );
  return found.map((r) => r.id);
}

/**
 * A document search: any of its own columns contains `q`, or its contact is
 * one of `named` (from namedContacts). Parenthesised, ready to AND.
 */
export function documentSearch(q: string, own: readonly SQL[], contactCol: SQL, named: readonly string[]): SQL {
  const p = searchPattern(q);
  const arms = own.map((col) => folded(col, p));
  if (named.length > 0) arms.push(sql`${contactCol} = any(${arrayLiteral(named)}::text[])`);
  return sql`(${sql.join(arms, sql` or `)})`;
}

/** A PostgreSQL array literal of text values ({"a","b"}), bound as one parameter. */
function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}
