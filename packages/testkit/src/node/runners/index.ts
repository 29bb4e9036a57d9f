import { commandRunner } from './command-runner.ts';
import { httpStaticRunner } from './http-static-runner.ts';
import { nodeRunner } from './node-runner.ts';
import { postgresRunner } from './postgres-runner.ts';
import type { ContainerRunner } from './runner.ts';

export const BUILT_IN_RUNNERS: Readonly<Record<string, ContainerRunner>> = {
  node: nodeRunner,
  postgres: postgresRunner,
  'http-static': httpStaticRunner,
  command: commandRunner,
};
export { RunnerError, type ContainerRunner, type RunnerContext, type StartedContainer } from './runner.ts';
