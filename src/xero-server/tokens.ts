/**
 * The token store of the Xero-compatible server: grants (what one consent
 * gave one client: scopes, tenants and their connections) and the access and
 * refresh tokens issued under them, expired and revoked.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export interface Grant {
  accessToken: string;
  /** '' when the grant has no offline_access (Xero issues no refresh token then). */
  refreshToken: string;
  expiresIn: number;
  scopes: string[];
}

/** One tenant a grant authorised: GET /connections lists it, DELETE /connections/{id} removes it. */
export interface Connection {
  id: string;
  tenantId: string;
  createdAt: Date;
}

/** What one consent (or `issueGrant`) gave: its tokens share it, so revoking it revokes them all. */
export interface GrantRecord {
  id: string;
  clientId: string;
  scopes: string[];
  /** The tenants still authorised, with their connection ids (stable for the grant's life). */
  connections: Connection[];
  /** Identifies the connections authorised together (Xero's authEventId). */
  authEventId: string;
  revoked: boolean;
  /** The refresh token issued last ('' without offline_access). */
  refreshToken: string;
  /** Long-lived grants (the server's writeToken) are left alone by the bulk expire/revoke controls. */
  longLived: boolean;
}

export interface TokenInfo {
  expiresAt: number;
  revoked: boolean;
  grant: GrantRecord;
}

export interface GrantRequest {
  clientId: string;
  scopes: string[];
  tenantIds: string[];
  /** Access token lifetime; default the store's. */
  ttlS?: number;
  longLived?: boolean;
}

/** A connection id that stays the same for a (grant, tenant) pair, shaped as a UUID. */
function connectionId(grantId: string, tenantId: string): string {
  const h = createHash('sha256').update(`${grantId}:${tenantId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export class TokenStore {
  private readonly access = new Map<string, TokenInfo>();
  private readonly refresh = new Map<string, TokenInfo>();
  readonly grants: GrantRecord[] = [];
  private readonly ttlS: number;
  private readonly refreshTtlS: number;

  constructor(ttlS: number, refreshTtlS: number) {
    this.ttlS = ttlS;
    this.refreshTtlS = refreshTtlS;
  }

  /** A new grant and its first tokens (a refresh token only with offline_access). */
  createGrant(req: GrantRequest): { grant: GrantRecord; tokens: Grant } {
    const id = randomUUID();
    const now = new Date();
    const grant: GrantRecord = {
      id,
      clientId: req.clientId,
      scopes: [...req.scopes],
      connections: [...new Set(req.tenantIds)].map((tenantId) => ({ id: connectionId(id, tenantId), tenantId, createdAt: now })),
      authEventId: randomUUID(),
      revoked: false,
      refreshToken: '',
      longLived: req.longLived ?? false,
    };
    this.grants.push(grant);
    return { grant, tokens: this.issueTokens(grant, req.ttlS) };
  }

  /** Fresh tokens under a grant (a refresh, or the code exchange). */
  issueTokens(grant: GrantRecord, ttlS = this.ttlS): Grant {
    const accessToken = `xat_${randomBytes(24).toString('hex')}`;
    this.access.set(accessToken, { expiresAt: Date.now() + ttlS * 1000, revoked: false, grant });
    let refreshToken = '';
    if (grant.scopes.includes('offline_access')) {
      refreshToken = `xrt_${randomBytes(24).toString('hex')}`;
      this.refresh.set(refreshToken, { expiresAt: Date.now() + this.refreshTtlS * 1000, revoked: false, grant });
      grant.refreshToken = refreshToken;
    }
    return { accessToken, refreshToken, expiresIn: ttlS, scopes: [...grant.scopes] };
  }

  /** The access token's state; revoked when its grant is. */
  accessInfo(token: string | null): TokenInfo | undefined {
    const info = token ? this.access.get(token) : undefined;
    return info && { ...info, revoked: info.revoked || info.grant.revoked };
  }

  /** The refresh token's live record (the caller shortens its expiry on rotation); revoked when its grant is. */
  refreshInfo(token: string): TokenInfo | undefined {
    const info = this.refresh.get(token);
    if (info && info.grant.revoked) info.revoked = true;
    return info;
  }

  /** Revokes the grant: its refresh tokens and every access token issued under it. */
  revokeGrant(grant: GrantRecord): void {
    grant.revoked = true;
  }

  expireAccessTokens(): void {
    for (const t of this.access.values()) if (!t.grant.longLived) t.expiresAt = Math.min(t.expiresAt, Date.now() - 1);
  }

  revokeTokens(): void {
    for (const g of this.grants) if (!g.longLived) g.revoked = true;
  }

  expireRefreshTokens(): void {
    for (const t of this.refresh.values()) t.expiresAt = Math.min(t.expiresAt, Date.now() - 1);
  }
}
