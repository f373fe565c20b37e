/**
 * The loop under the background workers: runs `run` every `intervalMs`, the
 * first time at once, never two runs at a time in one process (a tick that
 * comes while one is running is skipped); `stop` ends the loop and resolves
 * when the run in progress, if any, has finished.
 */
export interface Ticker {
  stop(): Promise<void>;
}

export function startTicker<T>(
  run: () => Promise<T>,
  intervalMs: number,
  on: { result?: (r: T) => void; error?: (err: unknown) => void } = {},
): Ticker {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = run()
      .then((r) => on.result?.(r), (err) => on.error?.(err))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
