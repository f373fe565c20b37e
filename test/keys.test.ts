/**
 * decisions.md "Names": keys `cl_user_<keyprefix>_<secret>` / `cl_partner_…`;
 * secrets from a CSPRNG (at least 128 bits), stored only as a hash; spec 5:
 * comparison must not throw on odd input.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateKey, hashSecret, parseKey, secretMatches, SECRET_LENGTH } from '../src/domain/keys.js';

describe('API keys', () => {
  it('generated keys parse back to their kind, prefix and secret, and the hash matches', () => {
    for (const kind of ['USER', 'PARTNER'] as const) {
      const g = generateKey(kind);
      const p = parseKey(g.key)!;
      expect(p).toMatchObject({ kind, keyPrefix: g.keyPrefix });
      expect(hashSecret(p.secret)).toBe(g.secretHash);
      expect(secretMatches(p.secret, g.secretHash)).toBe(true);
      expect(g.key.startsWith(kind === 'USER' ? 'cl_user_' : 'cl_partner_')).toBe(true);
    }
  });

  it('secrets carry at least 128 bits (40 chars of a 62-letter alphabet = 238 bits)', () => {
    expect(SECRET_LENGTH * Math.log2(62)).toBeGreaterThanOrEqual(128);
  });

  it('property: any presented string is checked without throwing, and only the right secret matches', () => {
    const g = generateKey('USER');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 5000 }), fc.string({ unit: 'grapheme' })), (s) => {
        expect(() => parseKey(s)).not.toThrow();
        expect(secretMatches(s, g.secretHash)).toBe(false);
        expect(secretMatches(s, null)).toBe(false);
        expect(secretMatches(s, 'not-a-hash')).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('malformed tokens do not parse', () => {
    const g = generateKey('USER');
    for (const bad of ['', 'Bearer', g.key + 'x', g.key.slice(0, -1), g.key.replace('cl_user_', 'cl_admin_'), g.key.toUpperCase(), `${g.key}\n`]) {
      expect(parseKey(bad)).toBeNull();
    }
  });

  it('1,000,000 generated keys have no collision: distinct prefixes (the look-up handle) and secrets (issue 8)', () => {
    const N = 1_000_000;
    const prefixes = new Set<string>();
    const secrets = new Set<string>();
    for (let i = 0; i < N; i++) {
      const p = parseKey(generateKey(i % 2 ? 'USER' : 'PARTNER').key)!;
      prefixes.add(p.keyPrefix);
      secrets.add(p.secret);
    }
    expect(prefixes.size).toBe(N);
    expect(secrets.size).toBe(N);
  }, 120_000);
});
