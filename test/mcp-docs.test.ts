/**
 * docs/mcp.md's tool table is generated from the endpoint catalogue: this
 * test renders it and compares it with the one between the markers, so the
 * guide lists exactly the tools the server serves, with their arguments.
 * After changing the catalogue, regenerate it:
 *
 *   UPDATE_DOCS=1 npx vitest run test/mcp-docs.test.ts
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, paramsOf, toolName, type Endpoint } from '../src/schemas/endpoints.js';
import { expectGenerated } from './helpers/generated-docs.js';

const DOC = resolve(import.meta.dirname, '..', 'docs', 'mcp.md');
const START = '<!-- tools:start (generated from src/schemas/endpoints.ts by test/mcp-docs.test.ts) -->';
const END = '<!-- tools:end -->';

const cell = (s: string) => s.replaceAll('|', '\\|');

/** One row per tool: its name, what it answers (the catalogue's summary, CLI flags left out), its arguments. */
function toolTable(catalogue: readonly Endpoint[]): string {
  const rows = catalogue.map((e) => {
    const args = [
      ...(e.id ? [e.id.defaultsToOrg ? '`id` (default: the organisation)' : '`id` (required)'] : []),
      ...paramsOf(e).map((p) => {
        const toolDefault = e.toolDefaults?.[p.name];
        return `\`${p.name}\`${toolDefault !== undefined ? ` (default here: \`${toolDefault}\`)` : p.required ? ' (required)' : ''}`;
      }),
    ];
    const what = e.summary.replace(/\s*\([^)]*--[a-z][^)]*\)/g, '');
    return `| \`${toolName(e)}\` | ${cell(what)} | ${args.length ? args.join(', ') : '-'} |`;
  });
  return [START, '', '| tool | what it answers | arguments (besides `orgId`) |', '|---|---|---|', ...rows, '', END].join('\n');
}

describe('docs/mcp.md', () => {
  it('its tool table is the catalogue (UPDATE_DOCS=1 regenerates it)', () => {
    const current = toolTable(ENDPOINTS);
    expectGenerated(DOC, START, END, current, 'npx vitest run test/mcp-docs.test.ts');
    for (const e of ENDPOINTS) expect(current).toContain(`| \`${toolName(e)}\` |`);
  });

  it('the worked conversation calls only tools that exist, with arguments they take', () => {
    const doc = readFileSync(DOC, 'utf8');
    const calls = [...doc.matchAll(/^→ `(\w+)` `(\{.*\})`/gm)];
    expect(calls.length).toBeGreaterThan(2);
    for (const [, name, args] of calls) {
      const e = ENDPOINTS.find((x) => toolName(x) === name);
      expect(e, name).toBeDefined();
      const known = new Set(['orgId', ...(e!.id ? ['id'] : []), ...paramsOf(e!).map((p) => p.name)]);
      for (const k of Object.keys(JSON.parse(args!) as object)) expect(known, `${name}: ${k}`).toContain(k);
    }
  });
});
