import { appendFile } from 'node:fs/promises';
import { engineAvailable, localImageId } from './container-engine.ts';
import { engineRunner } from './engine-runner.ts';
import { nodeRunner } from './node-runner.ts';
import { RunnerError, type ContainerRunner } from './runner.ts';

/**
 * How the project's own images run (TESTKIT_IMAGES):
 * - `engine`: from the image, through the container engine; a missing engine or image fails the container;
 * - `process`: the built entry point (`with.entry`) as a process of this machine, for machines without an engine;
 * - `auto` (default): the image when the engine holds it, else the process, said in the container's log.
 */
export type ProjectImageMode = 'engine' | 'process' | 'auto';

export function projectImageMode(env: NodeJS.ProcessEnv = process.env): ProjectImageMode {
  const mode = env.TESTKIT_IMAGES ?? 'auto';
  if (mode === 'engine' || mode === 'process' || mode === 'auto') return mode;
  throw new Error(`TESTKIT_IMAGES=${mode}: expected engine, process or auto`);
}

export const projectImageRunner: ContainerRunner = async (ctx) => {
  const mode = projectImageMode();
  const image = ctx.container.image ?? '';
  if (mode === 'engine') {
    if (!(await engineAvailable())) throw new RunnerError(`TESTKIT_IMAGES=engine but no container engine answers (docker info): start dockerd, or npm run images`);
    return engineRunner(ctx);
  }
  if (mode === 'auto' && (await engineAvailable()) && (await localImageId(image)) !== undefined) return engineRunner(ctx);
  if (mode === 'auto') {
    await appendFile(ctx.logFile, `testkit: ${image} is not in a container engine here; running its built entry point as a process (npm run images builds the image)\n`);
  }
  return nodeRunner(ctx);
};
