/**
 * `cashline-server status`: the store this configuration reaches and, when
 * DATABASE_REPLICA_URL is set, the read replica as the serving processes see
 * it (docs/scaling.md "Read replica"): its state, where the reads that
 * tolerate staleness go, and its lag, measured now. For operators; agents'
 * GET /status says nothing of it.
 */
import type { Command } from 'commander';
import { action, type Io } from './action.js';

export function statusCommand(program: Command, io: Io): void {
  program
    .command('status')
    .description('the store and the read replica (state, lag, where reads go), measured now')
    .action(
      action(io, async (ctx) => {
        const store = await ctx.store();
        return { store: store.kind, replica: store.replica ? await store.replica.probe() : null };
      }, { replica: true }),
    );
}
