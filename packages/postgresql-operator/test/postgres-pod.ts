import { TestCluster, waitFor } from '@k8s-operators/testkit';
import { connectionParameters, type ConnectionParameters } from '../src/postgres/connection.ts';

interface Pod {
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}

/**
 * A `postgres:15` Pod on testkit's local node (a real PostgreSQL on its own loopback address), with the official
 * image's environment contract, as the operator will run it. Resolves once the readiness probe passes.
 */
export async function startPostgresPod(
  cluster: TestCluster,
  options: { name: string; user: string; password: string; database: string },
): Promise<ConnectionParameters> {
  const { name, user, password, database } = options;
  const applied = await cluster.kubectl(['apply', '-f', '-'], {
    input: `
apiVersion: v1
kind: Secret
metadata: {name: ${name}-password}
stringData: {postgresql_password: ${JSON.stringify(password)}}
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  containers:
  - name: postgres
    image: postgres:15
    ports: [{containerPort: 5432}]
    env:
    - {name: POSTGRES_USER, value: ${user}}
    - {name: POSTGRES_DB, value: ${database}}
    - name: POSTGRES_PASSWORD
      valueFrom: {secretKeyRef: {name: ${name}-password, key: postgresql_password}}
    readinessProbe: {exec: {command: [pg_isready, -U, ${user}]}, periodSeconds: 1}
`,
  });
  if (applied.code !== 0) throw new Error(`applying the postgres Pod failed: ${applied.stderr}`);
  const api = await cluster.admin();
  const podIP = await waitFor(
    async () => {
      const pod = await api.get<Pod>(`/api/v1/namespaces/default/pods/${name}`);
      const ready = pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      return ready ? pod?.status?.podIP : undefined;
    },
    { what: `postgres Pod ${name} to be Ready`, timeoutMs: 90_000 },
  );
  return connectionParameters({ podIP, database, user, password });
}
