/**
 * Cursors (decisions.md: "Cursors are opaque, tamper-evident (signed) and
 * bound to the organisation, the endpoint and its filters; any other use is
 * 400 invalid_cursor").
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { type CursorContext, decodeCursor, encodeCursor, filtersHash, InvalidCursorError } from '../src/domain/cursor.js';

const secret = Buffer.from('0123456789abcdef0123456789abcdef');
const ctx: CursorContext = { orgId: 'org-1', endpoint: 'invoices', filtersHash: filtersHash({ statuses: ['PAID'], contactId: 'c1' }) };

describe('cursors', () => {
  it('decisions: a cursor round-trips its keyset position and is opaque base64url', () => {
    const c = encodeCursor(secret, ctx, ['2026-01-15', 'inv-42']);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(secret, ctx, c)).toEqual(['2026-01-15', 'inv-42']);
  });

  it('decisions: round-trips any position (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (k, id) => {
        expect(decodeCursor(secret, ctx, encodeCursor(secret, ctx, [k, id]))).toEqual([k, id]);
      }),
    );
  });

  it('decisions: a tampered cursor is invalid_cursor (every single-byte change)', () => {
    const c = encodeCursor(secret, ctx, ['2026-01-15', 'inv-42']);
    const raw = Buffer.from(c, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const t = Buffer.from(raw);
      t[i] = t[i]! ^ 0x01;
      expect(() => decodeCursor(secret, ctx, t.toString('base64url'))).toThrow(InvalidCursorError);
    }
    expect(() => decodeCursor(secret, ctx, c.slice(0, -2))).toThrow(InvalidCursorError);
    expect(() => decodeCursor(secret, ctx, `${c}A`)).toThrow(InvalidCursorError);
  });

  it('decisions: a forged cursor (right shape, own payload) is invalid_cursor', () => {
    const payload = Buffer.from(JSON.stringify(['2099-01-01', 'zzz']));
    const forged = Buffer.concat([Buffer.from([1]), Buffer.alloc(16), payload]).toString('base64url');
    expect(() => decodeCursor(secret, ctx, forged)).toThrow(InvalidCursorError);
  });

  it("decisions: another organisation's cursor is invalid_cursor", () => {
    const c = encodeCursor(secret, { ...ctx, orgId: 'org-2' }, ['2026-01-15', 'inv-42']);
    expect(() => decodeCursor(secret, ctx, c)).toThrow(InvalidCursorError);
  });

  it("decisions: another endpoint's cursor is invalid_cursor", () => {
    const c = encodeCursor(secret, { ...ctx, endpoint: 'bills' }, ['2026-01-15', 'inv-42']);
    expect(() => decodeCursor(secret, ctx, c)).toThrow(InvalidCursorError);
  });

  it('decisions: a cursor used with other filters is invalid_cursor', () => {
    const c = encodeCursor(secret, { ...ctx, filtersHash: filtersHash({ statuses: ['DRAFT'], contactId: 'c1' }) }, ['2026-01-15', 'inv-42']);
    expect(() => decodeCursor(secret, ctx, c)).toThrow(InvalidCursorError);
  });

  it('decisions: a cursor signed with another secret (another deployment) is invalid_cursor', () => {
    const c = encodeCursor(Buffer.from('another-secret-of-32-bytes-xxxxx'), ctx, ['2026-01-15', 'inv-42']);
    expect(() => decodeCursor(secret, ctx, c)).toThrow(InvalidCursorError);
  });

  it('decisions: garbage is invalid_cursor, never a crash', () => {
    for (const junk of ['', '!!!', 'a', 'AAAA', 'x'.repeat(5000), 'eyJ0eXAiOiJKV1QifQ', '%00', 'abc=']) {
      expect(() => decodeCursor(secret, ctx, junk)).toThrow(InvalidCursorError);
    }
    fc.assert(
      fc.property(fc.string(), (junk) => {
        expect(() => decodeCursor(secret, ctx, junk)).toThrow(InvalidCursorError);
      }),
    );
  });

  it('decisions: filters are hashed after normalisation (undefined dropped, key order irrelevant), so equivalent requests share cursors', () => {
    expect(filtersHash({ a: 1, b: undefined, c: ['X', 'Y'] })).toBe(filtersHash({ c: ['X', 'Y'], a: 1 }));
    expect(filtersHash({ statuses: ['PAID'] })).not.toBe(filtersHash({ statuses: ['DRAFT'] }));
    expect(filtersHash({ contactId: 'a' })).not.toBe(filtersHash({ dateFrom: 'a' }));
  });

  it('config: the service secret (CASHLINE_CURSOR_SECRET) may be given as a string; the same bytes verify', () => {
    const c = encodeCursor('a-configured-secret-value', ctx, ['2026-01-15', 'x']);
    expect(decodeCursor(Buffer.from('a-configured-secret-value'), ctx, c)).toEqual(['2026-01-15', 'x']);
    expect(() => decodeCursor('another-configured-secret', ctx, c)).toThrow(InvalidCursorError);
  });
});
