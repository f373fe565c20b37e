/**
 * Authentication, tenancy and scopes (spec section 5, decisions.md).
 * - `authenticateKey`: every failure to authenticate is the same 401 with a
 *   byte-identical body (missing, malformed of any length or bytes, unknown
 *   prefix, wrong secret, revoked, wrong kind), so keys cannot be probed. The
 *   secret is hashed and compared in constant time even for unknown prefixes.
 * - `tenancy`: USER keys read their own organisation and may name it
 *   (X-Service-Org-Id or ?orgId) but no other (403 forbidden). PARTNER keys
 *   name a linked client organisation per request (400 org_required when
 *   absent, except on /status, /orgs and /portfolio; 403 forbidden when not
 *   linked). Partner-only endpoints (/portfolio) refuse user keys (403 forbidden).
 * - `requireScope(scope)`: 403 insufficient_scope.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Db } from '../store/db.js';
import { keyByPrefix, linkedOrgWithBilling, orgWithBilling } from '../store/queries/auth.js';
import { parseKey, secretMatches } from '../domain/keys.js';
import { isScope, type Scope } from '../domain/scopes.js';
import { OrgId } from '../schemas/orgs.js';
import { badRequest, forbidden, insufficientScope, orgRequired, unauthorized } from './errors.js';
import type { AppEnv, AuthContext, BillingRow, KeyIdentity, OrgRow } from './context.js';
import type { KeyCache } from './key-cache.js';

/** Endpoints that need no organisation (partner keys may call them without one). */
export const ORG_OPTIONAL = new Set(['/api/agent/status', '/api/agent/orgs', '/api/agent/portfolio']);

/** Endpoints for partner keys only: a user key is 403 forbidden at tenancy (before scope and credits). */
export const PARTNER_ONLY = new Set(['/api/agent/portfolio']);

// One token of the RFC 6750 b64token alphabet after "Bearer" (scheme case-insensitive).
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** What authentication found: the key, and for a user key its organisation and billing account (one query). */
export interface Authenticated {
  key: KeyIdentity;
  org: OrgRow | null;
  billing: BillingRow | null;
}

/** Verifies `Authorization: Bearer <key>`; throws the one 401 otherwise. `keys`: the process's key cache (none: read every time). */
export async function authenticateKey(db: Db, authorization: string | undefined, keys?: KeyCache): Promise<Authenticated> {
  const m = authorization && authorization.length <= 1024 ? BEARER.exec(authorization) : null;
  const parsed = m ? parseKey(m[1]!) : null;
  const found = parsed ? await (keys ? keys.lookup(db, parsed.keyPrefix) : keyByPrefix(db, parsed.keyPrefix)) : undefined;
  const row = found?.key;
  // Always run the comparison (against a dummy digest when the prefix is unknown).
  const matches = secretMatches(parsed?.secret ?? '', row?.secretHash ?? null);
  if (!parsed || !row || !matches || row.revokedAt !== null || row.kind !== parsed.kind) throw unauthorized();
  const scopes = row.scopes.filter(isScope) as Scope[];
  return {
    key: {
      keyId: row.id,
      keyPrefix: row.keyPrefix,
      kind: row.kind as 'USER' | 'PARTNER',
      scopes,
      keyName: row.name,
      keyCreatedAt: row.createdAt,
      keyOrgId: row.orgId,
      userId: row.userId,
      partnerId: row.partnerId,
      canSeeSensitive: scopes.includes('READ_SENSITIVE'),
    },
    org: found?.org ?? null,
    billing: found?.billing ?? null,
  };
}

/** Middleware: sets `key`, or answers the one 401. */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const a = await authenticateKey(c.get('db'), c.req.header('authorization'), c.get('deps').keys);
  c.set('key', a.key);
  c.set('keyOrg', a.org ? { org: a.org, billing: a.billing } : null);
  await next();
};

/**
 * The organisation a request names: header X-Service-Org-Id, else query
 * orgId, else the path's {orgId}. A malformed value is a 400 naming it.
 */
export function requestedOrg(c: Context<AppEnv>, route: string): string | null {
  const header = c.req.header('x-service-org-id');
  if (header !== undefined && header.trim() !== '') return validOrgId('X-Service-Org-Id', header.trim());
  const query = c.req.query('orgId');
  if (query !== undefined && query.trim() !== '') return validOrgId('orgId', query.trim());
  if (route.includes(':orgId')) {
    const pattern = new RegExp(`^${route.replace(/:orgId/, '([^/]+)').replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    const m = pattern.exec(c.req.path);
    if (m) {
      try {
        return decodeURIComponent(m[1]!);
      } catch {
        throw badRequest('orgId', 'not a valid path segment');
      }
    }
  }
  return null;
}

function validOrgId(parameter: string, value: string): string {
  const r = OrgId.safeParse(value);
  if (!r.success) throw badRequest(parameter, r.error.issues[0]?.message ?? 'not an organisation id');
  return value;
}

/**
 * Resolves the target organisation of an authenticated key (see the module
 * comment). `own` is a user key's organisation as authentication read it.
 */
export async function resolveTenancy(
  db: Db,
  key: KeyIdentity,
  requested: string | null,
  route: string,
  own: { org: OrgRow; billing: BillingRow | null } | null = null,
): Promise<AuthContext> {
  let target: { org: OrgRow; billing: BillingRow | null } | null;
  if (key.kind === 'USER') {
    if (PARTNER_ONLY.has(route)) {
      throw forbidden('This endpoint is for partner (advisor) keys: it reads every client organisation of the practice. A user key reads its own organisation (e.g. /cash-position, /forecast, /receivables/aged).');
    }
    // The daily brief compares its path organisation itself (403 there, spec 5.7).
    if (requested && requested !== key.keyOrgId && !route.includes(':orgId')) {
      throw forbidden('This key is bound to another organisation.');
    }
    target = own ?? (key.keyOrgId ? await orgWithBilling(db, key.keyOrgId) : null);
    if (!target) throw unauthorized(); // a user key bound to a vanished organisation
  } else if (!requested) {
    if (!ORG_OPTIONAL.has(route)) throw orgRequired();
    target = null;
  } else {
    target = key.partnerId ? await linkedOrgWithBilling(db, key.partnerId, requested) : null;
    if (!target) throw forbidden('The organisation is not linked to this partner practice.');
  }
  return {
    ...key,
    orgId: target?.org.id ?? null,
    org: target?.org ?? null,
    billing: target?.billing ?? null,
    meterId: key.kind === 'PARTNER' ? `partner:${key.partnerId}` : (key.userId ?? `key:${key.keyId}`),
  };
}

/** Middleware: sets `auth` (the key with its target organisation), or refuses (400/403). */
export const tenancy: MiddlewareHandler<AppEnv> = async (c, next) => {
  const route = c.get('route');
  c.set('auth', await resolveTenancy(c.get('db'), c.get('key'), requestedOrg(c, route), route, c.get('keyOrg')));
  await next();
};

/** Middleware: 403 insufficient_scope unless the key carries every scope the route needs (none: any valid key). */
export function requireScope(scopes: readonly Scope[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const missing = scopes.find((s) => !c.get('key').scopes.includes(s));
    if (missing) throw insufficientScope(missing);
    await next();
  };
}
