import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { writeKubeconfig } from '../../kubeconfig.ts';
import { ManagedProcess } from '../../managed-process.ts';
import { translatePath } from '../volumes.ts';
import { RunnerError, type ContainerRunner } from './runner.ts';
import { readFile } from 'node:fs/promises';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Runs one of the project's own images: Node runs the package's built entry point (the image's ENTRYPOINT)
 * with the container's args and env. In-cluster config reads fixed paths, so the Pod's ServiceAccount
 * identity is handed over as a kubeconfig (KUBECONFIG) built from the projected token the Pod mounts.
 */
export const nodeRunner: ContainerRunner = async (ctx) => {
  const entry = ctx.settings.entry;
  if (typeof entry !== 'string') throw new RunnerError(`image map rule for ${ctx.container.image ?? ''} needs with.entry (a built .js file)`);
  const entryPath = join(ctx.workspaceRoot, entry);
  try {
    await access(entryPath);
  } catch {
    throw new RunnerError(`${entry} does not exist: build the workspace first (npm run build)`);
  }
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ctx.containerDir, ...ctx.env };
  const tokenFile = translatePath(`${SERVICE_ACCOUNT_DIR}/token`, ctx.mounts);
  if (tokenFile !== `${SERVICE_ACCOUNT_DIR}/token`) {
    const token = (await readFile(tokenFile, 'utf8')).trim();
    const namespace = ctx.pod.metadata?.namespace ?? 'default';
    env.KUBECONFIG = await writeKubeconfig(join(ctx.containerDir, 'serviceaccount.kubeconfig'), {
      server: ctx.cluster.server, caPem: await readFile(ctx.cluster.caFile, 'utf8'),
      user: `system:serviceaccount:${namespace}:${ctx.pod.spec?.serviceAccountName ?? 'default'}`,
      credentials: { kind: 'token', token }, namespace,
    });
  }
  const process_ = ManagedProcess.start({
    name: ctx.container.name, command: process.execPath, args: [entryPath, ...ctx.args], env, cwd: ctx.containerDir, logFile: ctx.logFile,
  });
  return { process: process_ };
};
