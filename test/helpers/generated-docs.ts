/**
 * A part of a document that a test generates from what it measured or read
 * (the MCP tool table, the backtest's accuracy table): the text between two
 * markers must be what the test wants; with UPDATE_DOCS=1 the test writes it
 * instead of failing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * Checks that `file` holds `wanted` between the lines `start` and `end`
 * (both included in `wanted`); rewrites it there under UPDATE_DOCS=1.
 * `command` is how to regenerate it, for the failure's message.
 */
export function expectGenerated(file: string, start: string, end: string, wanted: string, command: string): void {
  const doc = readFileSync(file, 'utf8');
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  expect(from, `${file} needs the markers ${start} … ${end}`).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThan(from);
  let current = doc.slice(from, to + end.length);
  if (current !== wanted && process.env.UPDATE_DOCS) {
    writeFileSync(file, doc.slice(0, from) + wanted + doc.slice(to + end.length));
    current = wanted;
  }
  expect(current, `${file} is out of date: UPDATE_DOCS=1 ${command}`).toBe(wanted);
}
