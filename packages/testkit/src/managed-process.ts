import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { cpuSecondsOf } from './proc-cpu.ts';

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
    return await cpuSecondsOf(this.#child.pid ?? 0);
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
