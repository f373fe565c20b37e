/**
 * Authentication and tenancy (spec section 5, decisions.md).
 * - Every failure to authenticate is the same 401 (missing, malformed,
 *   unknown prefix, wrong secret, revoked), so key prefixes cannot be probed.
 * - USER keys are bound to their organisation; they may name it
 *   (X-Service-Org-Id or ?orgId) but no other (403 forbidden).
 * - PARTNER keys name the client organisation per request; it must be linked
 *   to the practice (403 forbidden), and is required (400 org_required) except
 *   on /status and /orgs.
 */
import type { Context } from 'hono';
import type { Db } from '../store/db.js';
import { findKeyByPrefix, getBillingAccount, getOrg, isPartnerLinked } from '../store/tenancy.js';
import { parseKey, secretMatches } from '../domain/keys.js';
import { isScope, type Scope } from '../domain/scopes.js';
import { ApiError, forbidden, unauthorized } from './errors.js';
import type { AppEnv, AuthContext } from './context.js';

/** Endpoints that need no organisation (partner keys may call them without one). */
export const ORG_OPTIONAL = new Set(['/api/agent/status', '/api/agent/orgs']);

export async function authenticate(db: Db, authorization: string | undefined): Promise<Omit<AuthContext, 'orgId' | 'org' | 'billing' | 'meterId'>> {
  const m = authorization ? /^Bearer ([^\s]+)$/i.exec(authorization) : null;
  const parsed = m ? parseKey(m[1]!) : null;
  const row = parsed ? await findKeyByPrefix(db, parsed.keyPrefix) : null;
  // Always run the comparison (against a dummy hash when the prefix is unknown).
  const matches = secretMatches(parsed?.secret ?? '', row?.secretHash ?? null);
  if (!parsed || !row || !matches || row.revokedAt !== null || row.kind !== parsed.kind) throw unauthorized();
  const scopes = row.scopes.filter(isScope) as Scope[];
  return {
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
  };
}

/** The organisation a request names: header X-Service-Org-Id, else query orgId, else the path's {orgId}. */
export function requestedOrg(c: Context<AppEnv>, route: string): string | null {
  const header = c.req.header('x-service-org-id')?.trim();
  if (header) return header;
  const query = c.req.query('orgId')?.trim();
  if (query) return query;
  if (route.includes(':orgId')) {
    const pattern = new RegExp(`^${route.replace(/:orgId/, '([^/]+)').replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    const m = pattern.exec(c.req.path);
    if (m) return decodeURIComponent(m[1]!);
  }
  return null;
}

export async function resolveTenancy(
  db: Db,
  key: Omit<AuthContext, 'orgId' | 'org' | 'billing' | 'meterId'>,
  requested: string | null,
  route: string,
): Promise<AuthContext> {
  let orgId: string | null;
  if (key.kind === 'USER') {
    orgId = key.keyOrgId;
    // The daily brief compares the path's organisation itself (403 there).
    if (requested && requested !== orgId && !route.includes(':orgId')) {
      throw forbidden('This key is bound to another organisation.');
    }
  } else {
    if (!requested) {
      if (!ORG_OPTIONAL.has(route)) {
        throw new ApiError(400, 'org_required', 'Partner keys must name the organisation: header X-Service-Org-Id (or query orgId).', {
          parameter: 'X-Service-Org-Id',
        });
      }
      orgId = null;
    } else {
      if (!(await isPartnerLinked(db, key.partnerId!, requested))) {
        throw forbidden('The organisation is not linked to this partner practice.');
      }
      orgId = requested;
    }
  }
  const org = orgId ? await getOrg(db, orgId) : null;
  if (orgId && !org) throw unauthorized(); // a key bound to a vanished organisation
  const billing = org ? await getBillingAccount(db, org.billingAccountId) : null;
  return {
    ...key,
    orgId,
    org,
    billing,
    meterId: key.kind === 'PARTNER' ? `partner:${key.partnerId}` : (key.userId ?? `key:${key.keyId}`),
  };
}
