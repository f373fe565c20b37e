/**
 * A benchmark's server in a child process of its own (so that the load
 * generator's CPU is not counted in it): the script is forked under tsx, says
 * `{ready: url}` when it listens, may report more (`onMessage`), and exits on
 * 'stop'. Used by bench/lists.ts and bench/pipeline.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';

export interface ServerChild {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export async function forkServer(
  script: string,
  args: string[],
  opts: { quiet?: boolean; onMessage?: (m: Record<string, unknown>) => void } = {},
): Promise<ServerChild> {
  const proc = fork(script, args, { execArgv: ['--import', 'tsx'], stdio: opts.quiet ? ['ignore', 'ignore', 'inherit', 'ipc'] : 'inherit' });
  const url = await new Promise<string>((resolve, reject) => {
    proc.on('message', (m: Record<string, unknown>) => {
      if (typeof m.ready === 'string') resolve(m.ready);
      opts.onMessage?.(m);
    });
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')}: exited (${code})`)));
  });
  return {
    url,
    proc,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.removeAllListeners('exit');
        proc.once('exit', () => resolve());
        proc.send('stop');
      }),
  };
}
