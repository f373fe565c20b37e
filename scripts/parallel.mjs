#!/usr/bin/env node
/**
 * Runs the given npm scripts side by side (the project's two cores: the
 * type-check and the build are a tsc each), prints each one's output in one
 * piece when it ends, and fails when any fails.
 *
 * Usage: node scripts/parallel.mjs SCRIPT... (npm test: typecheck, build, deps, knip)
 */
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
const runs = scripts.map(
  (name) =>
    new Promise((resolve) => {
      const started = performance.now();
      const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
      const out = [];
      child.stdout.on('data', (d) => out.push(d));
      child.stderr.on('data', (d) => out.push(d));
      child.on('close', (code, signal) => {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        process.stdout.write(`> ${name}: ${code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s\n`);
        if (out.length) process.stdout.write(Buffer.concat(out));
        resolve(code === 0);
      });
    }),
);
const ok = (await Promise.all(runs)).every(Boolean);
process.exit(ok ? 0 : 1);
