import { z } from '@hono/zod-openapi';
import { alertFields, DateTime } from './common.js';
import { SCOPES } from '../domain/scopes.js';

export const Subscription = z
  .object({
    status: z.enum(['trialing', 'active', 'past_due', 'canceled', 'trial_ended']),
    plan: z.string(),
    trialEndsAt: DateTime.nullable(),
    trialDaysRemaining: z.number().int().nullable(),
  })
  .openapi('Subscription');

export const Quota = z
  .object({
    limit: z.number().int(),
    used: z.number().int(),
    remaining: z.number().int(),
    resetAt: DateTime,
  })
  .openapi('Quota', { description: 'Legacy per-organisation daily bucket (prefer usage).' });

export const UsageBlock = z
  .object({
    remaining: z.number().int(),
    nextCreditInMinutes: z.number().int(),
    fullResetInMinutes: z.number().int(),
    windowResetAt: DateTime,
  })
  .openapi('Usage', { description: "Rolling 5-hour query-credit window of the key's (user, billing account of the target organisation)." });

export const KeyInfo = z
  .object({
    keyPrefix: z.string(),
    kind: z.enum(['USER', 'PARTNER']),
    name: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    orgId: z.string().nullable(),
    createdAt: DateTime,
  })
  .openapi('KeyInfo');

export const StatusResponse = z
  .object({
    subscription: Subscription.nullable(),
    quota: Quota.nullable(),
    usage: UsageBlock.nullable().optional(),
    key: KeyInfo,
    environment: z.enum(['dev', 'prod']),
    ...alertFields,
  })
  .openapi('StatusResponse');
