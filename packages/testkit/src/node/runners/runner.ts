import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { ManagedProcess } from '../../managed-process.ts';
import type { Mount } from '../volumes.ts';

/** Everything a runner needs to start one container as a process of this machine. */
export interface RunnerContext {
  pod: V1Pod;
  container: V1Container;
  podIP: string;
  /** Resolved environment (Secrets, ConfigMaps, fieldRefs, $(VAR) expanded, mounted paths translated). */
  env: Record<string, string>;
  /** The same environment with paths as the container sees them, for runners that map paths themselves. */
  containerEnv: Readonly<Record<string, string>>;
  /** The container's command and args, $(VAR)-expanded and with mounted paths translated. */
  command: string[];
  args: string[];
  /** The same, $(VAR)-expanded only, for runners that give the container its mounts at their own paths. */
  containerCommand: string[];
  containerArgs: string[];
  mounts: Mount[];
  /** This container's private directory on the host: its root filesystem layer and run files live here. */
  containerDir: string;
  logFile: string;
  /** The image-map rule's `with:` settings. */
  settings: Readonly<Record<string, unknown>>;
  cluster: { server: string; caFile: string };
  /** The repository root, for runners that start the project's own packages. */
  workspaceRoot: string;
}

export interface StartedContainer {
  process: ManagedProcess;
  /** Extra environment for exec probes, e.g. where PostgreSQL's socket is. */
  probeEnv?: Record<string, string>;
  /**
   * Host paths outside `containerDir` that the container uses (PostgreSQL's socket directory, which must be short);
   * removed with the Pod, as its directory is.
   */
  hostPaths?: string[];
  /** What the Pod's status reports (default: testkit://<pid> and testkit://<image>). */
  containerID?: string;
  imageID?: string;
}

/** A runner refuses to start with a message for the Pod's status (RunContainerError), e.g. an unbuilt entry point. */
export class RunnerError extends Error {}

export type ContainerRunner = (context: RunnerContext) => Promise<StartedContainer>;

/** The sibling file of a runner module, `.ts` when running from source and `.js` when built. */
export function siblingFile(moduleUrl: string, stem: string, extension?: string): string {
  const ext = extension ?? (moduleUrl.endsWith('.ts') ? '.ts' : '.js');
  return new URL(`./${stem}${ext}`, moduleUrl).pathname;
}
