/**
 * The daily brief (spec 2.10 DailyBriefResponse, 4.7): three sections, each a
 * plain-text headline of at most 80 characters, a body in basic markdown
 * (bold and italic only) and refs of kinds customer, category and week. The
 * same schema validates the rules tier's output, the LLM's answer and the
 * served response. docs/brief.md.
 */
import { z } from '@hono/zod-openapi';
import { alertFields, DateOnly, DateTime } from './common.js';
import { OrgId } from './orgs.js';

import { BODY_MAX, HEADLINE_MAX, REFS_MAX } from '../domain/brief/types.js';
import type * as domain from '../domain/brief/types.js';

export { BODY_MAX, HEADLINE_MAX, REFS_MAX };

/** Plain text: one line, no markdown or markup characters. */
export const Headline = z
  .string()
  .min(1)
  .max(HEADLINE_MAX)
  .refine((s) => !/[\n\r*_`#<>[\]]/.test(s), { message: 'a headline is plain text on one line (no markdown)' })
  .openapi({ description: 'Plain text, at most 80 characters.' });

/** Basic markdown: bold and italic only (no links, images, code, headings, lists or HTML). */
export const BodyMarkdown = z
  .string()
  .min(1)
  .max(BODY_MAX)
  .refine((s) => !/[`<>[\]]|^\s*#|^\s*[-+]\s|^\s*\d+\.\s/m.test(s), {
    message: 'the body uses basic markdown only (bold and italic; no links, code, headings, lists or HTML)',
  })
  .openapi({ description: 'Basic markdown: **bold** and *italic* only.' });

const Slug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'a slug (lower-case letters, digits and hyphens)').max(80);

export const BriefRef = z
  .discriminatedUnion('kind', [
    z
      .object({
        kind: z.literal('customer').openapi({ description: 'A customer the section is about.' }),
        key: Slug.openapi({ description: "A slug of the customer's name." }),
        displayName: z.string().min(1).max(200).openapi({ description: "The customer's name (`Sensitive contact` without READ_SENSITIVE when sensitive)." }),
      })
      .strict()
      .openapi('BriefCustomerRef', { description: 'A customer the section names.' }),
    z
      .object({
        kind: z.literal('category').openapi({ description: 'An account category the section is about.' }),
        key: Slug.openapi({ description: "A slug of the account's name." }),
        displayName: z.string().min(1).max(200).openapi({ description: "The account's name (`Sensitive account` without READ_SENSITIVE when sensitive)." }),
      })
      .strict()
      .openapi('BriefCategoryRef', { description: 'An account category the section names.' }),
    z
      .object({
        kind: z.literal('week').openapi({ description: 'A week of the forecast the section is about.' }),
        weekNumber: z.number().int().min(1).max(13).openapi({ description: 'The week, 1-indexed in the 13-week window.' }),
      })
      .strict()
      .openapi('BriefWeekRef', { description: 'A forecast week the section names.' }),
  ])
  .openapi('BriefRef', { description: 'customer and category: a slug and a display name; week: 1-indexed in the 13-week window.' });
export type BriefRef = z.infer<typeof BriefRef>;

export const BriefSection = z
  .object({
    headline: Headline,
    bodyMarkdown: BodyMarkdown,
    refs: z.array(BriefRef).max(REFS_MAX).openapi({ description: 'What the section names: customers, categories, forecast weeks (an empty array is valid).' }),
  })
  .strict()
  .openapi('BriefSection', { description: 'A section of the brief: a headline, a short body and what it refers to.' });
export type BriefSection = z.infer<typeof BriefSection>;

export const DailyBriefPayload = z
  .object({
    mainDriver: BriefSection,
    riskSignal: BriefSection,
    recommendedAction: BriefSection,
  })
  .strict()
  .openapi('DailyBriefPayload', {
    description: 'The three sections of the brief: mainDriver (what is driving cash most right now), riskSignal (the main risk to watch), recommendedAction (the one thing to do next).',
  });
export type DailyBriefPayload = z.infer<typeof DailyBriefPayload>;

/** Compile-time: what the schema accepts is the domain's payload type (a mismatch fails the type-check). */
const agrees = <T>(schema: z.ZodType<T>): z.ZodType<T> => schema;
agrees<domain.DailyBriefPayload>(DailyBriefPayload);

export const GeneratorTier = z.enum(['rules', 'llm']);

export const DailyBriefResponse = z
  .object({
    orgId: z.string().openapi({ description: 'Echoes the path.' }),
    asOfDate: DateOnly.openapi({ description: 'The UTC business day of the brief.' }),
    generatedAt: DateTime.openapi({ description: 'When the brief was generated (once a day, after 06:00 UTC).' }),
    generatorTier: GeneratorTier.openapi({ description: 'rules (every plan) or llm (paid plans); the shape is the same.' }),
    payload: DailyBriefPayload,
    redactedItemCount: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'Sensitive contacts and accounts whose names were rewritten (Sensitive contact / Sensitive account) for a key without READ_SENSITIVE; 0 with it.' }),
    ...alertFields,
  })
  .openapi('DailyBriefResponse', { description: "Today's brief of the organisation." });

export const DailyBriefParams = z.object({
  orgId: OrgId.openapi({ param: { name: 'orgId', in: 'path', required: true }, description: "Must be the key's organisation (partner keys: a linked client organisation)." }),
});
