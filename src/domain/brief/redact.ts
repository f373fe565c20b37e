/**
 * Redaction of the daily brief, decided at read time (docs/brief.md#redaction).
 *
 * When a brief is written, every contact or account whose name it shows (in a
 * ref, a headline or a body) is recorded as a *mention*, with its id. When it
 * is read by a key without READ_SENSITIVE, the mentions whose contact or
 * account is flagged sensitive *now* are rewritten, exactly as lists rename
 * them ("Sensitive contact", "Sensitive account"), and counted in
 * redactedItemCount. A flag set after the brief was written therefore hides
 * the name from the next read on, and clearing it shows the name again.
 *
 * Names are matched as whole words (not inside a longer word), so that a
 * sensitive contact called "Ace" does not rewrite "Acer Traders".
 * Pure: no I/O.
 */
import type { BriefRef, BriefSection, DailyBriefPayload } from './types.js';
import { SENSITIVE_ACCOUNT, SENSITIVE_CONTACT } from '../sensitive.js';
import { cleanName, fitHeadline } from './rules.js';

export type MentionKind = 'customer' | 'category';

/** A contact (customer) or account (category) a brief names. */
export interface BriefMention {
  kind: MentionKind;
  /**
   * The contact's or account's id. Null only on briefs stored before mentions
   * were recorded: their entries are the names that were sensitive when the
   * brief was written, and stay hidden.
   */
  id: string | null;
  /** The slug refs use for it. */
  key: string;
  /** The name as the brief shows it (cleaned of markdown). */
  displayName: string;
}

/** A contact or account of the organisation that a brief might name. */
export interface NameCandidate {
  kind: MentionKind;
  id: string;
  name: string;
}

/** Which of the organisation's contacts and accounts are flagged sensitive at the time of the read. */
export interface SensitiveNow {
  contactIds: ReadonlySet<string>;
  accountIds: ReadonlySet<string>;
  /** Their names, for text that names them without a recorded mention (briefs stored before mentions, renamed parties). */
  names: readonly { kind: MentionKind; name: string }[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `name` as a whole word: not preceded or followed by a letter or digit. */
function wordPattern(name: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escape(name)}(?![\\p{L}\\p{N}])`, 'gu');
}

function sectionTexts(payload: DailyBriefPayload): string[] {
  return [payload.mainDriver, payload.riskSignal, payload.recommendedAction].flatMap((s) => [
    s.headline,
    s.bodyMarkdown,
    ...s.refs.flatMap((r) => (r.kind === 'week' ? [] : [r.displayName])),
  ]);
}

/** The key of the ref that shows `name` as a `kind`, if any. */
function refKey(kind: MentionKind, name: string, refs: readonly BriefRef[]): string | null {
  for (const r of refs) if (r.kind === kind && r.displayName === name) return r.key;
  return null;
}

/**
 * The mentions of a brief: each candidate whose (cleaned) name it shows as a
 * whole word or as a ref's display name. Written with the brief.
 */
export function findMentions(payload: DailyBriefPayload, candidates: readonly NameCandidate[], slugify: (name: string) => string): BriefMention[] {
  const texts = sectionTexts(payload);
  const all = texts.join('\n');
  const refs = [payload.mainDriver, payload.riskSignal, payload.recommendedAction].flatMap((s) => s.refs);
  const out: BriefMention[] = [];
  for (const c of candidates) {
    const name = cleanName(c.name);
    if (name === 'Unnamed' || !all.includes(name)) continue; // cheap filter before the regex
    if (!texts.some((t) => wordPattern(name).test(t))) continue;
    out.push({ kind: c.kind, id: c.id, key: refKey(c.kind, name, refs) ?? slugify(name), displayName: name });
  }
  return out;
}

/**
 * The mentions a key without READ_SENSITIVE must not see now: those whose
 * contact or account is sensitive now, legacy entries without an id, and any
 * name of a party sensitive now that the brief shows without a mention.
 */
export function hiddenMentions(payload: DailyBriefPayload, mentions: readonly BriefMention[], now: SensitiveNow, slugify: (name: string) => string): BriefMention[] {
  const hidden = mentions.filter((m) => m.id === null || (m.kind === 'customer' ? now.contactIds : now.accountIds).has(m.id));
  const named = new Set(hidden.map((m) => m.displayName));
  const texts = sectionTexts(payload);
  for (const { kind, name } of now.names) {
    const n = cleanName(name);
    if (n === 'Unnamed' || named.has(n) || !texts.some((t) => wordPattern(n).test(t))) continue;
    hidden.push({ kind, id: null, key: slugify(n), displayName: n });
    named.add(n);
  }
  return hidden;
}

const label = (m: BriefMention) => (m.kind === 'category' ? SENSITIVE_ACCOUNT : SENSITIVE_CONTACT);

/**
 * The payload with the hidden mentions' names rewritten (text and refs), and
 * how many distinct parties were rewritten (redactedItemCount).
 */
export function redactBrief(payload: DailyBriefPayload, hidden: readonly BriefMention[]): { payload: DailyBriefPayload; redacted: number } {
  if (!hidden.length) return { payload, redacted: 0 };
  // Longest names first, so that "Acme Holdings" is rewritten before "Acme".
  const order = [...hidden].sort((a, b) => b.displayName.length - a.displayName.length);
  const patterns = order.map((m) => [m, wordPattern(m.displayName)] as const);
  const used = new Set<string>();
  const rewrite = (text: string) => {
    let out = text;
    for (const [m, re] of patterns) {
      const next = out.replace(re, label(m));
      if (next !== out) used.add(m.displayName);
      out = next;
    }
    return out;
  };
  const fix = (sec: BriefSection): BriefSection => ({
    headline: fitHeadline(rewrite(sec.headline)),
    bodyMarkdown: rewrite(sec.bodyMarkdown),
    refs: sec.refs.map((ref) => {
      if (ref.kind === 'week') return ref;
      const m = order.find((x) => x.kind === ref.kind && x.key === ref.key) ?? order.find((x) => x.displayName === ref.displayName);
      if (!m) return ref;
      used.add(m.displayName);
      return { kind: ref.kind, key: m.kind === 'category' ? 'sensitive-account' : 'sensitive-contact', displayName: label(m) };
    }),
  });
  const out = { mainDriver: fix(payload.mainDriver), riskSignal: fix(payload.riskSignal), recommendedAction: fix(payload.recommendedAction) };
  return { payload: out, redacted: used.size };
}
