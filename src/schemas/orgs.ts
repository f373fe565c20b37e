import { z } from '@hono/zod-openapi';
import { alertFields } from './common.js';

export const OrgListing = z.object({ id: z.string(), name: z.string(), slug: z.string() }).openapi('OrgListing');

export const OrgsResponse = z
  .object({
    keyKind: z.enum(['PARTNER', 'USER']),
    orgs: z.array(OrgListing),
    ...alertFields,
  })
  .openapi('OrgsResponse');
