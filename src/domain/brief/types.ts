/**
 * The daily brief's payload as plain types (spec 2.10): three sections, each
 * a plain-text headline, a basic-markdown body and refs. `src/schemas/brief.ts`
 * holds the zod schemas that validate it (the rules tier's output, the LLM's
 * answer, the served response) and is checked against these types.
 */
export const HEADLINE_MAX = 80;
export const BODY_MAX = 1200;
export const REFS_MAX = 8;

export type BriefRef =
  | { kind: 'customer'; key: string; displayName: string }
  | { kind: 'category'; key: string; displayName: string }
  | { kind: 'week'; weekNumber: number };

export interface BriefSection {
  headline: string;
  bodyMarkdown: string;
  refs: BriefRef[];
}

export interface DailyBriefPayload {
  mainDriver: BriefSection;
  riskSignal: BriefSection;
  recommendedAction: BriefSection;
}
