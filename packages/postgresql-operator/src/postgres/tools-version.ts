import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { executableOnPath } from './executable-on-path.ts';

/**
 * Which pg_dump / pg_restore to run: always the one of the server's own major. An older pg_dump "cannot dump from
 * PostgreSQL servers newer than its own major version", and a newer one writes what the server may not restore:
 * pg_restore 17 sets `transaction_timeout`, which a 15 server refuses. Debian-style installs keep one set of client
 * tools per major under /usr/lib/postgresql/<major>/bin (the operator image carries several), so the tool is taken
 * from there when present, else from PATH when that copy is of the server's major; there is no fallback to another
 * major: the backup or restore fails at once, saying what to install.
 */

export type PgToolName = 'pg_dump' | 'pg_restore';

/** Where Debian's postgresql-client-<major> packages put their programs. */
export const DEFAULT_POSTGRES_LIB_DIRECTORY = '/usr/lib/postgresql';

/**
 * The majors whose client tools the project's operator image carries: the Dockerfile's POSTGRES_MAJORS default, for the
 * advice when a tool is missing (a test checks the two agree).
 */
export const IMAGE_POSTGRES_MAJORS: readonly number[] = [15, 16, 17];

/** The oldest server this operator supports: `server_version_num` before 10 had a two-part major (9.6). */
const MIN_SUPPORTED_MAJOR = 10;

export interface InstalledPgTool {
  path: string;
  major: number;
  /** As the tool prints it, e.g. "15.18". */
  version: string;
}

/**
 * The major of a `server_version_num` (150018 → 15). Throws for servers before PostgreSQL 10, which this operator does
 * not support.
 */
export function majorOfVersionNum(versionNum: number): number {
  const major = Math.floor(versionNum / 10000);
  if (!Number.isInteger(versionNum) || major < MIN_SUPPORTED_MAJOR) {
    throw new Error(`PostgreSQL server_version_num ${versionNum} is older than ${MIN_SUPPORTED_MAJOR}, which is not supported`);
  }
  return major;
}

/** The major of a version string like "15.18", "16.2 (Debian 16.2-1)" or "17beta1". */
export function majorOfVersion(version: string): number {
  const match = /^(\d+)/.exec(version.trim());
  if (match?.[1] === undefined) throw new Error(`not a PostgreSQL version: ${JSON.stringify(version)}`);
  return Number(match[1]);
}

/** The version in `pg_dump --version` output: "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)" → "15.18". */
export function parseToolVersion(output: string): string {
  const match = /\(PostgreSQL\)\s+(\d+(?:\.\d+)*(?:[a-z]+\d*)?)/.exec(output);
  if (match?.[1] === undefined) throw new Error(`unexpected --version output: ${JSON.stringify(output.trim())}`);
  return match[1];
}

export interface PgToolRequirement {
  tool: PgToolName;
  /** The server's major: the only one taken. */
  major: number;
}

export type PgToolChoice = { ok: true; tool: InstalledPgTool } | { ok: false; message: string };

const WHY_THE_SERVER_MAJOR: Record<PgToolName, string> = {
  pg_dump:
    "a backup is taken only with the pg_dump of the server's major (an older one cannot dump the server; a newer one " +
    'writes dumps this server cannot restore)',
  pg_restore:
    "a restore runs only with the pg_restore of the server's major (a newer one sets what this server refuses, e.g. " +
    "pg_restore 17's transaction_timeout on a 15 server)",
};

/** What to run instead: an image with the tools of `major`, as the project's image has, or builds with it added. */
function whatToInstall(major: number): string {
  const shipped = IMAGE_POSTGRES_MAJORS.map((m) => `postgresql-client-${m}`).join(', ');
  const build = IMAGE_POSTGRES_MAJORS.includes(major)
    ? ''
    : `; build it with --build-arg POSTGRES_MAJORS="${[...IMAGE_POSTGRES_MAJORS, major].join(' ')}"`;
  return (
    `Run the operator with an image that carries postgresql-client-${major}: the project's image carries ${shipped} ` +
    `(the Dockerfile's POSTGRES_MAJORS)${build}.`
  );
}

/**
 * "15.18 (/usr/lib/postgresql/15/bin/pg_dump and /usr/bin/pg_dump), 17.4 (...)": each version once, with every copy of
 * it (Debian's /usr/bin/pg_dump is a wrapper that runs a versioned one, so the same version is often found twice).
 */
function describeFound(installed: readonly InstalledPgTool[]): string {
  const pathsByVersion = new Map<string, string[]>();
  for (const { version, path } of installed) pathsByVersion.set(version, [...(pathsByVersion.get(version) ?? []), path]);
  return [...pathsByVersion].map(([version, paths]) => `${version} (${paths.join(' and ')})`).join(', ');
}

/**
 * Picks the first installed tool (in search order: versioned directories first, then PATH) of the server's major, or
 * says which was needed, which were found and what to install. Pure, for tests and for explaining a choice.
 */
export function choosePgTool(requirement: PgToolRequirement, installed: readonly InstalledPgTool[]): PgToolChoice {
  const { tool, major } = requirement;
  const chosen = installed.find((candidate) => candidate.major === major);
  if (chosen !== undefined) return { ok: true, tool: chosen };
  const found =
    installed.length === 0
      ? `no ${tool} is installed`
      : `found only ${tool} ${describeFound(installed)}`;
  return {
    ok: false,
    message: `${tool} ${major} is needed for a PostgreSQL ${major} server, and ${found}: ${WHY_THE_SERVER_MAJOR[tool]}. ${whatToInstall(major)}`,
  };
}

const execFileAsync = promisify(execFile);

async function runVersion(path: string): Promise<InstalledPgTool | undefined> {
  try {
    const { stdout } = await execFileAsync(path, ['--version'], { timeout: 10_000, env: { LC_ALL: 'C' } });
    const version = parseToolVersion(stdout);
    return { path, major: majorOfVersion(version), version };
  } catch {
    return undefined; // not runnable or not a PostgreSQL tool: not a candidate
  }
}

/**
 * What `--version` said of each program, keyed by the file it said it of. Every backup and every restore looks its
 * tools up, and running `--version` on each candidate would cost each backup a process per candidate (more in the
 * image, which carries three majors); the programs in an image never change. A file that does change (a package upgrade on a workstation,
 * a chmod) has a new inode, size, mtime or ctime, and is asked again. A file that cannot be run is no candidate.
 */
const described = new Map<string, { file: string; tool: InstalledPgTool | undefined }>();

async function describeTool(path: string): Promise<InstalledPgTool | undefined> {
  let file: string;
  try {
    const { dev, ino, size, mtimeMs, ctimeMs } = await stat(path);
    file = `${dev}:${ino}:${size}:${mtimeMs}:${ctimeMs}`;
  } catch {
    return undefined;
  }
  const known = described.get(path);
  if (known?.file === file) return known.tool;
  const tool = await runVersion(path);
  described.set(path, { file, tool });
  return tool;
}

export interface DiscoverOptions {
  /** Default /usr/lib/postgresql. */
  libDirectory?: string;
  /** Default process.env.PATH. */
  path?: string;
}

/** The copies of `tool` under /usr/lib/postgresql/<major>/bin, newest major first, with their versions. */
async function versionedPgTools(tool: PgToolName, libDirectory: string): Promise<InstalledPgTool[]> {
  let majors: string[] = [];
  try {
    majors = (await readdir(libDirectory)).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  } catch {
    // no versioned installs on this machine
  }
  const described = await Promise.all(majors.map((major) => describeTool(join(libDirectory, major, 'bin', tool))));
  return described.filter((candidate) => candidate !== undefined);
}

/** The first copy of `tool` on `path`, with its version; none when it is missing or not a PostgreSQL tool. */
async function pgToolOnPath(tool: PgToolName, path: string): Promise<InstalledPgTool[]> {
  const onPath = await executableOnPath(tool, path);
  const described = onPath === undefined ? undefined : await describeTool(onPath);
  return described === undefined ? [] : [described];
}

/**
 * The installed copies of `tool` with their versions, in search order: /usr/lib/postgresql/<major>/bin, newest major
 * first, then the first on PATH.
 */
export async function discoverPgTools(tool: PgToolName, options: DiscoverOptions = {}): Promise<InstalledPgTool[]> {
  const { libDirectory = DEFAULT_POSTGRES_LIB_DIRECTORY, path = process.env.PATH ?? '' } = options;
  return [...(await versionedPgTools(tool, libDirectory)), ...(await pgToolOnPath(tool, path))];
}

export class PgToolNotFoundError extends Error {
  override name = 'PgToolNotFoundError';
}

/**
 * Finds the tool for `requirement` on this machine, or throws {@link PgToolNotFoundError} saying what to install. The
 * versioned installs are looked at first: when one of them has the server's major, it is the choice whatever is on
 * PATH, and the copy on PATH is not run. On Debian that copy is postgresql-common's Perl wrapper, whose `--version`
 * took about 0.1 s of every backup.
 */
export async function locatePgTool(requirement: PgToolRequirement, options: DiscoverOptions = {}): Promise<InstalledPgTool> {
  const { libDirectory = DEFAULT_POSTGRES_LIB_DIRECTORY, path = process.env.PATH ?? '' } = options;
  const versioned = await versionedPgTools(requirement.tool, libDirectory);
  const fromVersioned = choosePgTool(requirement, versioned);
  const choice = fromVersioned.ok
    ? fromVersioned
    : choosePgTool(requirement, [...versioned, ...(await pgToolOnPath(requirement.tool, path))]);
  if (!choice.ok) throw new PgToolNotFoundError(choice.message);
  return choice.tool;
}
