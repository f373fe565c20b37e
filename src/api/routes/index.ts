/** Every route of the agent API. Each resource registers its own routes. */
import type { ApiApp } from '../context.js';
import { registerStatus } from './status.js';
import { registerOrgs } from './orgs.js';

export function registerRoutes(app: ApiApp): void {
  registerStatus(app);
  registerOrgs(app);
}
