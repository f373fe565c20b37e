#!/usr/bin/env node
import { runCli } from '../cli/main.js';
import { mcpCommand } from '../mcp/command.js';

process.exitCode = await runCli(
  process.argv.slice(2),
  {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    columns: process.stdout.isTTY ? process.stdout.columns : undefined,
  },
  undefined,
  undefined,
  [mcpCommand],
);
