/** The token store of the Xero-compatible server: access and refresh tokens, issued, expired and revoked. */
import { randomBytes } from 'node:crypto';

export interface Grant {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

interface TokenInfo {
  expiresAt: number;
  revoked: boolean;
}

export class TokenStore {
  private readonly access = new Map<string, TokenInfo>();
  private readonly refresh = new Map<string, TokenInfo>();
  private readonly ttlS: number;
  private readonly refreshTtlS: number;

  constructor(ttlS: number, refreshTtlS: number) {
    this.ttlS = ttlS;
    this.refreshTtlS = refreshTtlS;
  }

  /** A fresh access token (valid `ttlS`) and refresh token (valid `refreshTtlS` unused). */
  issueGrant(): Grant {
    const accessToken = `xat_${randomBytes(24).toString('hex')}`;
    const refreshToken = `xrt_${randomBytes(24).toString('hex')}`;
    this.access.set(accessToken, { expiresAt: Date.now() + this.ttlS * 1000, revoked: false });
    this.refresh.set(refreshToken, { expiresAt: Date.now() + this.refreshTtlS * 1000, revoked: false });
    return { accessToken, refreshToken, expiresIn: this.ttlS };
  }

  accessInfo(token: string | null): TokenInfo | undefined {
    return token ? this.access.get(token) : undefined;
  }

  refreshInfo(token: string): TokenInfo | undefined {
    return this.refresh.get(token);
  }

  expireAccessTokens(): void {
    for (const t of this.access.values()) t.expiresAt = Math.min(t.expiresAt, Date.now() - 1);
  }

  revokeTokens(): void {
    for (const t of this.access.values()) t.revoked = true;
    for (const t of this.refresh.values()) t.revoked = true;
  }

  expireRefreshTokens(): void {
    for (const t of this.refresh.values()) t.expiresAt = Math.min(t.expiresAt, Date.now() - 1);
  }
}
