// The programs the tests need that are built once per machine (from the Go module proxy, into caches outside the
// repository), and how a test finds one. Tests only ever *find* them: `npm run provision` (which `npm test` runs
// first) builds whatever is missing, so a first run on a fresh machine never builds inside a test or a hook, where a
// timeout would cut the build short and skip the tests behind it.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPOSITORY_ROOT } from './e2e.ts';

const execFileAsync = promisify(execFile);

export interface ProvisionedToolSpec {
  /** What a person reading progress or an error calls it. */
  readonly title: string;
  /** The script that builds it (repository-relative); it prints the path of what it built on stdout's last line. */
  readonly script: string;
  /** Arguments that make the script build this tool (several tools of one script are built in one run). */
  readonly buildArgs: readonly string[];
  /** Arguments that make the script only print where the tool is (or would be), building nothing. */
  readonly lookupArgs: readonly string[];
  /** For a directory of programs: the programs that must all be in it. Empty for a single program. */
  readonly programs: readonly string[];
  /** Who needs it ("needed by ..."), for the error a test gives when it is missing. */
  readonly neededBy: string;
}

/**
 * Every per-machine tool, in the order the longest builds start first (see provision.ts). Adding a tool here is all
 * it takes for `npm run provision` to build it and for `findProvisionedTool` to find it.
 */
export const PROVISIONED_TOOLS = {
  'control-plane': {
    title: 'the control plane (etcd, kube-apiserver, kube-controller-manager, kubectl)',
    script: 'packages/testkit/scripts/build-control-plane.sh',
    buildArgs: [],
    lookupArgs: ['--print-dir'],
    programs: ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kubectl'],
    neededBy: 'every test that starts a cluster',
  },
  'seaweedfs': {
    title: "SeaweedFS's weed (the S3-compatible store)",
    script: 'packages/testkit/scripts/build-seaweedfs.sh',
    buildArgs: [],
    lookupArgs: ['--print-path'],
    programs: [],
    neededBy: "the S3 backup store's tests and the postgresql-operator's S3 stories",
  },
  'prometheus': {
    title: 'prometheus',
    script: 'packages/delivery/scripts/build-promtool.sh',
    buildArgs: ['prometheus'],
    lookupArgs: ['--print-dir'],
    programs: ['prometheus'],
    neededBy: 'the e2e specs that scrape each operator',
  },
  'promtool': {
    title: 'promtool',
    script: 'packages/delivery/scripts/build-promtool.sh',
    buildArgs: ['promtool'],
    lookupArgs: ['--print-dir'],
    programs: ['promtool'],
    neededBy: 'the alert-rule and dashboard tests',
  },
  'helm': {
    title: "Helm's command line (helm)",
    script: 'packages/release/scripts/build-go-tool.sh',
    buildArgs: ['helm'],
    lookupArgs: ['helm', '--print-path'],
    programs: [],
    neededBy: "the release's chart tests (helm lint, template, install, upgrade and rollback)",
  },
  'cosign': {
    title: "cosign (Sigstore's signing tool)",
    script: 'packages/release/scripts/build-go-tool.sh',
    buildArgs: ['cosign'],
    lookupArgs: ['cosign', '--print-path'],
    programs: [],
    neededBy: "the release's signing tests (cosign sign and verify against a local registry)",
  },
  'registry': {
    title: "distribution's OCI registry",
    script: 'packages/release/scripts/build-go-tool.sh',
    buildArgs: ['registry'],
    lookupArgs: ['registry', '--print-path'],
    programs: [],
    neededBy: "the release's signing tests (a registry on loopback that the images are pushed to and signed in)",
  },
  'age': {
    title: 'the reference age tool (age and age-keygen)',
    script: 'packages/postgresql-operator/scripts/build-age.sh',
    buildArgs: [],
    lookupArgs: ['--print-dir'],
    programs: ['age', 'age-keygen'],
    neededBy: "the postgresql-operator's backup encryption tests (interoperability with the reference age tool)",
  },
  'prism-v4-sdk-client': {
    title: "the Nutanix v4 SDK client (the simulator's contract test)",
    script: 'packages/prism-simulator/test/v4-sdk-client/build.sh',
    buildArgs: [],
    lookupArgs: ['--print-path'],
    programs: [],
    neededBy: "the prism-simulator's v4 SDK contract test",
  },
} as const satisfies Record<string, ProvisionedToolSpec>;

export type ProvisionedTool = keyof typeof PROVISIONED_TOOLS;

export const PROVISIONED_TOOL_NAMES = Object.keys(PROVISIONED_TOOLS) as ProvisionedTool[];

/** Thrown when a test needs a tool this machine has not built: it names the command that builds it. */
export class ProvisionedToolMissing extends Error {
  readonly tool: ProvisionedTool;
  readonly missing: string;
  constructor(tool: ProvisionedTool, missing: string) {
    const spec = PROVISIONED_TOOLS[tool];
    super(
      `${spec.title} is not on this machine (${missing} is missing); it is needed by ${spec.neededBy}. ` +
      `\`npm run provision\` builds it once per machine (\`npm test\` runs that first), or only this one: ` +
      `\`npm run provision -- ${tool}\`.`,
    );
    this.name = 'ProvisionedToolMissing';
    this.tool = tool;
    this.missing = missing;
  }
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(() => true, () => false);
}

/**
 * Where `tool` is on this machine: the program's path, or for the control plane the directory of its programs.
 * Builds nothing; throws `ProvisionedToolMissing` at once when it is not there.
 */
export async function findProvisionedTool(tool: ProvisionedTool, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const found = await lookUpTool(PROVISIONED_TOOLS[tool], REPOSITORY_ROOT, env);
  if (found.missing !== undefined) throw new ProvisionedToolMissing(tool, found.missing);
  return found.path;
}

/** Asks `spec`'s script where the tool is and checks it is there: its path, or the first program that is missing. */
export async function lookUpTool(spec: ProvisionedToolSpec, root: string, env: NodeJS.ProcessEnv): Promise<{ path: string; missing?: string }> {
  const { stdout } = await execFileAsync('bash', [join(root, spec.script), ...spec.lookupArgs], { env });
  const where = stdout.trim().split('\n').at(-1) ?? '';
  const programs = spec.programs.length === 0 ? [where] : spec.programs.map((program) => join(where, program));
  for (const program of programs) {
    if (!(await isExecutable(program))) return { path: where, missing: program };
  }
  return { path: programs.length === 1 ? programs[0] ?? where : where };
}
