/** Subcommands of `cashline-server` beyond the tenancy directory: filled in as the service grows. */
import type { Command } from 'commander';
import type { Io } from './cli.js';

export function extraCommands(_program: Command, _io: Io): void {}
