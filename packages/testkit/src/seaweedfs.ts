import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './free-port.ts';
import { createClusterPki, createServingCertificate } from './pki.ts';
import { ManagedProcess } from './managed-process.ts';
import { findProvisionedTool } from './provisioned-tools.ts';
import { signedS3Request, type S3Credentials, type S3RequestOptions } from './seaweedfs-s3-request.ts';
import { waitFor } from './wait-for.ts';

/** A bucket of testkit's own, holding the object whose round trip says the store serves data (see `ready`). */
const READINESS_BUCKET = 'testkit-readiness';
const READINESS_PROBE = `/${READINESS_BUCKET}/probe`;

export interface SeaweedFsOptions {
  /** The bucket created before `startSeaweedFs` resolves. Default `backups`. */
  bucket?: string;
  /** How long start-up may take once the binary is there (default 60 s; a busy 2-core machine needs about 10). */
  startTimeoutMs?: number;
  /**
   * The address SeaweedFS listens on, and the one its endpoints and TLS certificate name (default 127.0.0.1): e.g.
   * the kind network's gateway, for pods of a kind cluster to reach it.
   */
  host?: string;
}

export interface RunningSeaweedFs {
  /** The S3 endpoint, http://<host>:<port>; buckets are addressed path-style. */
  readonly endpoint: string;
  /** The same S3 gateway over TLS, https://<host>:<port>, with a certificate signed by `caPem` only. */
  readonly httpsEndpoint: string;
  /** The PEM certificate of the private CA that signed the TLS certificate: no public root trusts it. */
  readonly caPem: string;
  /** SeaweedFS accepts any region in signatures; clients still need one. */
  readonly region: string;
  readonly bucket: string;
  /** The one identity SeaweedFS knows, allowed everything; any other key is refused. */
  readonly credentials: S3Credentials;
  /** Where SeaweedFS's output goes, for a failing test to point at. */
  readonly logFile: string;
  /** A request signed with `credentials`, to look at the store from outside the code under test. */
  request(request: Pick<S3RequestOptions, 'method' | 'path' | 'query' | 'body'>): Promise<Response>;
  /** CPU seconds SeaweedFS has used so far (all of it: master, volume, filer and S3 gateway run in one process). */
  cpuSeconds(): Promise<number>;
  /**
   * An outage: stops the process (SIGTERM, then SIGKILL) and keeps its data; `resume` starts it again on the same
   * ports and data, as a store that went down and came back, and resolves once objects are served again (not only the
   * bucket: a volume server rejoins seconds after the filer answers). For the soak's faults.
   */
  interrupt(): Promise<{ resume(): Promise<void> }>;
  /** Stops SeaweedFS (SIGTERM, then SIGKILL) and removes its data. */
  stop(): Promise<void>;
}

/**
 * A real SeaweedFS (`weed server -s3`: master, volume server, filer and S3 gateway in one process) on 127.0.0.1 with
 * free ports, a fresh data directory, one identity with a random access key and secret, and one bucket; its S3
 * gateway speaks plain HTTP on one port and TLS, with a certificate from a private CA, on another. Telemetry is off:
 * nothing leaves the machine.
 */
export async function startSeaweedFs(options: SeaweedFsOptions = {}): Promise<RunningSeaweedFs> {
  const { bucket = 'backups', startTimeoutMs = 60_000, host = '127.0.0.1' } = options;
  const binary = await findProvisionedTool('seaweedfs');
  const dir = await mkdtemp(join(tmpdir(), 'seaweedfs-'));
  const credentials: S3Credentials = {
    accessKeyId: `testkit${randomBytes(6).toString('hex')}`,
    secretAccessKey: randomBytes(24).toString('base64url'),
  };
  const s3Config = join(dir, 's3.json');
  await writeFile(
    s3Config,
    JSON.stringify({
      identities: [
        {
          name: 'testkit',
          credentials: [{ accessKey: credentials.accessKeyId, secretKey: credentials.secretAccessKey }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    }),
    { mode: 0o600 },
  );
  await mkdir(join(dir, 'data'));
  const pki = await createClusterPki(dir);
  const tls = await createServingCertificate(dir, pki, 'seaweedfs-s3', [host]);
  // Every gRPC port is given: left out, each would be its HTTP port + 10000, which may be taken or past 65535.
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Https, s3Grpc] = await freePorts(9, host);
  const logFile = join(dir, 'weed.log');
  const start = (): ManagedProcess => ManagedProcess.start({
    name: 'seaweedfs',
    command: binary,
    logFile,
    cwd: dir,
    args: [
      'server',
      `-ip=${host}`,
      `-ip.bind=${host}`,
      `-dir=${join(dir, 'data')}`,
      `-master.port=${master}`,
      `-master.port.grpc=${masterGrpc}`,
      '-master.telemetry=false',
      // Small volumes (a fresh store allocates several at once), and enough of them for 2 GiB of objects.
      '-master.volumeSizeLimitMB=64',
      '-volume.max=32',
      `-volume.port=${volume}`,
      `-volume.port.grpc=${volumeGrpc}`,
      '-filer',
      `-filer.port=${filer}`,
      `-filer.port.grpc=${filerGrpc}`,
      '-s3',
      `-s3.port=${s3}`,
      `-s3.port.https=${s3Https}`,
      `-s3.cert.file=${tls.cert}`,
      `-s3.key.file=${tls.key}`,
      `-s3.port.grpc=${s3Grpc}`,
      '-s3.port.iceberg=0',
      `-s3.config=${s3Config}`,
    ],
  });
  let weed = start();
  const endpoint = `http://${host}:${s3}`;
  const region = 'us-east-1';
  const request: RunningSeaweedFs['request'] = (r) => signedS3Request({ endpoint, region, credentials, ...r });
  const stop = async (): Promise<void> => {
    await weed.stop(10_000);
    await rm(dir, { recursive: true, force: true });
  };
  // The S3 gateway answers once the filer does; creating a bucket succeeds once a volume server has joined the master,
  // and an object is served once the volume server has reported its volumes too. So readiness is a whole round trip: a
  // probe object written at the first start (in a bucket of its own, which nothing else lists) and read back. After an
  // interruption the filer answers for the bucket (HEAD) seconds before the volumes are back, when a GET still fails
  // with 500; only the probe's GET says the data is served again.
  const expectOk = async (method: 'PUT' | 'GET', path: string, body?: Buffer): Promise<string> => {
    const response = await request({ method, path, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    // Creating a bucket that exists (a retry after a partial start) is as good as creating it.
    if (!response.ok && !(method === 'PUT' && response.status === 409 && !path.slice(1).includes('/'))) {
      throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    }
    return text;
  };
  const ready = (phase: 'start' | 'resume'): Promise<'ready' | 'exited'> => waitFor(
    async () => {
      if (!weed.running) return 'exited' as const;
      if (phase === 'start') {
        await expectOk('PUT', `/${bucket}`);
        await expectOk('PUT', `/${READINESS_BUCKET}`);
        await expectOk('PUT', READINESS_PROBE, Buffer.from('served'));
      }
      const probe = await expectOk('GET', READINESS_PROBE);
      if (probe !== 'served') throw new Error(`GET ${READINESS_PROBE} answered ${JSON.stringify(probe)}`);
      return 'ready' as const;
    },
    { what: `SeaweedFS's S3 gateway on ${endpoint} to serve bucket ${bucket} and its objects (its log: ${logFile})`, timeoutMs: startTimeoutMs, intervalMs: 200 },
  ).catch(async (error: unknown) => {
    // The data directory stays: it holds the log the message points at.
    await weed.stop(10_000);
    throw error;
  }).then((outcome) => {
    if (outcome === 'exited') throw new Error(`SeaweedFS exited during start-up (${JSON.stringify(weed.exitStatus)}); see ${logFile}`);
    return outcome;
  });
  await ready('start');
  const interrupt = async (): Promise<{ resume(): Promise<void> }> => {
    await weed.stop(10_000);
    return {
      resume: async () => {
        weed = start();
        await ready('resume');
      },
    };
  };
  return {
    endpoint, httpsEndpoint: `https://${host}:${s3Https}`, caPem: pki.caPem, region, bucket, credentials, logFile, request,
    cpuSeconds: () => weed.cpuSeconds(), interrupt, stop,
  };
}
