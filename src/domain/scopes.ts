/** The eight key scopes (spec section 5). */
export const SCOPES = [
  'READ_ACCOUNTS',
  'READ_BANK',
  'READ_CONTACTS',
  'READ_FORECAST',
  'READ_INVOICES',
  'READ_PURCHASE_ORDERS',
  'READ_SUMMARY',
  'READ_SENSITIVE',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/** Parses `A,B,C` (or `all`) into scopes; throws naming the first unknown one. */
export function parseScopes(list: string): Scope[] {
  const parts = list
    .split(',')
    .map((p) => p.trim().toUpperCase())
    .filter(Boolean);
  if (parts.length === 1 && parts[0] === 'ALL') return [...SCOPES];
  const out: Scope[] = [];
  for (const p of parts) {
    if (!isScope(p)) throw new Error(`unknown scope '${p}' (known: ${SCOPES.join(', ')}, or all)`);
    if (!out.includes(p)) out.push(p);
  }
  if (out.length === 0) throw new Error('at least one scope is needed');
  return out;
}
