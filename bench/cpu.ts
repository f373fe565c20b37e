/**
 * CPU for the load benchmark: a budget per server process, and who used what.
 *
 * A budget per benchmark server process (bench/load.ts --cpu-quota F):
 * each process gets its own cgroup (v1 `cpu` controller at /sys/fs/cgroup/cpu)
 * with a CFS quota of F of one core, so that N API instances on this 2-core
 * machine each get the same fixed slice, whatever PostgreSQL, Redis and the
 * load generator use.
 *
 * Writing a pid to `cgroup.procs` moves its whole thread group (libuv's pool,
 * V8's threads, started before or after); any process it forks afterwards
 * inherits the cgroup; processes it had already forked are moved one by one.
 * The groups are removed on release, on process exit and on SIGINT/SIGTERM
 * (their remaining tasks are moved back to the parent group first). Nothing
 * else is moved into them.
 *
 * Accounting (`CpuMeter`): the CPU (utime + stime, every thread) used during
 * a run by the server processes; by PostgreSQL, all of it and the backends
 * whose client is one of the servers (matched by TCP socket: the machine may
 * be running other work against the same PostgreSQL); by Redis; by this
 * process (the load generator); and the machine's busy share (/proc/stat).
 * Sampled every second, so that backends that start or end during the run
 * are counted too.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CPU_CGROUP_ROOT = process.env.BENCH_CPU_CGROUP_ROOT ?? '/sys/fs/cgroup/cpu';
const PERIOD_US = 100_000;

export interface CpuGroup {
  name: string;
  dir: string;
  quotaUs: number;
  pid: number;
}

const live = new Set<CpuGroup>();
let hooked = false;

const fsError = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

/**
 * Checks that a cgroup with a quota can be made here (mkdir, quota, rmdir) and
 * returns null, or a message naming what is missing.
 */
export function cpuQuotaProblem(fraction: number): string | null {
  if (!Number.isFinite(fraction) || fraction <= 0) return `--cpu-quota takes a positive fraction of one core (e.g. 0.2), not ${fraction}`;
  if (!existsSync(join(CPU_CGROUP_ROOT, 'cpu.cfs_quota_us'))) {
    return `--cpu-quota needs the cgroup v1 cpu controller mounted at ${CPU_CGROUP_ROOT} (no ${join(CPU_CGROUP_ROOT, 'cpu.cfs_quota_us')} here; cgroup v2 alone is not supported)`;
  }
  const probe = join(CPU_CGROUP_ROOT, `cashline-probe-${process.pid}`);
  try {
    mkdirSync(probe);
  } catch (e) {
    return `--cpu-quota cannot create a cgroup under ${CPU_CGROUP_ROOT} (${fsError(e)}): it needs root and a writable cgroup fs`;
  }
  try {
    if (!existsSync(join(probe, 'cpu.cfs_quota_us'))) return `--cpu-quota: ${CPU_CGROUP_ROOT} is not a cgroup v1 cpu hierarchy (a new folder there has no cpu.cfs_quota_us)`;
    writeFileSync(join(probe, 'cpu.cfs_quota_us'), String(quotaUs(fraction)));
  } catch (e) {
    return `--cpu-quota cannot set cpu.cfs_quota_us in ${probe} (${fsError(e)})`;
  } finally {
    rmdirSync(probe);
  }
  return null;
}

export const quotaUs = (fraction: number) => Math.max(1000, Math.round(fraction * PERIOD_US));

/** The pid's descendants (through /proc/PID/task/TID/children), deepest last. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      let kids = '';
      try {
        kids = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const k of kids.split(/\s+/).filter(Boolean).map(Number)) {
        out.push(k);
        walk(k);
      }
    }
  };
  walk(pid);
  return out;
}

/** The pid's path in the cpu hierarchy, from /proc/PID/cgroup ("/" for the root group). */
export function cpuCgroupOf(pid: number): string {
  const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes('cpu'));
  return line ? line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1) : '?';
}

/**
 * Puts `pid` (and any process it has already started) into a new cgroup with
 * `fraction` of one core; checks that every thread of it is in the group.
 */
export function confine(pid: number, fraction: number, label: string): CpuGroup {
  hookCleanup();
  const name = `cashline-load-${process.pid}-${label}`;
  const dir = join(CPU_CGROUP_ROOT, name);
  mkdirSync(dir);
  const group: CpuGroup = { name, dir, quotaUs: quotaUs(fraction), pid };
  live.add(group);
  writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
  writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(group.quotaUs));
  for (const p of [pid, ...descendants(pid)]) writeFileSync(join(dir, 'cgroup.procs'), String(p));
  const inGroup = new Set(readFileSync(join(dir, 'tasks'), 'utf8').split('\n').filter(Boolean));
  const threads = readdirSync(`/proc/${pid}/task`);
  const outside = threads.filter((t) => !inGroup.has(t));
  if (outside.length > 0) throw new Error(`threads ${outside.join(',')} of ${pid} are not in ${dir}`);
  if (cpuCgroupOf(pid) !== `/${name}`) throw new Error(`${pid} is in cpu cgroup ${cpuCgroupOf(pid)}, not /${name}`);
  return group;
}

/** Throttling so far: periods, throttled periods, throttled time (ms). */
export function throttling(group: CpuGroup): { periods: number; throttled: number; throttledMs: number } {
  const stat = Object.fromEntries(
    readFileSync(join(group.dir, 'cpu.stat'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]),
  );
  return { periods: Number(stat.nr_periods), throttled: Number(stat.nr_throttled), throttledMs: Number(stat.throttled_time) / 1e6 };
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Removes the group (synchronously: it also runs in an exit handler). Tasks
 * still in it (a process that has not exited yet) are moved back to the root
 * group first; a task that is exiting right then (just killed) keeps the group
 * busy for a moment, so the rmdir is retried for up to 5 s.
 */
export function release(group: CpuGroup): void {
  if (!live.delete(group)) return;
  let error: unknown;
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      for (const p of readFileSync(join(group.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          writeFileSync(join(CPU_CGROUP_ROOT, 'cgroup.procs'), p);
        } catch {
          // exiting or gone
        }
      }
      rmdirSync(group.dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      error = e;
      sleepSync(50);
    }
  }
  process.stderr.write(`[cpu-quota] could not remove ${group.dir}: ${fsError(error)} (rmdir it once its tasks have exited)\n`);
}

export function releaseAll(): void {
  for (const g of [...live]) release(g);
}

function hookCleanup(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', releaseAll);
}

// ---------------------------------------------------------------------------
// Accounting
// ---------------------------------------------------------------------------
const TICK_MS = 10; // getconf CLK_TCK = 100 on Linux

/** utime + stime of one process, all its threads (ms), and its start (ticks since boot); null once it is gone. */
function procCpu(pid: number): { ms: number; start: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ms: (Number(f[11]) + Number(f[12])) * TICK_MS, start: Number(f[19]) }; // fields 14, 15 and 22
  } catch {
    return null;
  }
}

const pidsNamed = (name: string) =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    });

/** The inodes of a process's sockets. */
function socketInodes(pid: number): Set<string> {
  const out = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) out.add(m[1]!);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // exited
  }
  return out;
}

/** TCP sockets of the machine: inode -> local and remote port. */
function tcpSockets(): Map<string, { local: number; remote: number }> {
  const out = new Map<string, { local: number; remote: number }>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      out.set(f[9]!, { local: parseInt(f[1]!.split(':')[1]!, 16), remote: parseInt(f[2]!.split(':')[1]!, 16) });
    }
  }
  return out;
}

/** The postgres backends whose client socket belongs to one of `clients`. */
function backendsOf(clients: number[], postgres: number[], pgPort: number): Set<number> {
  const tcp = tcpSockets();
  const clientPorts = new Set<number>();
  for (const pid of clients) {
    for (const inode of socketInodes(pid)) {
      const s = tcp.get(inode);
      if (s && s.remote === pgPort) clientPorts.add(s.local);
    }
  }
  const out = new Set<number>();
  for (const pid of postgres) {
    for (const inode of socketInodes(pid)) {
      const s = tcp.get(inode);
      if (s && s.local === pgPort && clientPorts.has(s.remote)) out.add(pid);
    }
  }
  return out;
}

function machineTicks(): { busy: number; total: number } {
  const t = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number); // user nice system idle iowait irq softirq steal
  const total = t.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - t[3]! - t[4]!, total };
}

export interface CpuFigures {
  /** Each as a fraction of one core over the run. */
  servers: number[];
  postgres: number;
  /** The backends serving the servers (part of `postgres`). */
  postgresOurs: number;
  redis: number;
  generator: number;
  /** Of the whole machine (all cores). */
  machineBusy: number;
}

/**
 * Samples every second from construction to stop(): per pid, the CPU it used
 * since it was first seen (from 0 when it started during the run).
 */
export class CpuMeter {
  private readonly t0 = performance.now();
  private readonly bootTicks0 = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 100;
  private readonly machine0 = machineTicks();
  private readonly generator0 = process.cpuUsage();
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private readonly ours = new Set<number>();
  private readonly pg = new Set<number>();
  private readonly redisPids = new Set<number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly serverPids: number[],
    private readonly pgPort = 5432,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 1000);
  }

  private see(pid: number): void {
    const c = procCpu(pid);
    if (!c) return;
    if (!this.first.has(pid)) this.first.set(pid, c.start >= this.bootTicks0 ? 0 : c.ms);
    this.last.set(pid, c.ms);
  }

  private sample(): void {
    const postgres = pidsNamed('postgres');
    for (const pid of postgres) this.pg.add(pid);
    for (const pid of backendsOf(this.serverPids, postgres, this.pgPort)) this.ours.add(pid);
    for (const pid of pidsNamed('redis-server')) this.redisPids.add(pid);
    for (const pid of [...this.serverPids, ...postgres, ...this.redisPids]) this.see(pid);
  }

  stop(): CpuFigures {
    this.sample();
    clearInterval(this.timer);
    const wall = performance.now() - this.t0;
    const used = (pids: Iterable<number>) => [...pids].reduce((a, p) => a + (this.last.get(p) ?? 0) - (this.first.get(p) ?? 0), 0) / wall;
    const m = machineTicks();
    const g = process.cpuUsage(this.generator0);
    return {
      servers: this.serverPids.map((p) => used([p])),
      postgres: used(this.pg),
      postgresOurs: used(this.ours),
      redis: used(this.redisPids),
      generator: (g.user + g.system) / 1000 / wall,
      machineBusy: (m.busy - this.machine0.busy) / (m.total - this.machine0.total),
    };
  }
}
