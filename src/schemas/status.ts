/**
 * StatusResponse (spec 2.10) with the sub-objects decisions.md fixes:
 * subscription {status, plan, trialEndsAt, trialDaysRemaining},
 * quota {limit, used, remaining, resetAt}, usage (spec 2.10 / 8),
 * key {keyPrefix, kind, name, scopes, orgId, createdAt}.
 */
import { z } from '@hono/zod-openapi';
import { alertFields, DateTime } from './common.js';
import { SCOPES } from '../domain/scopes.js';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled', 'trial_ended'] as const;

export const Subscription = z
  .object({
    status: z.enum(SUBSCRIPTION_STATUSES).openapi({ description: 'The subscription status (also the X-Service-Subscription header).' }),
    plan: z.string().openapi({
      description:
        'Plan display name: Free, Pocket, Wallet, Vault or Reserve. `Partner` for a partner key that names no organisation (the practice itself is not billed).',
    }),
    trialEndsAt: DateTime.nullable().openapi({ description: 'When the trial ends; null unless trialing.' }),
    trialDaysRemaining: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Whole days left of the trial, rounded up; null unless trialing.' }),
  })
  .openapi('Subscription', {
    description: 'The subscription of the billing account that owns the target organisation.',
  });

export const Quota = z
  .object({
    limit: z.number().int().openapi({ description: "The plan's 5-hour credits x 24/5 (0 when the request targets no organisation)." }),
    used: z.number().int().openapi({ description: "The organisation's charged calls since 00:00 UTC." }),
    remaining: z.number().int().openapi({ description: 'limit minus used, never below 0 (the legacy X-Service-Quota-Remaining header).' }),
    resetAt: DateTime.openapi({ description: 'The next 00:00 UTC.' }),
  })
  .openapi('Quota', {
    description:
      'Legacy per-organisation daily bucket, retained for backward compatibility; informational only (it never refuses a call). Prefer usage.',
  });

export const UsageBlock = z
  .object({
    remaining: z.number().int().openapi({ description: 'Query credits left in the rolling 5-hour window.' }),
    nextCreditInMinutes: z
      .number()
      .int()
      .openapi({ description: 'Minutes (rounded up) until the first credit frees; 0 when a credit is available now.' }),
    fullResetInMinutes: z
      .number()
      .int()
      .openapi({ description: 'Minutes (rounded up) until every credit is back; 0 for an empty window.' }),
    windowResetAt: DateTime.openapi({ description: 'When the window fully empties (the current instant when it is empty).' }),
  })
  .openapi('Usage', {
    description:
      "Rolling 5-hour query-credit window of the key's (user, billing account of the target organisation). Partner keys are metered as the practice.",
  });

export const KeyInfo = z
  .object({
    keyPrefix: z.string().openapi({ description: 'The public part of the key (`cl_user_<keyPrefix>_…`): how to name it to an operator; never the secret.' }),
    kind: z.enum(['USER', 'PARTNER']).openapi({ description: 'USER: bound to one organisation. PARTNER: an advisory practice key reaching every linked client organisation.' }),
    name: z.string().openapi({ description: 'The name the key was given when it was created.' }),
    scopes: z.array(z.enum(SCOPES)).openapi({ description: 'What the key may read; each endpoint needs one scope (READ_SENSITIVE lifts the masking of sensitive contacts and accounts).' }),
    orgId: z.string().nullable().openapi({ description: 'The target organisation of this request (null for a partner key that names none).' }),
    createdAt: DateTime.openapi({ description: 'When the key was created.' }),
  })
  .openapi('KeyInfo', { description: 'The key that made this request.' });

export const StatusResponse = z
  .object({
    subscription: Subscription,
    quota: Quota,
    usage: UsageBlock.nullable().openapi({
      description: 'Null when the request targets no organisation (partner key without one) or the organisation has no billing account.',
    }),
    key: KeyInfo,
    environment: z.enum(['dev', 'prod']).openapi({ description: 'Which deployment answered: dev or prod.' }),
    ...alertFields,
  })
  .openapi('StatusResponse');
