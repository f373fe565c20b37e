/**
 * How a route is declared: `agentRoute(scope, config)` wraps `createRoute`
 * (so the OpenAPI document comes from the same zod schemas that validate the
 * request and type the response), adds the bearer security and the common
 * error responses, and records the endpoint's scope so that the pipeline can
 * check it before spending any credit.
 */
import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Scope } from '../domain/scopes.js';
import { commonErrorResponses } from '../schemas/common.js';
import type { AppEnv } from './context.js';

/** Endpoint template (Hono form, /api/agent/contacts/:id) -> required scope (null: any valid key). */
export const ROUTE_SCOPES = new Map<string, Scope | null>();

export const AGENT_PREFIX = '/api/agent';

export function honoPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ':$1');
}

export function agentRoute<const R extends Omit<RouteConfig, 'method'>>(scope: Scope | null, config: R) {
  ROUTE_SCOPES.set(honoPath(config.path), scope);
  return createRoute({
    ...config,
    method: 'get',
    security: [{ bearerAuth: [] }],
    description: `${config.description ?? ''}${config.description ? '\n\n' : ''}Scope: ${scope ?? 'any valid key'}.`,
    responses: { ...commonErrorResponses, ...config.responses },
  } as R & { method: 'get' });
}

/** A successful body with the envelope's alerts folded in (spec 2.1). */
export function withAlerts<T extends object>(c: Context<AppEnv>, body: T): T {
  const env = c.get('envelope');
  return {
    ...body,
    ...(env?.billingAlert ? { billingAlert: env.billingAlert } : {}),
    ...(env?.ledgerAlert ? { ledgerAlert: env.ledgerAlert } : {}),
  };
}
