/**
 * The Node flags every operator runs with, measured by the core benchmark. Sized for the Deployments' memory limits
 * (256Mi; the PostgreSQL operator's 512Mi also covers its pg_dump and pg_restore processes): a 128 MiB old generation
 * holds the caches of 10,000 objects and 10,000 ConfigMaps (~45 MiB live) with room to spare, and
 * `--optimize-for-size` keeps V8 from growing the heap far past what is live. V8's defaults, tuned for throughput on a
 * 4 GiB heap limit, take the benchmark's controller to 403 MiB at 10,000 objects; with these flags 170–193 MiB, for
 * 22–27 s of CPU instead of 16 s (the API server uses 55–67 s).
 *
 * packages/delivery checks that the images and Deployments carry exactly these.
 */

/** In each operator image's ENTRYPOINT: Node refuses `--optimize-for-size` in NODE_OPTIONS. */
export const IMAGE_NODE_FLAGS: readonly string[] = ['--optimize-for-size'];

/**
 * In each operator Deployment's NODE_OPTIONS, beside the memory limit it is sized for, so that whoever raises one
 * (a larger cluster, more cached objects) sees the other.
 */
export const DEPLOYMENT_NODE_OPTIONS = '--max-old-space-size=128';

/** What the benchmark starts its controller process with: the image's flags, then the Deployment's. */
export const OPERATOR_NODE_FLAGS: readonly string[] = [...IMAGE_NODE_FLAGS, ...DEPLOYMENT_NODE_OPTIONS.split(' ')];
