import { access, chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IMAGE_POSTGRES_MAJORS,
  PgToolNotFoundError,
  choosePgTool,
  discoverPgTools,
  locatePgTool,
  majorOfVersion,
  majorOfVersionNum,
  parseToolVersion,
  type InstalledPgTool,
} from './tools-version.ts';

const tool = (major: number, path = `/usr/lib/postgresql/${major}/bin/pg_dump`): InstalledPgTool => ({
  path,
  major,
  version: `${major}.4`,
});

describe('versions', () => {
  it('reads the major of server_version_num and of version strings', () => {
    expect(majorOfVersionNum(150018)).toBe(15);
    expect(majorOfVersionNum(100023)).toBe(10);
    expect(majorOfVersionNum(170000)).toBe(17);
    expect(() => majorOfVersionNum(90624)).toThrow(/90624 is older than 10, which is not supported/);
    expect(majorOfVersion('15.18')).toBe(15);
    expect(majorOfVersion('16.2 (Debian 16.2-1.pgdg120+2)')).toBe(16);
    expect(majorOfVersion('17beta1')).toBe(17);
  });

  it('parses --version output', () => {
    expect(parseToolVersion('pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n')).toBe('15.18');
    expect(parseToolVersion('pg_restore (PostgreSQL) 17beta1\n')).toBe('17beta1');
    expect(() => parseToolVersion('mysqldump  Ver 10.19')).toThrow(/unexpected --version output/);
  });
});

const USE_AN_IMAGE_WITH_15 =
  "Run the operator with an image that carries postgresql-client-15: the project's image carries postgresql-client-15, " +
  "postgresql-client-16, postgresql-client-17 (the Dockerfile's POSTGRES_MAJORS).";

describe('choosePgTool', () => {
  it("takes the first tool of the server's major", () => {
    const installed = [tool(17), tool(16), tool(15), tool(15, '/usr/bin/pg_dump')];
    expect(choosePgTool({ tool: 'pg_dump', major: 15 }, installed)).toEqual({ ok: true, tool: tool(15) });
    const onPath = tool(16, '/usr/bin/pg_dump');
    expect(choosePgTool({ tool: 'pg_dump', major: 16 }, [tool(17), onPath])).toEqual({ ok: true, tool: onPath });
  });

  it('names each version found once, with every copy of it', () => {
    const choice = choosePgTool({ tool: 'pg_dump', major: 17 }, [tool(15), tool(15, '/usr/bin/pg_dump')]);
    expect(choice.ok).toBe(false);
    expect(choice.ok ? '' : choice.message).toMatch(/^pg_dump 17 is needed for a PostgreSQL 17 server, and found only pg_dump 15\.4 \(\/usr\/lib\/postgresql\/15\/bin\/pg_dump and \/usr\/bin\/pg_dump\): /);
  });

  it('refuses a newer pg_dump, saying what was found and which image to use', () => {
    const choice = choosePgTool({ tool: 'pg_dump', major: 15 }, [tool(17), tool(16, '/usr/bin/pg_dump')]);
    expect(choice).toEqual({
      ok: false,
      message:
        'pg_dump 15 is needed for a PostgreSQL 15 server, and found only pg_dump 17.4 (/usr/lib/postgresql/17/bin/pg_dump), ' +
        "16.4 (/usr/bin/pg_dump): a backup is taken only with the pg_dump of the server's major (an older one cannot dump " +
        `the server; a newer one writes dumps this server cannot restore). ${USE_AN_IMAGE_WITH_15}`,
    });
  });

  it('refuses an older one, and says when none is installed', () => {
    expect(choosePgTool({ tool: 'pg_dump', major: 16 }, [tool(15)])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^pg_dump 16 is needed for a PostgreSQL 16 server, and found only pg_dump 15\.4 \(\/usr\/lib\/postgresql\/15\/bin\/pg_dump\): /) as string,
    });
    expect(choosePgTool({ tool: 'pg_dump', major: 15 }, [])).toMatchObject({
      ok: false,
      message: expect.stringContaining('pg_dump 15 is needed for a PostgreSQL 15 server, and no pg_dump is installed: ') as string,
    });
  });

  it("takes pg_restore of the server's major only, whatever the dump's", () => {
    const restore = (major: number): InstalledPgTool => tool(major, `/usr/lib/postgresql/${major}/bin/pg_restore`);
    expect(choosePgTool({ tool: 'pg_restore', major: 16 }, [restore(17), restore(16), restore(15)])).toEqual({ ok: true, tool: restore(16) });
    expect(choosePgTool({ tool: 'pg_restore', major: 15 }, [restore(17)])).toEqual({
      ok: false,
      message:
        'pg_restore 15 is needed for a PostgreSQL 15 server, and found only pg_restore 17.4 (/usr/lib/postgresql/17/bin/pg_restore): ' +
        "a restore runs only with the pg_restore of the server's major (a newer one sets what this server refuses, e.g. " +
        `pg_restore 17's transaction_timeout on a 15 server). ${USE_AN_IMAGE_WITH_15}`,
    });
  });

  it("says how to build the image for a major it does not carry", () => {
    expect(choosePgTool({ tool: 'pg_dump', major: 18 }, [tool(17)])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Run the operator with an image that carries postgresql-client-18: .*; build it with --build-arg POSTGRES_MAJORS="15 16 17 18"\.$/) as string,
    });
  });

  it("names the majors the project's image carries, as its Dockerfile installs them", async () => {
    const dockerfile = await readFile(join(import.meta.dirname, '..', '..', '..', '..', 'Dockerfile'), 'utf8');
    const majors = /^ARG POSTGRES_MAJORS="([\d ]+)"$/m.exec(dockerfile)?.[1];
    expect(majors?.split(' ').map(Number)).toEqual(IMAGE_POSTGRES_MAJORS);
  });
});

describe('discoverPgTools on a machine', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'pg-tools-'));
    const fake = async (path: string, output: string): Promise<void> => {
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, `#!/bin/sh\necho '${output}'\n`);
      await chmod(path, 0o755);
    };
    await fake(join(root, 'lib', '14', 'bin', 'pg_dump'), 'pg_dump (PostgreSQL) 14.11');
    await fake(join(root, 'lib', '16', 'bin', 'pg_dump'), 'pg_dump (PostgreSQL) 16.3');
    await mkdir(join(root, 'lib', '13', 'bin'), { recursive: true }); // a server-only install: no pg_dump
    await fake(join(root, 'bin', 'pg_dump'), 'pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)');
    await fake(join(root, 'other', 'pg_dump'), 'pg_dump (PostgreSQL) 12.1');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('lists versioned installs newest first, then the first on PATH, with their versions', async () => {
    const found = await discoverPgTools('pg_dump', {
      libDirectory: join(root, 'lib'),
      path: `${join(root, 'empty')}:${join(root, 'bin')}:${join(root, 'other')}`,
    });
    expect(found).toEqual([
      { path: join(root, 'lib', '16', 'bin', 'pg_dump'), major: 16, version: '16.3' },
      { path: join(root, 'lib', '14', 'bin', 'pg_dump'), major: 14, version: '14.11' },
      { path: join(root, 'bin', 'pg_dump'), major: 15, version: '15.18' },
    ]);
    const options = { libDirectory: join(root, 'lib'), path: join(root, 'bin') };
    expect((await locatePgTool({ tool: 'pg_dump', major: 15 }, options)).path).toBe(join(root, 'bin', 'pg_dump'));
    await expect(locatePgTool({ tool: 'pg_dump', major: 17 }, options)).rejects.toThrow(
      `pg_dump 17 is needed for a PostgreSQL 17 server, and found only pg_dump 16.3 (${join(root, 'lib', '16', 'bin', 'pg_dump')}), ` +
        `14.11 (${join(root, 'lib', '14', 'bin', 'pg_dump')}), 15.18 (${join(root, 'bin', 'pg_dump')}): `,
    );
  });

  it("does not run the copy on PATH when a versioned install has the server's major", async () => {
    const ran = join(root, 'path-copy-ran');
    await mkdir(join(root, 'wrapper'), { recursive: true });
    await writeFile(join(root, 'wrapper', 'pg_dump'), `#!/bin/sh\n/usr/bin/touch ${ran}\necho 'pg_dump (PostgreSQL) 15.18'\n`);
    await chmod(join(root, 'wrapper', 'pg_dump'), 0o755);
    const options = { libDirectory: join(root, 'lib'), path: join(root, 'wrapper') };
    expect((await locatePgTool({ tool: 'pg_dump', major: 16 }, options)).path).toBe(join(root, 'lib', '16', 'bin', 'pg_dump'));
    await expect(access(ran)).rejects.toThrow('ENOENT');
    // Without the server's major among the versioned installs, the copy on PATH is asked.
    expect((await locatePgTool({ tool: 'pg_dump', major: 15 }, options)).path).toBe(join(root, 'wrapper', 'pg_dump'));
    await expect(access(ran)).resolves.toBeUndefined();
  });

  it('asks each program for its version once, and again when the file changes', async () => {
    const calls = join(root, 'version-calls');
    const program = join(root, 'counted', '15', 'bin', 'pg_restore');
    const write = async (version: string): Promise<void> => {
      await mkdir(join(program, '..'), { recursive: true });
      await writeFile(program, `#!/bin/sh\necho run >> ${calls}\necho 'pg_restore (PostgreSQL) ${version}'\n`);
      await chmod(program, 0o755);
    };
    await write('15.18');
    const options = { libDirectory: join(root, 'counted'), path: '' };
    const requirement = { tool: 'pg_restore', major: 15 } as const;
    expect((await locatePgTool(requirement, options)).version).toBe('15.18');
    expect((await locatePgTool(requirement, options)).version).toBe('15.18');
    expect((await readFile(calls, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1);
    // An upgrade in place: same path, new file.
    await rm(program);
    await write('15.19');
    expect((await locatePgTool(requirement, options)).version).toBe('15.19');
    expect((await readFile(calls, 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('finds this machine\'s PostgreSQL 15 tools', async () => {
    const pgRestore = await locatePgTool({ tool: 'pg_restore', major: 15 });
    expect(pgRestore).toMatchObject({ path: '/usr/lib/postgresql/15/bin/pg_restore', major: 15 });
  });
});

describe("the machine's PostgreSQL 15 tools beside a stand-in of another major", () => {
  const REAL = '/usr/lib/postgresql/15/bin';
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'pg-majors-'));
    for (const tool of ['pg_dump', 'pg_restore']) {
      // A PostgreSQL 17 install, as far as --version tells: all the lookup asks of it.
      await mkdir(join(root, 'both', '17', 'bin'), { recursive: true });
      await writeFile(join(root, 'both', '17', 'bin', tool), `#!/bin/sh\necho '${tool} (PostgreSQL) 17.2'\n`, { mode: 0o755 });
      await mkdir(join(root, 'both', '15', 'bin'), { recursive: true });
      await symlink(join(REAL, tool), join(root, 'both', '15', 'bin', tool));
    }
    await mkdir(join(root, 'newer-only'));
    await symlink(join(root, 'both', '17'), join(root, 'newer-only', '17'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("takes the real 15 for a 15 server and the 17 for a 17 server, each of its own major", async () => {
    const options = { libDirectory: join(root, 'both'), path: '' };
    for (const tool of ['pg_dump', 'pg_restore'] as const) {
      expect(await locatePgTool({ tool, major: 15 }, options)).toEqual({
        path: join(root, 'both', '15', 'bin', tool), major: 15, version: expect.stringMatching(/^15\.\d+$/) as string,
      });
      expect(await locatePgTool({ tool, major: 17 }, options)).toEqual({ path: join(root, 'both', '17', 'bin', tool), major: 17, version: '17.2' });
    }
  });

  it('never takes the 17 for a 15 server: the 15 on PATH if there is one, else a refusal naming what was found', async () => {
    const withPath = { libDirectory: join(root, 'newer-only'), path: REAL };
    expect((await locatePgTool({ tool: 'pg_dump', major: 15 }, withPath)).path).toBe(join(REAL, 'pg_dump'));
    const without = { libDirectory: join(root, 'newer-only'), path: '' };
    for (const tool of ['pg_dump', 'pg_restore'] as const) {
      const error = await locatePgTool({ tool, major: 15 }, without).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PgToolNotFoundError);
      expect((error as Error).message).toMatch(
        new RegExp(`^${tool} 15 is needed for a PostgreSQL 15 server, and found only ${tool} 17\\.2 \\(${join(root, 'newer-only', '17', 'bin', tool)}\\): .* Run the operator with an image that carries postgresql-client-15: `),
      );
    }
  });
});
