/**
 * The daily brief's premium tier (docs/brief.md): one OpenAI-compatible chat
 * completions call (CASHLINE_LLM_BASE_URL/…/chat/completions), asked for JSON
 * in the DailyBriefPayload shape, validated with the same schema as the
 * rules tier's output, plus checks that its refs name only what the facts
 * hold. Any failure (HTTP, timeout, size, invalid JSON or shape, unknown refs,
 * a sensitive name) is an LlmBriefError: the job falls back to the rules
 * tier for that day and logs why.
 *
 * The facts given to the model are pseudonymised first (`forModel`): every
 * sensitive contact and account becomes "Sensitive contact N" / "Sensitive
 * account N", so sensitive names never reach the model.
 */
import { DailyBriefPayload } from '../schemas/brief.js';
import type { BriefFacts } from '../domain/brief/rules.js';

export interface LlmConfig {
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  timeoutMs?: number;
  maxBytes?: number;
}

export class LlmBriefError extends Error {
  constructor(
    readonly reason: 'http' | 'timeout' | 'network' | 'too_large' | 'not_json' | 'invalid_shape' | 'unknown_ref' | 'sensitive_name',
    message: string,
  ) {
    super(message);
    this.name = 'LlmBriefError';
  }
}

/** Replaces every sensitive name with a pseudonym, in the structured facts and in the notes' text. */
export function forModel(f: BriefFacts, sensitiveNames: readonly string[]): BriefFacts {
  const contacts = new Map<string, string>();
  const accounts = new Map<string, string>();
  const pseudo = (map: Map<string, string>, kind: 'contact' | 'account', key: string) => {
    let p = map.get(key);
    if (!p) {
      p = `${map.size + 1}`;
      map.set(key, p);
    }
    return { name: `Sensitive ${kind} ${p}`, key: `sensitive-${kind}-${p}` };
  };
  const scrub = (text: string) => {
    let out = text;
    for (const n of [...sensitiveNames].sort((a, b) => b.length - a.length)) if (n) out = out.split(n).join('a sensitive party');
    return out;
  };
  return {
    ...f,
    orgName: f.orgName,
    forecast: f.forecast && {
      ...f.forecast,
      categories: f.forecast.categories.map((c) => (c.sensitive ? { ...c, ...pseudo(accounts, 'account', c.key) } : c)),
    },
    overdue: f.overdue.map((d) => (d.sensitive ? { ...d, ...pseudo(contacts, 'contact', d.key) } : d)),
    ...(f.collect ? { collect: f.collect.sensitive ? { ...f.collect, ...pseudo(contacts, 'contact', f.collect.key) } : f.collect } : {}),
    // A note's contact is for read-time redaction, not for the model: the model reads the scrubbed text only.
    notes: f.notes.map(({ contact: _named, ...n }) => ({ ...n, text: scrub(n.text) })),
  };
}

const SYSTEM = [
  'You write a daily cash brief for the owner of a small business.',
  'Answer with one JSON object and nothing else, of this shape:',
  '{"mainDriver": S, "riskSignal": S, "recommendedAction": S} where each S is',
  '{"headline": string (plain text, at most 80 characters, no markdown), "bodyMarkdown": string (1-3 sentences; only **bold** and *italic*; no links, lists, headings or code), "refs": [R]}',
  'and each R is {"kind":"customer","key":K,"displayName":N} or {"kind":"category","key":K,"displayName":N} or {"kind":"week","weekNumber":1-13},',
  'using only the keys and names given in the facts (customers: overdue[].key/name and collect.key/name; categories: forecast.categories[].key/name; weeks: forecast.weeks[].n).',
  'mainDriver: what moves cash most over the 13 weeks. riskSignal: the most important risk. recommendedAction: one concrete action (when collect is given: collecting that invoice lifts the lowest week by collect.lift).',
  'forecast.shortfall.probability is the chance cash goes below forecast.shortfall.threshold in the 13 weeks; forecast.weeks[].closingP10 is the week\'s closing cash in 1 future in 10 (the lower end of its 80% band); forecast.shortfall.cushion90, when given, is the cash that keeps 9 futures in 10 above the threshold in every week: how much to have ready when a shortfall is likely (else the largest gap between the threshold and a week\'s closingP10).',
  'Amounts are in the currency given; quote them as given, never invent figures.',
].join('\n');

/**
 * A connection that fails before any answer (a pooled keep-alive socket the provider closed at the
 * moment it was reused, a reset) is tried once more on a fresh one, within the same deadline: one
 * transient drop should not cost a premium organisation its written brief for the day. A timeout
 * or any HTTP answer, good or bad, is final.
 */
async function fetchOnceMore(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if (init.signal?.aborted) throw err;
    return fetch(url, init);
  }
}

/** `fetch failed` says nothing; its cause (ECONNRESET, ECONNREFUSED, "other side closed") does. */
function withCause(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message} (${cause})` : e.message;
}

export async function llmBrief(facts: BriefFacts, cfg: LlmConfig, sensitiveNames: readonly string[] = []): Promise<DailyBriefPayload> {
  const timeoutMs = cfg.timeoutMs ?? 20_000;
  const maxBytes = cfg.maxBytes ?? 1024 * 1024;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  let text: string;
  try {
    let res: Response;
    try {
      res = await fetchOnceMore(`${cfg.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        redirect: 'error',
        signal: ac.signal,
        headers: { 'content-type': 'application/json', ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
        body: JSON.stringify({
          model: cfg.model,
          temperature: 0.2,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: `Facts (JSON):\n${JSON.stringify(facts)}` },
          ],
        }),
      });
    } catch (err) {
      throw ac.signal.aborted ? new LlmBriefError('timeout', `no answer within ${timeoutMs} ms`) : new LlmBriefError('network', withCause(err));
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new LlmBriefError('http', `HTTP ${res.status}`);
    }
    try {
      const buf = await res.arrayBuffer();
      if (buf.byteLength > maxBytes) throw new LlmBriefError('too_large', `answer of ${buf.byteLength} bytes`);
      text = new TextDecoder().decode(buf);
    } catch (err) {
      if (err instanceof LlmBriefError) throw err;
      throw ac.signal.aborted ? new LlmBriefError('timeout', `the answer did not arrive within ${timeoutMs} ms`) : new LlmBriefError('network', (err as Error).message);
    }
  } finally {
    clearTimeout(timer);
  }
  let content: unknown;
  try {
    const body = JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] };
    content = body.choices?.[0]?.message?.content;
  } catch {
    throw new LlmBriefError('not_json', 'the chat completions answer is not JSON');
  }
  if (typeof content !== 'string') throw new LlmBriefError('invalid_shape', 'no choices[0].message.content');
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, ''));
  } catch {
    throw new LlmBriefError('not_json', 'the model did not answer with JSON');
  }
  const r = DailyBriefPayload.safeParse(parsed);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new LlmBriefError('invalid_shape', `${i?.path.join('.') || 'answer'}: ${i?.message ?? 'invalid'}`);
  }
  checkRefs(r.data, facts);
  const all = JSON.stringify(r.data);
  for (const n of sensitiveNames) if (n && all.includes(n)) throw new LlmBriefError('sensitive_name', 'the answer names a sensitive contact or account');
  return r.data;
}

/** Refs must name what the facts hold (no invented customers, categories or weeks). */
function checkRefs(p: DailyBriefPayload, f: BriefFacts): void {
  const customers = new Set([...f.overdue.map((d) => d.key), ...(f.collect ? [f.collect.key] : [])]);
  const categories = new Set(f.forecast?.categories.map((c) => c.key) ?? []);
  const weeks = f.forecast?.weeks.length ?? 0;
  for (const [name, s] of Object.entries(p)) {
    for (const ref of s.refs) {
      const ok =
        ref.kind === 'customer' ? customers.has(ref.key) : ref.kind === 'category' ? categories.has(ref.key) : ref.weekNumber <= weeks;
      if (!ok) throw new LlmBriefError('unknown_ref', `${name}.refs: ${JSON.stringify(ref)} is not in the facts`);
    }
  }
}
