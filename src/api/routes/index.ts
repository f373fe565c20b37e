/** Every route of the agent API. Each resource registers its own routes. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiApp, AppEnv } from '../context.js';
import { registerStatus } from './status.js';
import { registerOrgs } from './orgs.js';
import { registerLedger } from './ledger.js';
import { registerContacts } from './contacts.js';
import { registerBank } from './bank.js';
import { registerAnalytics } from './analytics.js';
import { registerForecast } from './forecast.js';
import { registerForecastItems } from './forecast-items.js';
import { registerBrief } from './brief.js';
import { registerAged } from './aged.js';
import { registerPortfolio } from './portfolio.js';
import { registerCollections } from './collections.js';
import { registerForecastAccuracy } from './accuracy.js';
import { registerForecastChanges } from './changes.js';

export function registerRoutes(app: ApiApp): void {
  registerStatus(app);
  registerOrgs(app);
  registerLedger(app);
  // The contacts drill (/contacts/{id}) after /contacts/summary, when that is registered.
  registerAnalytics(app);
  registerContacts(app);
  registerBank(app);
  registerForecast(app);
  registerForecastItems(app);
  registerForecastAccuracy(app);
  registerForecastChanges(app);
  registerBrief(app);
  registerAged(app);
  registerPortfolio(app);
  registerCollections(app);
}

type RoutesOf<F extends (app: ApiApp) => unknown> = ReturnType<F> extends OpenAPIHono<AppEnv, infer S> ? S : never;

/**
 * The agent API as a type: every route's path, query and responses, for
 * Hono's typed client (`hc<AgentApp>`), so that a caller cannot send a
 * parameter or read a field that does not exist.
 */
export type AgentApp = OpenAPIHono<
  AppEnv,
  RoutesOf<typeof registerStatus> &
    RoutesOf<typeof registerOrgs> &
    RoutesOf<typeof registerLedger> &
    RoutesOf<typeof registerAnalytics> &
    RoutesOf<typeof registerContacts> &
    RoutesOf<typeof registerBank> &
    RoutesOf<typeof registerForecast> &
    RoutesOf<typeof registerForecastItems> &
    RoutesOf<typeof registerForecastAccuracy> &
    RoutesOf<typeof registerForecastChanges> &
    RoutesOf<typeof registerAged> &
    RoutesOf<typeof registerPortfolio> &
    RoutesOf<typeof registerCollections> &
    RoutesOf<typeof registerBrief>
>;
