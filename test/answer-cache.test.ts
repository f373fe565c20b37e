/**
 * The per-process cache of serialized answers (src/api/answer-cache.ts):
 * bounded by bytes, least recently used out; alerts are spliced per request.
 */
import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../src/api/answer-cache.js';

describe('AnswerCache', () => {
  it('Given a budget, when answers exceed it, then the least recently used go first', () => {
    const cache = new AnswerCache(400);
    cache.set('a', 'x'.repeat(100));
    cache.set('b', 'y'.repeat(100));
    cache.set('c', 'z'.repeat(100));
    expect(cache.get('a')).toBeDefined(); // a is now the most recent
    cache.set('d', 'w'.repeat(100)); // 400: fits
    cache.set('e', 'v'.repeat(100)); // 500: b (least recent) goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('x'.repeat(100));
    expect(cache.size).toBe(4);
  });

  it('Given an answer over a quarter of the budget, when it is set, then it is not kept (one answer never flushes the rest)', () => {
    const cache = new AnswerCache(400);
    cache.set('small', '{}');
    cache.set('huge', 'x'.repeat(101));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBe('{}');
  });

  it('Given the same key again, when it is set, then the byte count replaces the old answer instead of adding to it', () => {
    const cache = new AnswerCache(400);
    for (let i = 0; i < 50; i++) cache.set('k', 'x'.repeat(90));
    cache.set('other', 'y'.repeat(90));
    expect(cache.get('k')).toBeDefined();
    expect(cache.get('other')).toBeDefined();
  });
});
