/**
 * Progress of long work (demo generation, import, sync, backtest) on stderr:
 * a self-overwriting line on a terminal, a line per step (throttled) otherwise.
 */
import type { Io } from './action.js';

export interface Progress {
  (step: string, done: number, total: number): void;
  done(): void;
}

export function progressPrinter(io: Io, label: string, isTty = Boolean(process.stderr.isTTY)): Progress {
  let last = '';
  let lastAt = 0;
  const fn = ((step: string, done: number, total: number) => {
    const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
    const line = `${label}: ${step} ${done.toLocaleString('en')}/${total.toLocaleString('en')} (${pct}%)`;
    if (isTty) {
      io.stderr(`\r\x1b[2K${line}`);
      last = line;
      return;
    }
    const now = Date.now();
    if (step !== last || done === total || now - lastAt > 2000) {
      io.stderr(`${line}\n`);
      last = step;
      lastAt = now;
    }
  }) as Progress;
  fn.done = () => {
    if (isTty && last) io.stderr('\n');
  };
  return fn;
}
