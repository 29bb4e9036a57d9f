import { managerFlags, MANAGER_FLAG_USAGE, parseCommandLine, FlagError, type ManagerFlags } from '@k8s-operators/controller-core';

export { FlagError };

export const USAGE = `Usage: maintpage-operator [flags]
  --page-server-image=IMAGE          image of the built-in maintenance page server (or $PAGE_SERVER_IMAGE); required
${MANAGER_FLAG_USAGE}`;

export interface OperatorFlags extends ManagerFlags {
  pageServerImage: string;
}

/** Parses the command line (and the environment variables that stand in for flags). */
export function parseOperatorFlags(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorFlags | 'help' {
  const values = parseCommandLine(argv, { 'page-server-image': { type: 'string' } });
  if (values.help) return 'help';
  const pageServerImage = values['page-server-image'] ?? env.PAGE_SERVER_IMAGE;
  if (!pageServerImage) throw new FlagError('--page-server-image (or $PAGE_SERVER_IMAGE) is required: the image MaintPages without maintpageimage run');
  return { ...managerFlags(values, env), pageServerImage };
}
