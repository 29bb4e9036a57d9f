import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { REPOSITORY_ROOT, type E2eCluster } from './e2e.ts';
import { startPrometheus, type RunningPrometheus, type ScrapeConfig } from './prometheus.ts';
import { shippedRuleFiles } from './prometheus-rules.ts';
import { waitFor } from './wait-for.ts';

export interface OperatorScrape {
  prometheus: RunningPrometheus;
  /** The Prometheus job that scrapes as deploy/<operator>/prometheus/monitor.yaml says: the operator's name. */
  job: string;
  /** Why Prometheus' scrapes with no token, and with a token whose user lacks the metrics-reader binding, failed. */
  refusals: { noToken: string; noBinding: string };
  /** The sum over the job's series of a selector such as `workqueue_depth` or `x_total{result="success"}`; undefined when none. */
  total(selector: string): Promise<number | undefined>;
  stop(): Promise<void>;
}

/** What a Prometheus outside the cluster needs to scrape operators as their ServiceMonitors say. */
export interface ScrapeAccess {
  /** The API server Prometheus discovers endpoints through, and its CA file. */
  apiServer: string;
  caFile: string;
  /** A token file of the `prometheus` ServiceAccount: discovery rights and every operator's metrics-reader binding. */
  prometheusToken: string;
  /** A token file of `serviceAccount` in the monitoring namespace (e.g. one with no binding). */
  tokenFile(serviceAccount: string): Promise<string>;
  /** Deletes the token and CA files (the cluster's objects stay, with the cluster). */
  remove(): Promise<void>;
}

/**
 * Creates the monitoring namespace `ns` with a `prometheus` ServiceAccount that may discover endpoints (as
 * prometheus-operator's own RBAC grants) and is bound to each operator's `<operator>-metrics-reader` ClusterRole, plus
 * an `intruder` ServiceAccount with no binding; returns the files a Prometheus started here needs.
 */
export async function prepareScrapeAccess(cluster: Pick<E2eCluster, 'kubectlOk'>, ns: string, operators: readonly string[]): Promise<ScrapeAccess> {
  const bindings = operators.map((operator) => `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ${ns}-${operator}-metrics-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${operator}-metrics-reader}
subjects: [{kind: ServiceAccount, name: prometheus, namespace: ${ns}}]`).join('');
  await cluster.kubectlOk(['apply', '-f', '-'], { input: `
apiVersion: v1
kind: Namespace
metadata: {name: ${ns}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: prometheus, namespace: ${ns}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: intruder, namespace: ${ns}}
---
# What Prometheus needs for service discovery, as prometheus-operator's own RBAC grants it.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ${ns}-discovery}
rules:
  - {apiGroups: [""], resources: [services, endpoints, pods], verbs: [get, list, watch]}
  - {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ${ns}-discovery}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${ns}-discovery}
subjects: [{kind: ServiceAccount, name: prometheus, namespace: ${ns}}]${bindings}
` });
  const dir = await mkdtemp(join(tmpdir(), 'prometheus-auth-'));
  const tokenFile = async (serviceAccount: string): Promise<string> => {
    const file = join(dir, `${serviceAccount}.token`);
    await writeFile(file, (await cluster.kubectlOk(['-n', ns, 'create', 'token', serviceAccount, '--duration=24h'])).trim());
    return file;
  };
  const kubeconfig = parse(await cluster.kubectlOk(['config', 'view', '--raw', '--minify'])) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] };
  const apiServer = kubeconfig.clusters[0]?.cluster;
  const caFile = join(dir, 'ca.crt');
  await writeFile(caFile, Buffer.from(apiServer?.['certificate-authority-data'] ?? '', 'base64'));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  return { apiServer: apiServer?.server ?? '', caFile, prometheusToken: await tokenFile('prometheus'), tokenFile, remove };
}

/** Whether deploy/<operator>/prometheus/monitor.yaml's manager endpoint keeps the target's own labels (`honorLabels`). */
async function monitorHonorsLabels(operator: string): Promise<boolean> {
  const text = await readFile(join(REPOSITORY_ROOT, 'deploy', operator, 'prometheus', 'monitor.yaml'), 'utf8');
  const monitor = parseAllDocuments(text).map((d) => d.toJSON() as { spec?: { endpoints?: { honorLabels?: boolean }[] } } | null)[0];
  return monitor?.spec?.endpoints?.[0]?.honorLabels === true;
}

/**
 * A scrape job as an operator's ServiceMonitor says: endpoints of the `<operator>-controller-manager-metrics` Service
 * (and of `alsoServices`, other Services of the operator's namespace that its other ServiceMonitors select) found
 * through the API server, port `https`, HTTPS without verification (the certificates are self-signed), the target's
 * labels kept where the monitor says `honorLabels`, with the bearer token in `credentials` (none: no Authorization).
 */
export async function serviceMonitorJob(name: string, operator: string, access: ScrapeAccess, credentials: string | undefined, alsoServices: readonly string[] = []): Promise<ScrapeConfig> {
  return {
    job_name: name, scheme: 'https', tls_config: { insecure_skip_verify: true }, honor_labels: await monitorHonorsLabels(operator),
    ...(credentials === undefined ? {} : { authorization: { credentials_file: credentials } }),
    kubernetes_sd_configs: [{
      role: 'endpointslice', api_server: access.apiServer, namespaces: { names: [`${operator}-system`] },
      tls_config: { ca_file: access.caFile }, authorization: { credentials_file: access.prometheusToken },
    }],
    relabel_configs: [
      { source_labels: ['__meta_kubernetes_service_name'], regex: [`${operator}-controller-manager-metrics`, ...alsoServices].join('|'), action: 'keep' },
      { source_labels: ['__meta_kubernetes_endpointslice_port_name'], regex: 'https', action: 'keep' },
    ],
  };
}

/**
 * Runs a real Prometheus that scrapes an installed operator the way its ServiceMonitor does (serviceMonitorJob), with
 * the token of a ServiceAccount bound to `<operator>-metrics-reader`, and evaluates the operator's shipped
 * PrometheusRules every second (so a spec reads its alerts from `prometheus.alerts()`). Two more jobs scrape the same
 * endpoints with no token and with the token of a ServiceAccount that has no binding: their series carry only `up` and
 * the scrape's own, which no shipped rule reads. Resolves once all three have scraped every endpoint.
 */
export async function scrapeOperatorWithPrometheus(cluster: E2eCluster, operator: string, alsoServices: readonly string[] = []): Promise<OperatorScrape> {
  const access = await prepareScrapeAccess(cluster, `${operator}-monitoring`, [operator]);
  const job = (name: string, credentials: string | undefined): Promise<ScrapeConfig> => serviceMonitorJob(name, operator, access, credentials, alsoServices);
  const rulesDir = await mkdtemp(join(tmpdir(), `${operator}-rules-`));
  const started = await startPrometheus([
    await job(operator, access.prometheusToken), await job(`${operator}-no-token`, undefined), await job(`${operator}-no-binding`, await access.tokenFile('intruder')),
  ], { ruleFiles: await shippedRuleFiles([operator], rulesDir) });
  const prometheus: RunningPrometheus = {
    ...started,
    stop: async () => {
      await started.stop();
      await rm(rulesDir, { recursive: true, force: true });
      await access.remove();
    },
  };
  try {
    const scraped = await waitFor(async () => {
      const targets = await prometheus.targets();
      // Every target of the pool scraped at least once (an operator runs several replicas): 'up' when all answered.
      const of = (pool: string): string | undefined => {
        const scraped = targets.filter((t) => t.scrapePool === pool);
        if (scraped.length === 0 || scraped.some((t) => t.health === 'unknown')) return undefined;
        return scraped.find((t) => t.health !== 'up')?.lastError ?? 'up';
      };
      const [ok, noToken, noBinding] = [of(operator), of(`${operator}-no-token`), of(`${operator}-no-binding`)];
      return ok === 'up' && noToken !== undefined && noBinding !== undefined ? { noToken, noBinding } : undefined;
    }, { what: `Prometheus to scrape ${operator} (targets up, and the refused ones tried)`, timeoutMs: 60_000 });
    const total = async (selector: string): Promise<number | undefined> => {
      const ofJob = selector.includes('{') ? selector.replace('{', `{job="${operator}",`) : `${selector}{job="${operator}"}`;
      return (await prometheus.query(`sum(${ofJob})`))[0]?.value;
    };
    return { prometheus, job: operator, refusals: scraped, total, stop: () => prometheus.stop() };
  } catch (error) {
    await prometheus.stop();
    throw error;
  }
}
