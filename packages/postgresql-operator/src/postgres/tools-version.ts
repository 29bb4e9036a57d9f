import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { executableOnPath } from './executable-on-path.ts';

/**
 * Which pg_dump / pg_restore to run. pg_dump "cannot dump from PostgreSQL servers newer than its own major version",
 * and a pg_restore reads archives of its own major or older only. Debian-style installs keep one set of client tools
 * per major under /usr/lib/postgresql/<major>/bin (the operator image carries several), so the tool matching the
 * server's major is taken from there when present; otherwise the nearest newer one, whether found there or on PATH.
 */

export type PgToolName = 'pg_dump' | 'pg_restore';

/** Where Debian's postgresql-client-<major> packages put their programs. */
export const DEFAULT_POSTGRES_LIB_DIRECTORY = '/usr/lib/postgresql';

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
  /** The oldest major that can do the job: the server's for pg_dump; the dump's pg_dump major for pg_restore. */
  minimumMajor: number;
  /** The major to take when installed: the server's. Default: minimumMajor. */
  preferredMajor?: number;
}

export type PgToolChoice = { ok: true; tool: InstalledPgTool } | { ok: false; message: string };

/**
 * Picks a tool from those installed (in search order: versioned directories first, then PATH): the first of the
 * preferred major if it is new enough, else the oldest that is new enough (closest to the server, so its output stays
 * readable by the most pg_restore versions). Pure, for tests and for explaining a choice.
 */
export function choosePgTool(requirement: PgToolRequirement, installed: readonly InstalledPgTool[]): PgToolChoice {
  const { tool, minimumMajor, preferredMajor = minimumMajor } = requirement;
  const usable = installed.filter((candidate) => candidate.major >= minimumMajor);
  const preferred = usable.find((candidate) => candidate.major === preferredMajor);
  const nearest = [...usable].sort((a, b) => a.major - b.major)[0];
  const chosen = preferred ?? nearest;
  if (chosen !== undefined) return { ok: true, tool: chosen };
  const found =
    installed.length === 0
      ? `no ${tool} is installed`
      : `found only ${installed.map((candidate) => `${candidate.version} (${candidate.path})`).join(', ')}`;
  const why =
    tool === 'pg_dump'
      ? `pg_dump cannot dump a PostgreSQL ${minimumMajor} server with an older pg_dump`
      : `pg_restore cannot read a dump written by pg_dump ${minimumMajor} with an older pg_restore`;
  return {
    ok: false,
    message:
      `${tool} ${minimumMajor} or newer is needed and ${found}: ${why}. ` +
      `Install the PostgreSQL ${minimumMajor} client tools (postgresql-client-${minimumMajor}) in the operator image.`,
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
 * versioned installs are looked at first: when one of them has the preferred major, it is the choice whatever is on
 * PATH, and the copy on PATH is not run. On Debian that copy is postgresql-common's Perl wrapper, whose `--version`
 * took about 0.1 s of every backup.
 */
export async function locatePgTool(requirement: PgToolRequirement, options: DiscoverOptions = {}): Promise<InstalledPgTool> {
  const { libDirectory = DEFAULT_POSTGRES_LIB_DIRECTORY, path = process.env.PATH ?? '' } = options;
  const preferredMajor = requirement.preferredMajor ?? requirement.minimumMajor;
  const versioned = await versionedPgTools(requirement.tool, libDirectory);
  const fromVersioned = choosePgTool(requirement, versioned);
  const choice =
    fromVersioned.ok && fromVersioned.tool.major === preferredMajor
      ? fromVersioned
      : choosePgTool(requirement, [...versioned, ...(await pgToolOnPath(requirement.tool, path))]);
  if (!choice.ok) throw new PgToolNotFoundError(choice.message);
  return choice.tool;
}
