/** Subcommands of `cashline-server` that run the ledger and the service. */
import type { Command } from 'commander';
import { action, type Io, OperatorError } from './cli.js';
import { importDirectory } from '../ledger/import.js';
import { requireOrg } from '../store/tenancy.js';
import { progressPrinter } from './progress.js';

export function extraCommands(program: Command, io: Io): void {
  program
    .command('import')
    .description('import Xero Accounting API response bodies from a folder (idempotent; all or nothing)')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--dir <dir>', 'folder of Organisation.json, Contacts.json, Invoices.json, …')
    .action(
      action(io, async (ctx, opts: { org: string; dir: string }) => {
        const store = await ctx.store();
        await requireOrg(store.db, opts.org);
        const progress = progressPrinter(io, 'import');
        try {
          const summary = await importDirectory(store.db, opts.org, opts.dir, {
            now: ctx.config.clock.now(),
            onProgress: (e) => progress(e.resource, e.done, e.total),
          });
          return summary;
        } catch (err) {
          if (err instanceof Error && err.name === 'ImportError') throw new OperatorError(err.message);
          throw err;
        } finally {
          progress.done();
        }
      }),
    );
}
