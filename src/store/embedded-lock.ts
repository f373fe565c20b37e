/**
 * PGlite is single-process: two processes opening one data folder would
 * corrupt it. The embedded store therefore takes a lock file beside its data;
 * a second process gets a clear message instead (a stale lock, whose process
 * is gone, is taken over).
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class StoreLockedError extends Error {}

export function lockEmbeddedStore(dataDir: string): () => void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'cashline.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) rmSync(path);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (holder && holder !== process.pid && processAlive(holder)) {
        throw new StoreLockedError(
          `the embedded store at ${dir} is in use by process ${holder} (a running server?); ` +
            `stop it first, or point DATABASE_URL at a PostgreSQL server to share one store`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new StoreLockedError(`could not lock the embedded store at ${dir}`);
}

/** Whether a process of this host with that PID exists (one we may not signal exists too). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
