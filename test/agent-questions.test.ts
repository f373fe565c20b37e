/**
 * The questions owners, bookkeepers and advisors ask (issue 19), replayed
 * through an MCP client (the SDK's Client, connected to Cashline's MCP
 * server, which calls the HTTP API) against the demo: each question is
 * answered in at most three calls, none of them an error, each answer within
 * 25,000 tokens (characters / 4), its typed structuredContent the same as its
 * text, and every figure the answer quotes present verbatim in the responses.
 *
 * docs/agent-questions.md is what this replay prints: the test fails when the
 * document differs from it. After a change that moves the demo's figures,
 * rewrite it with `CASHLINE_WRITE_DOCS=1 npx vitest run test/agent-questions.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { TestApi } from './helpers/http.js';
import { startDemoApi } from './helpers/demo-books.js';
import { NOW } from './helpers/ledger.js';
import { QUESTIONS, type Call, type Question } from './helpers/agent-questions.js';
import { DEMO_ORGS } from '../src/server/demo.js';
import { buildMcpServer } from '../src/mcp/server.js';

const DOC = new URL('../docs/agent-questions.md', import.meta.url);
const BUDGET_TOKENS = 25_000;

interface Replayed {
  question: Question;
  calls: Call[];
  texts: string[];
  tokens: number[];
  answer: string;
}

function render(replayed: Replayed[], orgName: string): string {
  const lines = [
    '# Questions owners ask, and the calls that answer them',
    '',
    `Each question below is answered with at most three MCP tool calls (the same as the HTTP API's GET endpoints, \`cashline\` commands likewise). The answers are those of the demo (\`npm start\`; the organisation ${orgName}, on ${NOW.toISOString().slice(0, 10)}), as \`test/agent-questions.test.ts\` replays them through an MCP client: it checks that every call succeeds, that each answer fits in 25,000 tokens, and that every figure quoted below appears in the responses. This page is the replay's output (rewrite it with \`CASHLINE_WRITE_DOCS=1 npx vitest run test/agent-questions.test.ts\`).`,
    '',
    'Tokens are characters / 4 of the text a tool returns (its JSON), the budget of common agent hosts.',
    '',
  ];
  const groups = [['owner', 'An owner asks'], ['bookkeeper', 'A bookkeeper asks'], ['advisor', 'An advisor asks']] as const;
  let n = 0;
  for (const [who, title] of groups) {
    lines.push(`## ${title}`, '');
    for (const r of replayed.filter((x) => x.question.who === who)) {
      n++;
      lines.push(`### ${n}. ${r.question.q}`, '');
      if (r.question.key === 'partner') lines.push("With the advisor practice's partner key (the demo's third key).", '');
      r.calls.forEach((c, i) => lines.push(`${i + 1}. \`${c.tool}\` ${Object.keys(c.args).length ? `\`${JSON.stringify(c.args)}\`` : '(no arguments)'} (${r.tokens[i]} tokens)`));
      lines.push('', `**Answer on the demo:** ${r.answer}`, '');
    }
  }
  return lines.join('\n');
}

describe('the questions owners ask, replayed through the MCP client on the demo (issue 19)', () => {
  let api: TestApi;
  let client: Client;
  let partner: Client;
  let replayed: Replayed[] = [];

  beforeAll(async () => {
    // The demo as setupDemo leaves it, set up once per run (helpers/fixtures.ts).
    const { api: a, demo } = await startDemoApi('pglite', NOW);
    api = a;
    const connect = async (key: string) => {
      const server = buildMcpServer({ baseUrl: api.url }, key);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      const c = new Client({ name: 'questions', version: '1' });
      await c.connect(b);
      return c;
    };
    client = await connect(demo.keys.full);
    partner = await connect(demo.keys.partner);
  }, 300_000);
  afterAll(async () => {
    await client?.close();
    await partner?.close();
    await api?.close();
  });

  it(`at least 40 questions, each answered in at most three calls within the budget, every quoted figure in the responses`, async () => {
    replayed = [];
    for (const question of QUESTIONS) {
      expect(question.steps.length, question.q).toBeLessThanOrEqual(3);
      const results: unknown[] = [];
      const calls: Call[] = [];
      const texts: string[] = [];
      const tokens: number[] = [];
      for (const step of question.steps) {
        const c = step(results);
        calls.push(c);
        const r = await (question.key === 'partner' ? partner : client).callTool({ name: c.tool, arguments: c.args });
        const text = (r.content as { type: string; text?: string }[]).map((x) => x.text ?? '').join('\n');
        expect(r.isError, `${question.q}: ${c.tool} ${JSON.stringify(c.args)}: ${text.slice(0, 300)}`).toBeFalsy();
        const json = (r.content as { type: string; text?: string }[]).at(-1)!.text!;
        const body = JSON.parse(json) as unknown;
        if (r.structuredContent !== undefined) expect(r.structuredContent, `${c.tool}: structuredContent is the JSON text`).toEqual(body);
        results.push(body);
        texts.push(text);
        tokens.push(Math.ceil(text.length / 4));
        // Keep clear of the burst cap (60 a minute per key and endpoint).
        api.clock.advance(1_000);
      }
      for (const t of tokens) expect(t, `${question.q}: an answer over ${BUDGET_TOKENS} tokens`).toBeLessThanOrEqual(BUDGET_TOKENS);
      const answer = question.answer(results);
      for (const e of answer.evidence) {
        expect(typeof e === 'string' && e !== '', `${question.q}: a quoted figure is missing (${String(e)})`).toBe(true);
        expect(texts.some((t) => t.includes(JSON.stringify(e!).slice(1, -1))), `${question.q}: '${e}' is not in the responses`).toBe(true);
      }
      replayed.push({ question, calls, texts, tokens, answer: answer.text });
    }
    const doc = render(replayed, DEMO_ORGS[0].name);
    if (process.env.CASHLINE_WRITE_DOCS === '1') writeFileSync(DOC, doc);
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(40);
    expect(readFileSync(DOC, 'utf8'), 'docs/agent-questions.md is not what the replay prints (see the header of this test)').toBe(doc);
  }, 300_000);
});
