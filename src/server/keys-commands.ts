/**
 * `cashline-server keys rotate-encryption`: re-seals every stored ledger
 * token under a new key while the service runs (docs/sync.md "Rotating the
 * key").
 * - Embedded store with its key file (no CASHLINE_ENCRYPTION_KEY): a fresh key
 *   becomes the file's current one, the previous ones stay as old; a running
 *   server runs this command itself (ops socket) and its keyrings re-read the
 *   file, so its syncs seal under the new key from then on.
 * - CASHLINE_ENCRYPTION_KEY set (PostgreSQL): the operator has deployed the new
 *   key as CASHLINE_ENCRYPTION_KEY and the old one in
 *   CASHLINE_ENCRYPTION_OLD_KEYS; the command re-seals what is still under
 *   another key.
 * Each row is re-sealed in its own transaction under its row lock (a refresh
 * token saved by a sync meanwhile is never overwritten). Prints
 * `{ keyId, reencrypted, alreadyCurrent, failed }`; exits 1 when a row opens
 * under no held key.
 */
import type { Command } from 'commander';
import { action, type CommandContext, type Io, OperatorError, requireKeyring } from './action.js';
import { loadKeyring, rotateKeyFile, usesKeyFile } from '../ledger/seal.js';
import { rotateEncryption } from '../ledger/tokens.js';

export function keysCommands(program: Command, io: Io): void {
  const keys = program.command('keys').description('the encryption keys that seal the ledger tokens at rest');
  keys
    .command('rotate-encryption')
    .description(
      're-seal every stored ledger token under a new key, while the service runs: on the embedded store a fresh key in the data folder\'s key file; with CASHLINE_ENCRYPTION_KEY, that key (the old one in CASHLINE_ENCRYPTION_OLD_KEYS)',
    )
    .action(action(io, rotate));
}

async function rotate(ctx: CommandContext) {
  const store = await ctx.store();
  let keyring;
  if (usesKeyFile(ctx.config)) {
    rotateKeyFile(ctx.config.CASHLINE_DATA_DIR);
    keyring = loadKeyring(ctx.config);
  } else {
    if (!ctx.config.DATABASE_URL && !ctx.config.CASHLINE_ENCRYPTION_KEY) {
      throw new OperatorError('the in-memory store (CASHLINE_DATA_DIR=memory://) keeps its key for the life of the process: there is nothing to rotate');
    }
    keyring = requireKeyring(ctx);
  }
  const r = await rotateEncryption(store.db, keyring);
  if (r.failed) {
    process.exitCode = 1;
    ctx.io.stderr(
      `error: the ledger tokens of ${r.failed} connection(s) open under no held key (organisations ${r.failedOrgs.join(', ')}): add the key that sealed them to CASHLINE_ENCRYPTION_OLD_KEYS and run again, or reconnect them (cashline-server ledger connect)\n`,
    );
  }
  return { keyId: r.keyId, reencrypted: r.reencrypted, alreadyCurrent: r.alreadyCurrent, failed: r.failed, ...(r.failed ? { failedOrgs: r.failedOrgs } : {}) };
}
