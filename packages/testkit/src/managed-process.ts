import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

export interface ManagedProcessOptions {
  /** Shown in errors, e.g. `kube-apiserver`. */
  name: string;
  command: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr are appended here, so a failing test can point at the file. */
  logFile: string;
  uid?: number;
  gid?: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

// setpriv (util-linux) sets PR_SET_PDEATHSIG before exec, so the kernel kills every process we start when
// the Node process that started it dies, even by SIGKILL: an interrupted test run leaves nothing behind.
const setprivAvailable = spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0;

const live = new Set<ManagedProcess>();
process.once('exit', () => {
  for (const p of live) p.killGroup('SIGKILL');
});

/** A child process in its own process group, with its output in a file and a bounded, escalating stop. */
export class ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  readonly exited: Promise<ProcessExit>;
  readonly #child: ChildProcess;
  #exit: ProcessExit | undefined;

  private constructor(options: ManagedProcessOptions) {
    this.name = options.name;
    this.logFile = options.logFile;
    const fd = openSync(options.logFile, 'a');
    const [command, args] = setprivAvailable
      ? ['setpriv', ['--pdeathsig', 'KILL', '--', options.command, ...options.args]]
      : [options.command, [...options.args]];
    try {
      this.#child = spawn(command, args, {
        env: options.env ?? process.env,
        cwd: options.cwd,
        stdio: ['ignore', fd, fd],
        detached: true,
        uid: options.uid,
        gid: options.gid,
      });
    } finally {
      closeSync(fd);
    }
    live.add(this);
    this.exited = new Promise((resolve) => {
      const finish = (exit: ProcessExit): void => {
        if (this.#exit) return;
        this.#exit = exit;
        live.delete(this);
        resolve(exit);
      };
      this.#child.once('exit', (code, signal) => { finish({ code, signal }); });
      // The program could not be started at all (missing binary): report it like a failed exit.
      this.#child.once('error', () => { finish({ code: -1, signal: null }); });
    });
  }

  static start(options: ManagedProcessOptions): ManagedProcess {
    return new ManagedProcess(options);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /**
   * The CPU time (user + system, in seconds, all threads) the process has used so far: for a benchmark on a shared
   * machine to tell a helper's share (a store server's) from that of the code it measures.
   */
  async cpuSeconds(): Promise<number> {
    const stat = await readFile(`/proc/${String(this.#child.pid)}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is the first, utime the 12th,
    // stime the 13th (proc(5)), in clock ticks of USER_HZ, which Linux fixes at 100 for /proc.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  get exitStatus(): ProcessExit | undefined {
    return this.#exit;
  }

  /** Signals the whole process group, so helpers a program started (postgres backends) go too. */
  killGroup(signal: NodeJS.Signals): void {
    const pid = this.#child.pid;
    if (pid === undefined || this.#exit) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }

  /** SIGTERM, then SIGKILL once `graceMs` has passed, as the kubelet does. Resolves when the process is gone. */
  async stop(graceMs = 10_000): Promise<ProcessExit> {
    if (this.#exit) return this.#exit;
    this.killGroup('SIGTERM');
    const timer = setTimeout(() => { this.killGroup('SIGKILL'); }, graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
