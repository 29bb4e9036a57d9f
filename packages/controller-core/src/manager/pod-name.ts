import { hostname } from 'node:os';

/**
 * Which replica this process is: POD_NAME (set from the downward API), else the hostname, which Kubernetes sets to the
 * Pod name unless the Pod spec overrides it. Events name it as their reporting instance and leader election as the
 * lease holder, so `kubectl` users can tell which replica acted.
 */
export function podName(env: NodeJS.ProcessEnv = process.env): string {
  const name = env.POD_NAME;
  return name === undefined || name === '' ? hostname() : name;
}
