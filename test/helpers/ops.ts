/** Runs `cashline-server` in-process with captured output (fast; a child-process test covers the real binary). */
import { main } from '../../src/server/cli.js';

export interface OpsResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export async function ops(args: string[], env: NodeJS.ProcessEnv): Promise<OpsResult> {
  let stdout = '';
  let stderr = '';
  const before = process.exitCode;
  process.exitCode = 0;
  await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  const code = Number(process.exitCode ?? 0);
  process.exitCode = before;
  let json: unknown = undefined;
  try {
    json = JSON.parse(stdout);
  } catch {
    /* not JSON */
  }
  return { code, stdout, stderr, json };
}
