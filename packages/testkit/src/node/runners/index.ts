import { commandRunner } from './command-runner.ts';
import { engineRunner } from './engine-runner.ts';
import { httpStaticRunner } from './http-static-runner.ts';
import { nodeRunner } from './node-runner.ts';
import { postgresRunner } from './postgres-runner.ts';
import { projectImageRunner } from './project-image-runner.ts';
import type { ContainerRunner } from './runner.ts';

export const BUILT_IN_RUNNERS: Readonly<Record<string, ContainerRunner>> = {
  node: nodeRunner,
  engine: engineRunner,
  'project-image': projectImageRunner,
  postgres: postgresRunner,
  'http-static': httpStaticRunner,
  command: commandRunner,
};
export { RunnerError, type ContainerRunner, type RunnerContext, type StartedContainer } from './runner.ts';
export { projectImageMode, type ProjectImageMode } from './project-image-runner.ts';
export { engineAvailable, removeOrphanedContainers } from './container-engine.ts';
