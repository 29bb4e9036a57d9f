// The names users type for our kinds, run through the pinned kubectl against a real API server with all three
// operators' CRDs installed. kubectl expands a category before it tries a kind's names, so a category spelled like any
// kind's plural, singular or short name takes that name over: `kubectl get postgresql foodb` once answered "you must
// specify only one resource", because both PostgreSQL kinds were in the category `postgresql`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPOSITORY_ROOT, TestCluster } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const OPERATORS = ['maintpage-operator', 'postgresql-operator', 'nutanix-ahvvm-operator'] as const;
/** One sample per kind, as the docs hand them out (the seed article's `foodb` among them). */
const SAMPLES = [
  'maintpage-operator/samples/maintpage_v1alpha1_maintpage.yaml',
  'postgresql-operator/samples/db-for-foo.yaml',
  'postgresql-operator/samples/exp.wheel.jp_v1_postgresqlbackup.yaml',
  'nutanix-ahvvm-operator/samples/ahvvm-web-01.yaml',
];
const NAMESPACE = 'kubectl-names';

interface CrdNames { kind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] }
interface Crd { metadata: { name: string }; spec: { group: string; names: CrdNames } }
interface Kind { group: string; names: CrdNames; crd: string; object: string }

async function yamlDocuments(path: string): Promise<Record<string, unknown>[]> {
  return parseAllDocuments(await readFile(join(REPOSITORY_ROOT, 'deploy', path), 'utf8')).map((doc) => doc.toJSON() as Record<string, unknown>);
}

async function crdsOf(operator: string): Promise<Crd[]> {
  const kustomization = (await yamlDocuments(`${operator}/crd/kustomization.yaml`))[0] as { resources: string[] };
  return (await Promise.all(kustomization.resources.map((file) => yamlDocuments(`${operator}/crd/${file}`)))).flat() as unknown as Crd[];
}

/** The names kubectl resolves to a kind, with the kind they belong to. */
function typedNames(kind: Kind): string[] {
  return [kind.names.plural, kind.names.singular, ...(kind.names.shortNames ?? [])];
}

let cluster: TestCluster;
let kinds: Kind[];

async function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cluster.kubectl(['-n', NAMESPACE, ...args]);
}

beforeAll(async () => {
  const crds = (await Promise.all(OPERATORS.map(crdsOf))).flat();
  const samples = (await Promise.all(SAMPLES.map(yamlDocuments))).flat() as { kind: string; metadata: { name: string } }[];
  kinds = crds.map((crd) => {
    const object = samples.find((sample) => sample.kind === crd.spec.names.kind)?.metadata.name;
    if (object === undefined) throw new Error(`no sample of ${crd.spec.names.kind} in ${SAMPLES.join(', ')}`);
    return { group: crd.spec.group, names: crd.spec.names, crd: crd.metadata.name, object };
  });
  cluster = await TestCluster.start({ node: false });
  for (const operator of OPERATORS) {
    const applied = await cluster.kubectl(['apply', '-k', join(REPOSITORY_ROOT, 'deploy', operator, 'crd')]);
    if (applied.code !== 0) throw new Error(`kubectl apply -k deploy/${operator}/crd failed: ${applied.stderr}`);
  }
  await cluster.waitForCrdsEstablished(kinds.map((kind) => kind.crd));
  await cluster.kubectl(['create', 'namespace', NAMESPACE]);
  for (const sample of SAMPLES) {
    const created = await kubectl(['create', '-f', join(REPOSITORY_ROOT, 'deploy', sample)]);
    if (created.code !== 0) throw new Error(`kubectl create -f deploy/${sample} failed: ${created.stderr}`);
  }
});

afterAll(async () => {
  await cluster.stop();
});

it('no category is spelled like any kind\'s plural, singular or short name', () => {
  const names = new Map(kinds.flatMap((kind) => typedNames(kind).map((name) => [name, kind.names.kind] as const)));
  const shadowing = kinds.flatMap((kind) => (kind.names.categories ?? [])
    .filter((category) => names.has(category))
    .map((category) => `${kind.names.kind}'s category ${category} is ${names.get(category) ?? ''}'s name`));
  expect(shadowing).toEqual([]);
});

describe('every kind answers to each of its names, and each of its categories lists it', () => {
  it('get and describe by plural, singular and short name', async () => {
    const failures: string[] = [];
    for (const kind of kinds) {
      for (const name of typedNames(kind)) {
        for (const verb of ['get', 'describe']) {
          const result = await kubectl([verb, name, kind.object]);
          if (result.code !== 0) failures.push(`kubectl ${verb} ${name} ${kind.object}: ${result.stderr.trim()}`);
          else if (!result.stdout.includes(kind.object)) failures.push(`kubectl ${verb} ${name} ${kind.object} did not show it`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('get by category', async () => {
    const listed = new Map<string, string[]>();
    for (const category of new Set(kinds.flatMap((kind) => kind.names.categories ?? []))) {
      const result = await kubectl(['get', category, '-o', 'name']);
      expect(result.stderr).toBe('');
      listed.set(category, result.stdout.trim().split('\n').sort());
    }
    const expected = new Map([...listed.keys()].map((category) => [category, kinds
      .filter((kind) => kind.names.categories?.includes(category))
      .map((kind) => `${kind.names.kind.toLowerCase()}.${kind.group}/${kind.object}`).sort()]));
    expect(listed).toEqual(expected);
    // Everything we ship is in the project's category, so one command shows all of it.
    expect(listed.get('k8s-operators')).toHaveLength(kinds.length);
  });

  it('delete by singular name', async () => {
    for (const kind of kinds) {
      const result = await kubectl(['delete', kind.names.singular, kind.object]);
      expect(`${String(result.code)} ${result.stderr}`).toBe('0 ');
      expect(result.stdout).toContain(kind.object);
    }
    const left = await kubectl(['get', 'k8s-operators', '-o', 'name']);
    expect(left.stdout).toBe('');
  });
});
