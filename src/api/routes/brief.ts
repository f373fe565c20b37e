/**
 * GET /api/agent/orgs/{orgId}/daily-brief (spec 2.10, 4.7; any valid key):
 * the organisation's latest brief (src/jobs/brief.ts). 403 forbidden when
 * the path names another organisation than the key's (partner keys: any
 * linked client, which the request is metered to); 404 no_brief_yet before
 * the first one. For keys without READ_SENSITIVE the names of contacts and
 * accounts flagged sensitive at the time of the read are rewritten
 * (redactedItemCount). docs/brief.md#redaction.
 */
import { DailyBriefParams, DailyBriefResponse } from '../../schemas/brief.js';
import { ErrorResponse } from '../../schemas/common.js';
import { latestBrief, sensitiveNow } from '../../store/queries/briefs.js';
import { hiddenMentions, redactBrief } from '../../domain/brief/redact.js';
import { slugify } from '../../domain/slug.js';
import type { ApiApp } from '../context.js';
import { ApiError, forbidden } from '../errors.js';
import { agentRoute, withAlerts } from '../route.js';

export const dailyBriefRoute = agentRoute(null, {
  path: '/api/agent/orgs/{orgId}/daily-brief',
  summary: "Today's three-section brief (main driver, risk signal, recommended action)",
  description:
    "The organisation's latest daily brief, regenerated once per UTC day (from 06:00 UTC) by a background worker: rules-based (free tier) or " +
    'LLM-written (premium plans), in the same shape. {orgId} must be the key\'s organisation (403 forbidden otherwise); partner keys may name any linked client. ' +
    '404 no_brief_yet before the first brief. Clients cannot trigger regeneration.',
  request: { params: DailyBriefParams },
  responses: {
    200: { description: 'The latest brief', content: { 'application/json': { schema: DailyBriefResponse } } },
    404: { description: 'no_brief_yet: no brief has been generated for the organisation yet; retry after the next 06:00 UTC run.', content: { 'application/json': { schema: ErrorResponse } } },
  },
});

export function registerBrief(app: ApiApp) {
  return app
    .openapi(dailyBriefRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const auth = c.get('auth');
      if (!auth.org || auth.org.id !== orgId) throw forbidden("The daily brief is only served for the key's own organisation.");
      const db = c.get('db');
      const brief = await latestBrief(db, orgId);
      if (!brief) throw new ApiError(404, 'no_brief_yet', 'No brief has been generated yet; the next one is written after 06:00 UTC.');
      // Redaction is decided now, from the flags as they are at this read (docs/brief.md#redaction).
      const { payload, redacted } = auth.canSeeSensitive
        ? { payload: brief.payload, redacted: 0 }
        : redactBrief(brief.payload, hiddenMentions(brief.payload, brief.mentions, await sensitiveNow(db, orgId), slugify));
      return c.json(
        withAlerts(c, {
          orgId,
          asOfDate: brief.asOfDate,
          generatedAt: brief.generatedAt.toISOString(),
          generatorTier: brief.generatorTier,
          payload,
          redactedItemCount: redacted,
        }),
        200,
      );
    });
}
