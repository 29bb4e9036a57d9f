// The local node running Pods from images through the container engine, as a kubelet would: the Pod's user, groups,
// read-only root, volumes, env, ServiceAccount token, limits and probes, its logs, restarts and graceful stop. Uses
// the page server image (npm run images builds it), whose runtime is distroless Node, with a command of its own.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { engineAvailable, projectImageMode } from '../src/node/runners/index.ts';
import { TestCluster, waitFor, type KubeApi } from '../src/index.ts';

const IMAGE = 'ghcr.io/k8s-operators/maintpage-page-server:0.1.0';
const NS = 'engine';
const run = promisify(execFile);

interface ContainerStatus {
  containerID?: string;
  imageID?: string;
  restartCount: number;
  state?: { waiting?: { reason?: string; message?: string }; running?: object; terminated?: { exitCode: number } };
  lastState?: { terminated?: { exitCode: number } };
}
interface Pod { status?: { podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: ContainerStatus[] } }

// A small program for the container: it reports what it sees and serves it on the Pod's address.
const PROBE_PROGRAM = `
const fs = require('node:fs'); const http = require('node:http');
const attempt = (f) => { try { f(); return 'ok'; } catch (e) { return e.code; } };
const report = {
  uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(),
  password: process.env.PASSWORD, kubernetesService: process.env.KUBERNETES_SERVICE_HOST + ':' + process.env.KUBERNETES_SERVICE_PORT,
  config: fs.readFileSync('/etc/app/greeting', 'utf8'),
  token: fs.readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/token', 'utf8').split('.').length,
  writeRoot: attempt(() => fs.writeFileSync('/oops', 'x')),
  writeTmp: attempt(() => fs.writeFileSync('/tmp/ok', 'x')),
  writeData: attempt(() => fs.writeFileSync('/data/from-container', 'kept')),
};
console.log('started as', report.uid);
process.on('SIGTERM', () => { console.log('got SIGTERM, stopping'); process.exit(0); });
http.createServer((req, res) => res.end(req.url === '/healthz' ? 'ok' : JSON.stringify(report))).listen(8080, process.env.POD_IP);
`;

const engineMode = projectImageMode() === 'engine' || (projectImageMode() === 'auto' && (await engineAvailable()));
let cluster: TestCluster;
let api: KubeApi;

async function pod(name: string): Promise<Pod | undefined> {
  return api.get<Pod>(`/api/v1/namespaces/${NS}/pods/${name}`);
}
async function containerOf(name: string): Promise<ContainerStatus | undefined> {
  return (await pod(name))?.status?.containerStatuses?.[0];
}

describe.runIf(engineMode)('the local node runs images through the container engine', () => {
  beforeAll(async () => {
    // Any image can be run through the engine with a rule of the user's image map.
    const mapDir = await mkdtemp(join(tmpdir(), 'engine-map-'));
    await writeFile(join(mapDir, 'map.yaml'), 'images:\n  - {match: "registry.example/*", runner: engine}\n');
    cluster = await TestCluster.start({ restartBackoffBaseMs: 200, imageMapFile: join(mapDir, 'map.yaml') });
    api = await cluster.admin();
    const applied = await cluster.kubectl(['apply', '-f', '-'], { input: `
apiVersion: v1
kind: Namespace
metadata: {name: ${NS}, labels: {pod-security.kubernetes.io/enforce: restricted}}
---
apiVersion: v1
kind: Secret
metadata: {name: app, namespace: ${NS}}
stringData: {password: hunter2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: app, namespace: ${NS}}
data: {greeting: hello from a ConfigMap}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: ${NS}}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
` });
    expect(applied.stderr).toBe('');
  }, 120_000);
  afterAll(async () => {
    await cluster.stop();
  });

  test('a restricted Pod runs from its image with its user, volumes, env and token, answers on its address, and stops gracefully', async () => {
    const created = await cluster.kubectl(['apply', '-f', '-'], { input: `
apiVersion: v1
kind: Pod
metadata: {name: reporter, namespace: ${NS}}
spec:
  terminationGracePeriodSeconds: 20
  securityContext: {runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 2000, seccompProfile: {type: RuntimeDefault}}
  containers:
    - name: main
      image: ${IMAGE}
      command: [/nodejs/bin/node, -e, ${JSON.stringify(PROBE_PROGRAM)}]
      env:
        - {name: PASSWORD, valueFrom: {secretKeyRef: {name: app, key: password}}}
        - {name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
      ports: [{name: http, containerPort: 8080}]
      readinessProbe: {httpGet: {path: /healthz, port: http}, periodSeconds: 1}
      resources: {limits: {cpu: 500m, memory: 128Mi}}
      securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
      volumeMounts:
        - {name: config, mountPath: /etc/app}
        - {name: tmp, mountPath: /tmp}
        - {name: data, mountPath: /data}
  volumes:
    - {name: config, configMap: {name: app}}
    - {name: tmp, emptyDir: {}}
    - {name: data, persistentVolumeClaim: {claimName: data}}
` });
    expect(created.stderr).toBe('');
    await waitFor(async () => (await pod('reporter'))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      { what: 'Pod reporter to be Ready', timeoutMs: 60_000 });
    const status = await containerOf('reporter');
    expect(status?.containerID).toMatch(/^docker:\/\//);
    expect(status?.imageID).toMatch(/^sha256:/);

    const podIP = (await pod('reporter'))?.status?.podIP ?? '';
    const report = await (await fetch(`http://${podIP}:8080/report`)).json() as Record<string, unknown>;
    const apiPort = new URL(cluster.controlPlane.url).port;
    expect(report).toEqual({
      uid: 65532, gid: 65532, groups: expect.arrayContaining([65532, 2000]) as unknown, password: 'hunter2', kubernetesService: `127.0.0.1:${apiPort}`,
      config: 'hello from a ConfigMap', token: 3, writeRoot: 'EROFS', writeTmp: 'ok', writeData: 'ok',
    });
    // What the container wrote to its PersistentVolume is on the volume.
    const claim = await api.get<{ spec: { volumeName: string } }>(`/api/v1/namespaces/${NS}/persistentvolumeclaims/data`);
    const volume = await api.get<{ spec: { hostPath: { path: string } } }>(`/api/v1/persistentvolumes/${claim?.spec.volumeName ?? ''}`);
    expect(await readFile(join(volume?.spec.hostPath.path ?? '', 'from-container'), 'utf8')).toBe('kept');

    const logs = await cluster.kubectl(['-n', NS, 'logs', 'reporter']);
    expect(logs.stdout).toBe('started as 65532\n');

    const deleted = await cluster.kubectl(['-n', NS, 'delete', 'pod', 'reporter', '--wait=true', '--timeout=60s']);
    expect(deleted.code).toBe(0);
    const left = await run('docker', ['ps', '--all', '--quiet', '--filter', 'label=io.kubernetes.pod.name=reporter']);
    expect(left.stdout).toBe('');
    const logFile = (await run('sh', ['-c', `cat ${cluster.dir}/node/logs/${NS}_reporter_*/main.log 2>/dev/null || true`])).stdout;
    expect(logFile).toContain('got SIGTERM, stopping');
  }, 120_000);

  test('a crashing container is restarted with its exit code kept; one over its memory limit is killed', async () => {
    const created = await cluster.kubectl(['apply', '-f', '-'], { input: `
apiVersion: v1
kind: Pod
metadata: {name: crasher, namespace: ${NS}}
spec:
  securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: RuntimeDefault}}
  containers:
    - name: main
      image: ${IMAGE}
      command: [/nodejs/bin/node, -e, "process.exit(3)"]
      securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
---
apiVersion: v1
kind: Pod
metadata: {name: hog, namespace: ${NS}}
spec:
  restartPolicy: Never
  securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: RuntimeDefault}}
  containers:
    - name: main
      image: ${IMAGE}
      command: [/nodejs/bin/node, -e, "const kept = []; for (;;) kept.push(Buffer.alloc(16 << 20, 1))"]
      resources: {limits: {memory: 64Mi}}
      securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
` });
    expect(created.stderr).toBe('');
    await waitFor(async () => ((await containerOf('crasher'))?.restartCount ?? 0) >= 2, { what: 'crasher to be restarted twice', timeoutMs: 60_000 });
    expect((await containerOf('crasher'))?.lastState?.terminated?.exitCode).toBe(3);
    await waitFor(async () => (await containerOf('hog'))?.state?.terminated !== undefined, { what: 'hog to be terminated', timeoutMs: 60_000 });
    // Killed by the kernel's OOM killer inside the container's memory limit: 128 + SIGKILL.
    expect((await containerOf('hog'))?.state?.terminated?.exitCode).toBe(137);
  }, 120_000);

  test('an image the engine does not hold is never pulled: the container waits with the image named', async () => {
    const image = 'registry.example/app:1';
    const created = await cluster.kubectl(['-n', NS, 'run', 'missing', `--image=${image}`, '--restart=Never',
      `--overrides=${JSON.stringify({ spec: { securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [{ name: 'missing', image, securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }] } })}`]);
    expect(created.stderr).toBe('');
    await waitFor(async () => (await containerOf('missing'))?.state?.waiting?.reason === 'RunContainerError', { what: 'missing to report RunContainerError', timeoutMs: 30_000 });
    expect((await containerOf('missing'))?.state?.waiting?.message).toBe(
      `image ${image} is not in the container engine and the testkit node never pulls: build it (npm run images) or load it`);
  }, 60_000);
});
