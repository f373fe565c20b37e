#!/usr/bin/env node
/**
 * Runs the given npm scripts side by side (the project's two cores), prints
 * each one's output in one piece when it ends, and fails when any fails.
 * With --stream NAME, that script's output is shown as it comes (the test
 * run's progress) and the others' after it.
 *
 * Usage: node scripts/parallel.mjs [--stream SCRIPT] SCRIPT...
 *   npm run lint: typecheck, deps, knip
 *   npm test: the build first (the tests run dist/), then the tests (streamed) beside typecheck, deps and knip
 */
import { spawn } from 'node:child_process';

const args = process.argv.slice(2);
const streamed = args[0] === '--stream' ? args[1] : undefined;
const scripts = streamed ? [streamed, ...args.slice(2)] : args;
const held = [];
const runs = scripts.map(
  (name) =>
    new Promise((resolve) => {
      const started = performance.now();
      const live = name === streamed;
      const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', live ? 'inherit' : 'pipe', live ? 'inherit' : 'pipe'] });
      const out = [];
      child.stdout?.on('data', (d) => out.push(d));
      child.stderr?.on('data', (d) => out.push(d));
      child.on('close', (code, signal) => {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const report = Buffer.concat([Buffer.from(`> ${name}: ${code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s\n`), ...out]);
        // While the streamed script runs, the others' reports wait for it (so they do not cut through its progress).
        if (streamed && !live) held.push(report);
        else process.stdout.write(report);
        resolve(code === 0);
      });
    }),
);
const results = await Promise.all(runs);
for (const r of held) process.stdout.write(r);
process.exit(results.every(Boolean) ? 0 : 1);
