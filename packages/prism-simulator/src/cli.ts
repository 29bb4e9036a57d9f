#!/usr/bin/env node
// Runs a Prism Central simulator (v3 and v4 APIs) in the foreground until SIGINT or SIGTERM:
//
//   npm run prism-simulator -- --port <p> [--host <addr>] [--tls] [--ca-out <file>] [--tls-san <name>]...
//       [--user <u>] [--password <p>] [--api-key <key>]... [--no-basic-auth] [--cluster-name <n>] [--cluster-uuid <uuid>]
//       [--apis both|v3|v4] [--config <file.json>]
//
// --config reads a JSON file with any of startPrismSimulator's options (seeds, among them each cluster's GPUs and
// storage containers, categories, timings, editConflicts, faults); the flags win over it.

import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ADMIN_BASE_PATH } from './admin-api.ts';
import { DEFAULT_CLUSTERS, GPU_TYPES, GPU_VENDORS, type ClusterSeed } from './inventory.ts';
import { PRISM_BASE_PATH } from './prism-endpoints.ts';
import { PRISM_CATEGORIES_PATH, PRISM_TASKS_PATH, V4_INVENTORY_PATHS, VMM_VMS_PATH } from './v4-endpoints.ts';
import { validate, type ObjectSchema } from './schema-validation.ts';
import { SERVED_APIS, startPrismSimulator, type PrismSimulatorOptions, type ServedApis } from './server.ts';

const USAGE = `Usage: prism-simulator [options]

  --port <p>            port to listen on (default 9440; 0 picks a free port)
  --host <addr>         address to listen on (default 127.0.0.1)
  --tls                 serve HTTPS with a certificate signed by a fresh CA
  --ca-out <file>       with --tls: write the CA certificate (PEM) to <file>
  --tls-san <name>      with --tls: extra DNS name or IP for the certificate (repeatable)
  --user <u>            user name (default admin)
  --password <p>        password (default Nutanix/4u)
  --api-key <key>       accept this Prism Central service-account API key in X-ntnx-api-key (repeatable)
  --no-basic-auth       refuse Basic credentials: clients get in with an --api-key only
  --cluster-name <n>    name of the (first) cluster
  --cluster-uuid <uuid> uuid of the (first) cluster
  --apis <both|v3|v4>   serve both APIs (default), or only v3 or only v4 (the other answers 404)
  --config <file>       JSON file with startPrismSimulator options, e.g. clusters with their gpus and
                        storageContainers (flags win)
  --help                show this help
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      tls: { type: 'boolean' },
      'ca-out': { type: 'string' },
      'tls-san': { type: 'string', multiple: true },
      user: { type: 'string' },
      password: { type: 'string' },
      'api-key': { type: 'string', multiple: true },
      'basic-auth': { type: 'boolean' },
      'cluster-name': { type: 'string' },
      'cluster-uuid': { type: 'string' },
      config: { type: 'string' },
      apis: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
    // --no-basic-auth
    allowNegative: true,
  });
  if (values.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  const options = values.config === undefined ? {} : await readConfig(values.config);
  const apis = SERVED_APIS.find((served) => served === values.apis);
  if (values.apis !== undefined && apis === undefined) throw new Error(`--apis must be one of ${SERVED_APIS.join(', ')}, got '${values.apis}'`);
  const port = values.port === undefined ? (options.port ?? 9440) : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got '${values.port ?? ''}'`);
  if (values['ca-out'] !== undefined && values.tls !== true && options.tls !== true) throw new Error('--ca-out needs --tls');
  const [firstCluster = DEFAULT_CLUSTERS[0], ...otherClusters] = options.clusters ?? DEFAULT_CLUSTERS;
  // The flags name the first cluster; its GPUs and storage containers from --config stay.
  const cluster: ClusterSeed = {
    ...firstCluster,
    name: values['cluster-name'] ?? firstCluster?.name ?? 'sim-cluster-01',
    uuid: values['cluster-uuid'] ?? firstCluster?.uuid ?? '',
  };

  const simulator = await startPrismSimulator({
    ...options,
    port,
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(values.tls === true ? { tls: true } : {}),
    ...(values['tls-san'] === undefined ? {} : { tlsHostnames: values['tls-san'] }),
    ...(values.user === undefined ? {} : { username: values.user }),
    ...(values.password === undefined ? {} : { password: values.password }),
    ...(values['api-key'] === undefined ? {} : { apiKeys: values['api-key'] }),
    ...(values['basic-auth'] === undefined ? {} : { basicAuth: values['basic-auth'] }),
    ...(apis === undefined ? {} : { apis }),
    clusters: [cluster, ...otherClusters],
  });
  const caOut = values['ca-out'];
  if (caOut !== undefined && simulator.caCertPem !== undefined) await writeFile(caOut, simulator.caCertPem);

  const lines = [
    `Prism Central simulator (${SERVED[apis ?? options.apis ?? 'both']}) listening on ${simulator.url}`,
    `  api:       ${simulator.url}${PRISM_BASE_PATH}`,
    `  v4 api:    ${simulator.url}${VMM_VMS_PATH}, ${simulator.url}${PRISM_TASKS_PATH}, ${simulator.url}${PRISM_CATEGORIES_PATH}`,
    `  v4 reads:  ${V4_INVENTORY_PATHS.map((path) => `${simulator.url}${path}`).join(', ')}`,
    ...(simulator.basicAuth ? [`  username:  ${simulator.username}`, `  password:  ${simulator.password}`] : ['  basic auth: off (API keys only)']),
    ...simulator.apiKeys.map((key) => `  api key:   ${key} (X-ntnx-api-key)`),
    ...simulator.clusters.flatMap((c) => [
      `  cluster:   ${c.name} ${c.uuid}`,
      ...(c.storageContainers ?? []).map((sc) => `    storage container: ${sc.name} ${sc.uuid}`),
      ...(c.gpus ?? []).map((g) => `    gpu:       ${g.deviceName} (device id ${String(g.deviceId)}, ${g.vendorName}, ${g.type}) x${String(g.count ?? 1)}`),
    ]),
    ...simulator.images.map((i) => `  image:     ${i.name} ${i.uuid}`),
    ...simulator.projects.map((p) => `  project:   ${p.name} ${p.uuid}`),
    ...simulator.subnets.map((s) => `  subnet:    ${s.name} ${s.uuid} ${s.cidr}${s.vpcUuid === undefined ? '' : ` (overlay in VPC ${s.vpcUuid})`}${s.ipam ? ' (IPAM)' : ' (external DHCP)'}`),
    `  PC entity: ${simulator.prismCentral.name} ${simulator.prismCentral.uuid} (listed with the clusters, hosts no VMs)`,
    ...simulator.categories.map((c) => `  category:  ${c.name}: ${c.values.join(', ')}`),
    `  admin:     ${simulator.url}${ADMIN_BASE_PATH}/faults, ${simulator.url}${ADMIN_BASE_PATH}/inspect, ${simulator.url}${ADMIN_BASE_PATH}/requests`,
  ];
  if (simulator.caCertPem !== undefined) lines.push(caOut === undefined ? `  CA certificate:\n${simulator.caCertPem.trimEnd()}` : `  CA certificate written to ${caOut}`);
  process.stdout.write(`${lines.join('\n')}\n`);

  await new Promise<void>((resolve) => {
    const shutdown = (signal: NodeJS.Signals): void => {
      process.stdout.write(`received ${signal}, stopping\n`);
      resolve();
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });
  await simulator.stop();
}

/** The banner's heading: which APIs answer. */
const SERVED: Readonly<Record<ServedApis, string>> = { both: 'v3 and v4', v3: 'v3 only, v4 answers 404', v4: 'v4 only, v3 answers 404' };

const seed = (properties: ObjectSchema['properties'], required: string[]): ObjectSchema => ({ type: 'object', additionalProperties: false, required, properties });
const name = { type: 'string', minLength: 1 } as const;

/** The JSON-expressible options of startPrismSimulator. Fault rules are checked when they are added. */
const configSchema: ObjectSchema = seed({
  host: name,
  port: { type: 'integer', minimum: 0, maximum: 65535 },
  tls: { type: 'boolean' },
  tlsHostnames: { type: 'array', items: name },
  username: name,
  password: name,
  basicAuth: { type: 'boolean' },
  apiKeys: { type: 'array', items: name },
  clusters: {
    type: 'array',
    items: seed({
      name,
      uuid: name,
      creationTime: name,
      gpus: {
        type: 'array',
        items: seed({
          type: { type: 'string', enum: GPU_TYPES },
          deviceId: { type: 'integer', minimum: 0 },
          deviceName: name,
          vendorName: { type: 'string', enum: GPU_VENDORS },
          count: { type: 'integer', minimum: 1 },
          frameBufferSizeBytes: { type: 'integer', minimum: 0 },
        }, ['type', 'deviceId', 'deviceName', 'vendorName']),
      },
      storageContainers: { type: 'array', items: seed({ name, uuid: name }, ['name', 'uuid']) },
    }, ['name', 'uuid']),
  },
  images: { type: 'array', items: seed({ name, uuid: name, sizeBytes: { type: 'integer', minimum: 0 }, creationTime: name }, ['name', 'uuid', 'sizeBytes']) },
  subnets: { type: 'array', items: seed({ name, uuid: name, type: { type: 'string', enum: ['VLAN', 'OVERLAY'] }, cidr: name, ipam: { type: 'boolean' }, clusterUuid: name, vpcUuid: name, creationTime: name }, ['name', 'uuid', 'cidr', 'ipam']) },
  projects: { type: 'array', items: seed({ name, uuid: name, creationTime: name }, ['name', 'uuid']) },
  prismCentral: seed({ name, uuid: name, creationTime: name }, ['name', 'uuid']),
  categories: { type: 'array', items: seed({ name, description: { type: 'string' }, values: { type: 'array', items: name } }, ['name', 'values']) },
  timings: seed(Object.fromEntries(['createMs', 'updateMs', 'deleteMs', 'learnedIpMs'].map((key) => [key, { type: 'integer', minimum: 0 }])), []),
  editConflicts: { type: 'string', enum: ['sync-409', 'async-task'] },
  apis: { type: 'string', enum: [...SERVED_APIS] },
  faults: seed({ seed: { type: 'integer' }, rules: { type: 'array', items: { type: 'object' } } }, []),
}, []);

async function readConfig(file: string): Promise<PrismSimulatorOptions> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
  const details = validate(configSchema, parsed);
  if (Object.keys(details).length > 0) throw new Error(`${file} is not a valid simulator configuration: ${JSON.stringify(details)}`);
  return parsed as PrismSimulatorOptions;
}

main().catch((error: unknown) => {
  process.stderr.write(`prism-simulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
