/**
 * The order the suite's files start in: longest first, by the seconds each
 * took in a measured run (durations.json, refreshed by hand when the suite
 * changes much), so that on two workers no long file starts last and
 * stretches the run. Files not listed start first (new, so unknown). Vitest's
 * own order needs its cache, which a clean clone (CI) does not have.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const measured = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<string, number>;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) => measured[relative(f.project.config.root, f.moduleId).replaceAll('\\', '/')] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => seconds(b) - seconds(a) || (a.moduleId < b.moduleId ? -1 : 1));
  }
}
