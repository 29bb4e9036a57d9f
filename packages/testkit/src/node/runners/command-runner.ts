import { ManagedProcess } from '../../managed-process.ts';
import { RunnerError, type ContainerRunner } from './runner.ts';

/**
 * Runs the container's own command and args with this machine's programs (for busybox-style images used by
 * Jobs and debugging Pods: `sh -c ...`).
 */
export const commandRunner: ContainerRunner = (ctx) => {
  const argv = [...ctx.command, ...ctx.args];
  const [command, ...args] = argv;
  if (!command) return Promise.reject(new RunnerError(`container ${ctx.container.name} has no command for the command runner to run`));
  return Promise.resolve({
    process: ManagedProcess.start({ name: ctx.container.name, command, args, env: { PATH: process.env.PATH, HOME: ctx.containerDir, ...ctx.env }, cwd: ctx.containerDir, logFile: ctx.logFile }),
  });
};
