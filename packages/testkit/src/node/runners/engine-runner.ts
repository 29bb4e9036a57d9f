import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { ManagedProcess } from '../../managed-process.ts';
import { quantityValue } from '../quantity.ts';
import { imageUser, localImageId, OWNER_PID_LABEL, removeContainer, TESTKIT_LABEL } from './container-engine.ts';
import { RunnerError, type ContainerRunner, type RunnerContext, type StartedContainer } from './runner.ts';

/** What `docker run` needs: its arguments, and the container's environment, handed over through the client's own. */
export interface DockerRun {
  args: string[];
  env: Record<string, string>;
}

/** Variables the docker client reads itself: never taken from the container's environment. */
const CLIENT_VARIABLES = /^(PATH|HOME|DOCKER_.*)$/;

/** The API server as a container on the host network reaches it (there is no kube-proxy for the Service's ClusterIP). */
function apiServerEnv(server: string): Record<string, string> {
  const url = new URL(server);
  return { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port || '443' };
}

function securityArgs(pod: V1Pod, container: V1Container): string[] {
  const podContext = pod.spec?.securityContext ?? {};
  const context = container.securityContext ?? {};
  const args: string[] = [];
  const user = context.runAsUser ?? podContext.runAsUser;
  const group = context.runAsGroup ?? podContext.runAsGroup;
  if (user !== undefined) args.push('--user', group === undefined ? String(user) : `${user}:${group}`);
  for (const extra of [podContext.fsGroup, ...(podContext.supplementalGroups ?? [])]) {
    if (extra !== undefined) args.push('--group-add', String(extra));
  }
  if (context.readOnlyRootFilesystem) args.push('--read-only');
  if (context.allowPrivilegeEscalation === false) args.push('--security-opt', 'no-new-privileges');
  for (const cap of context.capabilities?.drop ?? []) args.push('--cap-drop', cap);
  for (const cap of context.capabilities?.add ?? []) args.push('--cap-add', cap);
  const seccomp = context.seccompProfile?.type ?? podContext.seccompProfile?.type;
  if (seccomp === 'Unconfined') args.push('--security-opt', 'seccomp=unconfined');
  if (context.privileged) args.push('--privileged');
  return args;
}

function resourceArgs(container: V1Container): string[] {
  const limits = container.resources?.limits ?? {};
  const args: string[] = [];
  if (limits.memory !== undefined) {
    // No swap beyond the limit, as the kubelet configures it: a container over its limit is OOM-killed.
    const bytes = String(Math.round(quantityValue(limits.memory)));
    args.push('--memory', bytes, '--memory-swap', bytes);
  }
  if (limits.cpu !== undefined) args.push('--cpus', String(quantityValue(limits.cpu)));
  return args;
}

/**
 * `docker run` for one container of a Pod, as the kubelet would create it: the Pod's address (host network, where each
 * Pod has its own loopback address), its volumes at their mount paths, its env, user, groups, read-only root,
 * capabilities and limits; command replaces the image's ENTRYPOINT and args its CMD. Never pulls.
 */
export function dockerRunArgs(ctx: RunnerContext, name: string, image = ctx.container.image ?? ''): DockerRun {
  const { pod, container } = ctx;
  const meta = pod.metadata ?? {};
  const env = { ...apiServerEnv(ctx.cluster.server), ...ctx.containerEnv };
  const args = [
    'run', '--rm', '--name', name, '--network', 'host', '--pull', 'never',
    '--label', `${TESTKIT_LABEL}=true`, '--label', `${OWNER_PID_LABEL}=${process.pid}`,
    '--label', `io.kubernetes.pod.namespace=${meta.namespace ?? ''}`, '--label', `io.kubernetes.pod.name=${meta.name ?? ''}`,
    '--label', `io.kubernetes.pod.uid=${meta.uid ?? ''}`, '--label', `io.kubernetes.container.name=${container.name}`,
    ...securityArgs(pod, container), ...resourceArgs(container),
    ...ctx.mounts.flatMap((m) => ['--mount', `type=bind,source=${m.hostPath},target=${m.mountPath}${m.readOnly ? ',readonly' : ''}`]),
    // Names only: the values come from the client's environment, so Secrets never show in a process list. The few
    // variables the client itself reads go inline, so the container's value cannot redirect the client.
    ...Object.entries(env).flatMap(([key, value]) => ['--env', CLIENT_VARIABLES.test(key) ? `${key}=${value}` : key]),
    ...(container.workingDir ? ['--workdir', container.workingDir] : []),
  ];
  const [entrypoint, ...commandArgs] = ctx.containerCommand;
  if (entrypoint !== undefined) args.push('--entrypoint', entrypoint);
  args.push(image, ...commandArgs, ...ctx.containerArgs);
  return { args, env: Object.fromEntries(Object.entries(env).filter(([key]) => !CLIENT_VARIABLES.test(key))) };
}

let started = 0;

/**
 * Runs a container from `image` (its own, or one that stands in for it) through the local Docker engine. The `docker
 * run` client is the container's process for the node: its exit is the container's, SIGTERM reaches the container
 * through it, and once it is gone (even by SIGKILL after the grace period) the container is removed.
 */
export async function runInEngine(ctx: RunnerContext, image: string): Promise<StartedContainer> {
  const imageID = await localImageId(image);
  if (imageID === undefined) {
    throw new RunnerError(`image ${image} is not in the container engine and the testkit node never pulls: build it (npm run images) or load it`);
  }
  const context = ctx.container.securityContext ?? {};
  const podContext = ctx.pod.spec?.securityContext ?? {};
  if ((context.runAsNonRoot ?? podContext.runAsNonRoot) && (context.runAsUser ?? podContext.runAsUser) === undefined) {
    const user = await imageUser(image);
    if (user === '' || /^(0|root)(:|$)/.test(user)) throw new RunnerError(`container has runAsNonRoot and image ${image} will run as root`);
  }
  const meta = ctx.pod.metadata ?? {};
  const name = `k8s_${ctx.container.name}_${meta.name ?? ''}_${meta.namespace ?? ''}_${(meta.uid ?? '').slice(0, 8)}_${process.pid}-${started++}`;
  const { args, env } = dockerRunArgs(ctx, name, image);
  const clientEnv: NodeJS.ProcessEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => CLIENT_VARIABLES.test(key))), ...env };
  const container = ManagedProcess.start({ name: ctx.container.name, command: 'docker', args, env: clientEnv, cwd: ctx.containerDir, logFile: ctx.logFile });
  void container.exited.then(() => removeContainer(name));
  return { process: container, containerID: `docker://${name}`, imageID };
}

/** Runs a container from its own image through the local Docker engine. */
export const engineRunner: ContainerRunner = (ctx) => runInEngine(ctx, ctx.container.image ?? '');
