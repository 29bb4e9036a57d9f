import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TestCluster, waitFor, type KubeApi } from '../src/index.ts';

interface Pod {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; containerID?: string; restartCount: number; state?: { running?: { startedAt?: string }; waiting?: { reason?: string; message?: string }; terminated?: { exitCode: number; message?: string } } }[];
  };
}
interface List<T> { items: T[] }
interface EndpointSlice { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }

let cluster: TestCluster;
let api: KubeApi;

beforeAll(async () => {
  cluster = await TestCluster.start({ restartBackoffBaseMs: 200 });
  api = await cluster.admin();
});
afterAll(async () => {
  await cluster.stop();
});

async function apply(manifest: string, kubeconfig?: string): Promise<void> {
  const result = await cluster.kubectl(['apply', '-f', '-'], { input: manifest, ...(kubeconfig ? { kubeconfig } : {}) });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
}

async function podsOf(namespace: string, selector: string): Promise<Pod[]> {
  return (await api.get<List<Pod>>(`/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector)}`))?.items ?? [];
}

const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('testkit local cluster', () => {
  test('RBAC is enforced: a ServiceAccount is refused what its Role does not grant', async () => {
    await apply(`
apiVersion: v1
kind: Namespace
metadata: {name: rbac}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: reader, namespace: rbac}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: configmap-reader, namespace: rbac}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, namespace: rbac}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: configmap-reader}
subjects: [{kind: ServiceAccount, name: reader, namespace: rbac}]
`);
    const kubeconfig = await cluster.serviceAccountKubeconfig('rbac', 'reader');
    const allowed = await cluster.kubectl(['get', 'configmaps', '-n', 'rbac'], { kubeconfig });
    expect(allowed.code).toBe(0);
    const refused = await cluster.kubectl(['get', 'secrets', '-n', 'rbac'], { kubeconfig });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('User "system:serviceaccount:rbac:reader" cannot list resource "secrets"');
  });

  test('a Deployment becomes a running Pod whose HTTP endpoint answers on its own address; deleting it stops the process', async () => {
    await apply(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: quay.io/daein/prodpage:latest
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}
`);
    const rollout = await cluster.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    expect(rollout.code).toBe(0);
    const [pod] = await podsOf('default', 'app=web');
    expect(pod?.status?.podIP).toMatch(/^127\.(?!0\.)\d+\.\d+\.\d+$/);
    const response = await fetch(`http://${pod?.status?.podIP ?? ''}:8080/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('Production Page !\n');
    const pid = Number(pod?.status?.containerStatuses?.[0]?.containerID?.replace('testkit://', ''));
    expect(pid).toBeGreaterThan(0);

    const deleted = await cluster.kubectl(['delete', 'deployment/web', '--wait=true']);
    expect(deleted.code).toBe(0);
    await waitFor(async () => (await podsOf('default', 'app=web')).length === 0, { what: 'the garbage collector to delete the Pods' });
    expect(() => process.kill(pid, 0)).toThrow();
  });

  test('a Service EndpointSlice lists the Ready Pod and drops it when its readiness probe starts failing', async () => {
    await apply(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: flaky, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: flaky}}
  template:
    metadata: {labels: {app: flaky}}
    spec:
      containers:
      - name: web
        image: quay.io/daein/prodpage:latest
        ports: [{containerPort: 8080}]
        readinessProbe: {tcpSocket: {port: 9999}, periodSeconds: 1, failureThreshold: 1}
---
apiVersion: v1
kind: Service
metadata: {name: flaky, namespace: default}
spec:
  selector: {app: flaky}
  ports: [{port: 8080, targetPort: 8080}]
`);
    const ip = await waitFor(async () => (await podsOf('default', 'app=flaky'))[0]?.status?.podIP, { what: 'a Pod IP' });
    const readyAddresses = async (): Promise<string[]> => {
      const slices = await api.get<List<EndpointSlice>>('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dflaky');
      return (slices?.items ?? []).flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready).flatMap((e) => e.addresses);
    };
    expect(await readyAddresses()).toEqual([]);
    // The probe target is a port this test controls on the Pod's address.
    const server: Server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(9999, ip, resolve));
    try {
      await waitFor(async () => (await readyAddresses()).includes(ip), { what: 'the Pod to appear as a ready endpoint' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    await waitFor(async () => !(await readyAddresses()).includes(ip), { what: 'the Pod to leave the ready endpoints' });
    await cluster.kubectl(['delete', 'deployment/flaky', 'service/flaky']);
  });

  test('a postgres:16 Pod accepts a pg connection with the password from its Secret, on a provisioned volume', async () => {
    await apply(`
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: default}
stringData: {password: s3cret-pw}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: db-data, namespace: default}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: default, labels: {app: db}}
spec:
  containers:
  - name: postgres
    image: postgres:16
    ports: [{containerPort: 5432}]
    env:
    - {name: POSTGRES_USER, value: app}
    - {name: POSTGRES_DB, value: appdb}
    - name: POSTGRES_PASSWORD
      valueFrom: {secretKeyRef: {name: db, key: password}}
    - {name: PGDATA, value: /var/lib/postgresql/data/pgdata}
    volumeMounts: [{name: data, mountPath: /var/lib/postgresql/data}]
    readinessProbe: {exec: {command: [pg_isready, -U, app, -d, appdb]}, periodSeconds: 1}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: db-data}
`);
    const pod = await waitFor(async () => (await podsOf('default', 'app=db')).find(isReady), { what: 'the postgres Pod to be Ready', timeoutMs: 90_000 });
    const volume = await waitFor(async () => (await api.get<{ spec: { volumeName?: string } }>('/api/v1/namespaces/default/persistentvolumeclaims/db-data'))?.spec.volumeName, { what: 'the claim to be bound' });
    const hostPath = (await api.get<{ spec: { hostPath: { path: string } } }>(`/api/v1/persistentvolumes/${volume}`))?.spec.hostPath.path ?? '';
    // The data lives on the provisioned volume, not in the container's throw-away layer.
    expect(existsSync(join(hostPath, 'pgdata', 'PG_VERSION'))).toBe(true);
    const client = new pg.Client({ host: pod.status?.podIP, port: 5432, user: 'app', password: 's3cret-pw', database: 'appdb' });
    await client.connect();
    let socketDirectory: string;
    try {
      const result = await client.query<{ db: string; user: string }>('SELECT current_database() AS db, current_user AS user');
      expect(result.rows[0]).toEqual({ db: 'appdb', user: 'app' });
      socketDirectory = (await client.query<{ unix_socket_directories: string }>('SHOW unix_socket_directories')).rows[0]?.unix_socket_directories ?? '';
    } finally {
      await client.end();
    }
    // The socket lives outside the Pod's directory (socket paths are limited to 107 bytes), and goes with the Pod too.
    expect(existsSync(socketDirectory)).toBe(true);
    const wrong = new pg.Client({ host: pod.status?.podIP, port: 5432, user: 'app', password: 'wrong', database: 'appdb' });
    await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
    const claim = await api.get<{ status: { phase: string } }>('/api/v1/namespaces/default/persistentvolumeclaims/db-data');
    expect(claim?.status.phase).toBe('Bound');
    await cluster.kubectl(['delete', 'pod/db', 'pvc/db-data', 'secret/db']);
    await waitFor(() => !existsSync(socketDirectory), { what: `the Pod's socket directory ${socketDirectory} to be removed` });
  });

  test('an image that matches nothing waits with ErrImagePull naming the image', async () => {
    await apply(`
apiVersion: v1
kind: Pod
metadata: {name: unmapped, namespace: default, labels: {app: unmapped}}
spec:
  containers: [{name: main, image: registry.example.com/team/unknown:1.2.3}]
`);
    const waiting = await waitFor(async () => (await podsOf('default', 'app=unmapped'))[0]?.status?.containerStatuses?.[0]?.state?.waiting, { what: 'a waiting container status' });
    expect(waiting.reason).toBe('ErrImagePull');
    expect(waiting.message).toContain('registry.example.com/team/unknown:1.2.3');
    await cluster.kubectl(['delete', 'pod/unmapped', '--wait=true']);
  });

  test('a Pod violating the restricted Pod Security level is rejected in a namespace that enforces it', async () => {
    await apply(`
apiVersion: v1
kind: Namespace
metadata:
  name: locked
  labels: {pod-security.kubernetes.io/enforce: restricted}
`);
    const result = await cluster.kubectl(['apply', '-f', '-'], { input: `
apiVersion: v1
kind: Pod
metadata: {name: root, namespace: locked}
spec:
  containers: [{name: main, image: busybox:1.36, command: [sleep, '60'], securityContext: {privileged: true}}]
` });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('violates PodSecurity "restricted:latest"');
  });

  test('a Job runs to completion and its output is readable with kubectl logs', async () => {
    await apply(`
apiVersion: batch/v1
kind: Job
metadata: {name: hello, namespace: default}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox:1.36, command: [sh, -c, 'echo "hello from $(POD_NAME)"'], env: [{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}]
`);
    const done = await cluster.kubectl(['wait', '--for=condition=complete', 'job/hello', '--timeout=60s']);
    expect(done.code).toBe(0);
    const [pod] = await podsOf('default', 'job-name=hello');
    expect(pod?.status?.phase).toBe('Succeeded');
    const logs = await cluster.kubectl(['logs', 'job/hello']);
    expect(logs.stdout).toBe(`hello from ${pod?.metadata.name ?? ''}\n`);
  });

  test('kubectl logs --previous shows the container before its last restart, as the kubelet keeps it', async () => {
    // Each run counts itself in an emptyDir (which outlives restarts) and fails, until the third, which stays up.
    await apply(`
apiVersion: v1
kind: Pod
metadata: {name: restarting, namespace: default, labels: {app: restarting}}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 1
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: main
    image: busybox:1.36
    volumeMounts: [{name: data, mountPath: /data}]
    command: [sh, -c, 'n=$(($(cat "$1" 2>/dev/null || echo 0) + 1)); echo $n > "$1"; echo "run $n"; if [ $n -ge 3 ]; then exec sleep 3600; fi; exit 1', sh, /data/n]
  - {name: steady, image: busybox:1.36, command: [sleep, '3600']}
`);
    await waitFor(async () => {
      const main = (await podsOf('default', 'app=restarting'))[0]?.status?.containerStatuses?.find((c) => c.name === 'main');
      return main?.restartCount === 2 && main.state?.running !== undefined ? main : undefined;
    }, { what: 'the third run to be up' });
    await waitFor(async () => (await cluster.kubectl(['logs', 'restarting', '-c', 'main'])).stdout === 'run 3\n' || undefined, { what: 'the third run to log' });
    expect((await cluster.kubectl(['logs', 'restarting', '-c', 'main', '--previous'])).stdout).toBe('run 2\n');
    const never = await cluster.kubectl(['logs', 'restarting', '-c', 'steady', '--previous']);
    expect(never.code).not.toBe(0);
    expect(never.stderr).toContain('previous terminated container "steady" in pod "restarting" not found');
    await cluster.kubectl(['delete', 'pod/restarting', '--wait=true']);
  });

  test("what a container writes to its terminationMessagePath is its terminated state's message", async () => {
    await apply(`
apiVersion: v1
kind: Pod
metadata: {name: last-words, namespace: default, labels: {app: last-words}}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox:1.36, terminationMessagePath: /dev/result, command: [sh, -c, 'echo "$1" > "$2"; exit 3', sh, 'dump stored, manifest written', /dev/result]}
  - {name: quiet, image: busybox:1.36, command: [sh, -c, 'exit 0']}
`);
    const terminated = await waitFor(async () => {
      const statuses = (await podsOf('default', 'app=last-words'))[0]?.status?.containerStatuses ?? [];
      return statuses.length === 2 && statuses.every((s) => s.state?.terminated) ? statuses : undefined;
    }, { what: 'both containers to end' });
    const byName = new Map(terminated.map((s) => [s.name, s.state?.terminated]));
    expect(byName.get('main')).toMatchObject({ exitCode: 3, message: 'dump stored, manifest written\n' });
    expect(byName.get('quiet')?.exitCode).toBe(0);
    expect(byName.get('quiet')?.message).toBeUndefined();
  });

  test('a failing liveness probe restarts the container', async () => {
    await apply(`
apiVersion: v1
kind: Pod
metadata: {name: unhealthy, namespace: default, labels: {app: unhealthy}}
spec:
  containers:
  - name: web
    image: quay.io/daein/prodpage:latest
    ports: [{containerPort: 8080}]
    livenessProbe: {tcpSocket: {port: 8081}, periodSeconds: 1, failureThreshold: 1}
  terminationGracePeriodSeconds: 1
`);
    const restarted = await waitFor(async () => {
      const status = (await podsOf('default', 'app=unhealthy'))[0]?.status?.containerStatuses?.[0];
      return status && status.restartCount >= 1 ? status : undefined;
    }, { what: 'the container to be restarted' });
    expect(restarted.restartCount).toBeGreaterThanOrEqual(1);
    await cluster.kubectl(['delete', 'pod/unhealthy', '--wait=true']);
  });
});
