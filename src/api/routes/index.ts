/** Every route of the agent API. Each resource registers its own routes. */
import type { ApiApp } from '../context.js';
import { registerStatus } from './status.js';
import { registerOrgs } from './orgs.js';
import { registerLedger } from './ledger.js';
import { registerContacts } from './contacts.js';
import { registerBank } from './bank.js';
import { registerAnalytics } from './analytics.js';
import { registerForecast } from './forecast.js';
import { registerBrief } from './brief.js';

export function registerRoutes(app: ApiApp): void {
  registerStatus(app);
  registerOrgs(app);
  registerLedger(app);
  // The contacts drill (/contacts/{id}) after /contacts/summary, when that is registered.
  registerAnalytics(app);
  registerContacts(app);
  registerBank(app);
  registerForecast(app);
  registerBrief(app);
}
