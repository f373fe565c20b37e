/**
 * `cashline-server`: runs the service and its operations. The subcommands and
 * flags are fixed by decisions.md ("Operations interface"): each prints JSON
 * on stdout and exits 0 on success, or prints `error: <message>` on stderr and
 * exits non-zero. Progress of long work goes to stderr.
 */
import { Command, CommanderError } from 'commander';
import { type Config, loadConfig } from '../config.js';
import { openStore } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { tenancyCommands } from './tenancy-commands.js';
import { serveCommands, workerCommand } from './serve-commands.js';
import { ledgerCommands, recomputeCommand } from './ledger-commands.js';
import { forecastCommands } from './forecast-commands.js';
import { xeroServerCommand } from './xero-server-command.js';
import { keysCommands } from './keys-commands.js';
import { statusCommand } from './status-command.js';
import { forwardToServer, isServingCommand, liveServerSocket } from './ops-socket.js';
import { action, describeError, type Io, processIo, storeOptions } from './action.js';

export function buildProgram(io: Io = processIo): Command {
  const program = new Command('cashline-server')
    .description('Cashline service and operations. Every command prints JSON on success.')
    .showHelpAfterError()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: (s, write) => write(s) })
    .exitOverride();

  migrateCommand(program, io);
  tenancyCommands(program, io);
  serveCommands(program, io);
  ledgerCommands(program, io);
  workerCommand(program, io);
  recomputeCommand(program, io);
  forecastCommands(program, io);
  xeroServerCommand(program, io);
  keysCommands(program, io);
  statusCommand(program, io);

  return program;
}

/** `migrate`: apply the store migrations (idempotent). */
function migrateCommand(program: Command, io: Io): void {
  program
    .command('migrate')
    .description('apply the store migrations (idempotent)')
    .action(
      action(io, async (ctx) => {
        const config = ctx.config;
        if (io.sharedStore) return { ...(await migrate(io.sharedStore.db)), store: io.sharedStore.kind };
        const store = await openStore(storeOptions(config));
        try {
          const r = await migrate(store.db);
          return { ...r, store: store.kind };
        } finally {
          await store.close();
        }
      }),
    );
}

export async function main(argv: string[], io: Io = processIo): Promise<void> {
  // The embedded store held by a live server: the server runs the command (ops-socket.ts).
  const socket = io.sharedStore ? null : serverSocketFor(argv, io.env);
  if (socket) {
    try {
      const code = await forwardToServer(socket, argv, io);
      if (code !== 0) process.exitCode = code;
    } catch (err) {
      process.exitCode = 1;
      io.stderr(`error: ${describeError(err)}\n`);
    }
    return;
  }
  const program = buildProgram({ ...io, program: main });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode !== 0) process.exitCode = err.exitCode || 1;
      return;
    }
    process.exitCode = 1;
    io.stderr(`error: ${describeError(err)}\n`);
  }
}

function serverSocketFor(argv: string[], env: NodeJS.ProcessEnv): string | null {
  if (isServingCommand(argv) || argv.length === 0 || argv.some((a) => a === '--help' || a === '-h' || a === '-V' || a === '--version')) return null;
  let config: Config;
  try {
    config = loadConfig(env);
  } catch {
    return null; // the command reports the configuration error itself
  }
  if (config.DATABASE_URL) return null; // PostgreSQL is shared by any number of processes
  return liveServerSocket(config.CASHLINE_DATA_DIR);
}
