/**
 * The Node flags every operator runs with, measured by the core benchmark. Sized for the Deployments' memory limits
 * (256Mi; the PostgreSQL operator's 512Mi also covers its pg_dump and pg_restore processes): a 128 MiB old generation
 * holds the caches of 10,000 objects and 10,000 ConfigMaps (about 12 MiB live, 31 MiB of heap in all) with room to
 * spare, and `--optimize-for-size` keeps V8 from growing the heap far past what is live. V8's defaults, tuned for
 * throughput on a 4 GiB heap limit, take the benchmark's controller to 403 MiB at 10,000 objects; with these flags
 * about 140 MiB. Tried and left out: `--single-threaded` (186 MiB: the heap grows while the main thread marks alone)
 * and `--v8-pool-size=1` (151 MiB).
 *
 * packages/delivery checks that the images and Deployments carry exactly these; the benchmarks start their
 * controller processes with them.
 */

/**
 * In each operator image's ENTRYPOINT: Node refuses V8 flags such as these in NODE_OPTIONS. `--max-opt=2` stops V8's
 * tiers at Maglev: TurboFan's code and the memory its background compiles leave in the threads' malloc arenas cost
 * 6 MiB at start and 7–10 MiB throughout the run at 10,000 objects, and an operator, which waits on the API server,
 * has no loop hot enough to repay them (the controller's CPU stayed at 0.35 of the API server's, as without the flag).
 */
export const IMAGE_NODE_FLAGS: readonly string[] = ['--optimize-for-size', '--max-opt=2'];

/**
 * In each operator Deployment's NODE_OPTIONS, beside the memory limit it is sized for, so that whoever raises one
 * (a larger cluster, more cached objects) sees the other.
 */
export const DEPLOYMENT_NODE_OPTIONS = '--max-old-space-size=128';

/** What the benchmark starts its controller process with: the image's flags, then the Deployment's. */
export const OPERATOR_NODE_FLAGS: readonly string[] = [...IMAGE_NODE_FLAGS, ...DEPLOYMENT_NODE_OPTIONS.split(' ')];
