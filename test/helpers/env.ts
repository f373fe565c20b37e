import { join } from 'node:path';
import { tmpdir } from 'node:os';

export const PG_TEST_URL = process.env.CASHLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_TEST_URL = process.env.CASHLINE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const SNAPSHOT_PATH = join(tmpdir(), `cashline-test-${process.ppid}-${process.pid}`, 'pglite-migrated.tar');
