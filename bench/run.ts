/**
 * `npm run bench [-- NAME…]`: runs the benchmarks (all by default) and prints
 * their figures. Each needs PostgreSQL at 127.0.0.1:5432 (database test) and,
 * for the Redis figures, Redis at 127.0.0.1:6379.
 */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ALL = ['limits', 'lists', 'pipeline', 'analytics', 'forecast', 'bands', 'prior-weight', 'oracle', 'what-if', 'track-record', 'key-cache', 'sync', 'load', 'agent-budget', 'replica'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = (wanted.length ? wanted : ALL).filter((n) => existsSync(join(here, `${n}.ts`)));
if (names.length === 0) {
  console.error(`no benchmark among: ${wanted.join(', ')} (known: ${ALL.filter((n) => existsSync(join(here, `${n}.ts`))).join(', ')})`);
  process.exit(2);
}
let failed = 0;
for (const name of names) {
  console.log(`\n=== bench/${name}.ts`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.ts`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
