/**
 * Organisations: the OrgsResponse of spec 2.10 (orgs[] {id, name, slug} per
 * decisions.md) and the organisation selector every agent endpoint accepts
 * (header X-Service-Org-Id, or query orgId; decisions.md "Partner keys").
 */
import { z } from '@hono/zod-openapi';
import { alertFields } from './common.js';

export const OrgListing = z
  .object({
    id: z.string().openapi({ description: 'Organisation id: pass it as orgId (or X-Service-Org-Id) with a partner key.' }),
    name: z.string().openapi({ description: "The organisation's name." }),
    slug: z.string().openapi({ description: 'A short, URL-safe form of the name.' }),
  })
  .openapi('OrgListing', { description: 'An organisation this key can read.' });

export const OrgsResponse = z
  .object({
    keyKind: z.enum(['PARTNER', 'USER']).openapi({ description: 'USER: a key bound to one organisation. PARTNER: an advisory practice key.' }),
    orgs: z.array(OrgListing).openapi({
      description:
        "Sorted by name. For a partner key, the practice's linked client organisations; for a user key, the organisations its creator belongs to.",
    }),
    ...alertFields,
  })
  .openapi('OrgsResponse');

/** An organisation id as a request may name it: 1-128 characters of letters, digits, `-`, `_`, `.`, `:`. */
export const OrgId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be an organisation id (letters, digits, -, _, ., :; at most 128)');

const ORG_SELECTOR_NOTE =
  'The organisation this request reads. Partner keys must name one of the practice\'s linked organisations ' +
  '(400 org_required when absent, except on /status and /orgs; 403 forbidden when not linked). ' +
  'A user key is bound to its organisation and may name only that one (403 forbidden otherwise).';

/** Header X-Service-Org-Id (documented on every agent endpoint; the tenancy middleware reads it). */
export const OrgIdHeader = OrgId.optional().openapi({
  param: { name: 'X-Service-Org-Id', in: 'header', required: false },
  description: `${ORG_SELECTOR_NOTE} Takes precedence over the query parameter orgId.`,
  example: '00000000-0000-4000-8000-000000000d01',
});

/** Query orgId: the same selector as X-Service-Org-Id, for clients that cannot set headers. */
export const OrgIdQuery = OrgId.optional().openapi({
  param: { name: 'orgId', in: 'query', required: false },
  description: `${ORG_SELECTOR_NOTE} Used when the X-Service-Org-Id header is absent.`,
});

/** Header X-Service-Tool (spec 5.6): recorded in the audit log when it matches ^service\.[a-z_]+$, otherwise ignored. */
export const ToolHeader = z
  .string()
  .optional()
  .openapi({
    param: { name: 'X-Service-Tool', in: 'header', required: false },
    description:
      'Name of the calling tool, recorded in the audit log when it matches ^service\\.[a-z_]+$; other values are silently ignored. ' +
      'Never changes counting.',
    example: 'service.cli_status',
  });
