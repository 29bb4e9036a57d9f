import { access, chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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

describe('choosePgTool', () => {
  it('takes the tool of the server major when it is installed', () => {
    const installed = [tool(17), tool(16), tool(15), tool(15, '/usr/bin/pg_dump')];
    expect(choosePgTool({ tool: 'pg_dump', minimumMajor: 15 }, installed)).toEqual({ ok: true, tool: tool(15) });
  });

  it('otherwise takes the oldest newer one, wherever it was found', () => {
    expect(choosePgTool({ tool: 'pg_dump', minimumMajor: 14 }, [tool(17), tool(16)])).toEqual({ ok: true, tool: tool(16) });
    const onPath = tool(16, '/usr/bin/pg_dump');
    expect(choosePgTool({ tool: 'pg_dump', minimumMajor: 15 }, [onPath])).toEqual({ ok: true, tool: onPath });
  });

  it('refuses a pg_dump older than the server, saying what was found and what to install', () => {
    const choice = choosePgTool({ tool: 'pg_dump', minimumMajor: 16 }, [tool(15), tool(14, '/usr/bin/pg_dump')]);
    expect(choice).toEqual({
      ok: false,
      message:
        'pg_dump 16 or newer is needed and found only 15.4 (/usr/lib/postgresql/15/bin/pg_dump), 14.4 (/usr/bin/pg_dump): ' +
        'pg_dump cannot dump a PostgreSQL 16 server with an older pg_dump. Install the PostgreSQL 16 client tools ' +
        '(postgresql-client-16) in the operator image.',
    });
    expect(choosePgTool({ tool: 'pg_dump', minimumMajor: 15 }, [])).toMatchObject({
      ok: false,
      message: expect.stringContaining('pg_dump 15 or newer is needed and no pg_dump is installed') as string,
    });
  });

  it('for pg_restore, needs the dump\'s pg_dump major and prefers the server\'s', () => {
    const installed = [tool(17), tool(16), tool(15)];
    expect(choosePgTool({ tool: 'pg_restore', minimumMajor: 15, preferredMajor: 16 }, installed)).toEqual({ ok: true, tool: tool(16) });
    // A dump written by pg_dump 16 cannot be read by pg_restore 15, even for a 15 server.
    expect(choosePgTool({ tool: 'pg_restore', minimumMajor: 16, preferredMajor: 15 }, installed)).toEqual({ ok: true, tool: tool(16) });
    expect(choosePgTool({ tool: 'pg_restore', minimumMajor: 16 }, [tool(15)])).toMatchObject({
      ok: false,
      message: expect.stringContaining('pg_restore cannot read a dump written by pg_dump 16 with an older pg_restore') as string,
    });
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
    expect((await locatePgTool({ tool: 'pg_dump', minimumMajor: 15 }, options)).path).toBe(join(root, 'bin', 'pg_dump'));
    await expect(locatePgTool({ tool: 'pg_dump', minimumMajor: 17 }, options)).rejects.toThrow(/pg_dump 17 or newer is needed/);
  });

  it('does not run the copy on PATH when a versioned install has the preferred major', async () => {
    const ran = join(root, 'path-copy-ran');
    await mkdir(join(root, 'wrapper'), { recursive: true });
    await writeFile(join(root, 'wrapper', 'pg_dump'), `#!/bin/sh\n/usr/bin/touch ${ran}\necho 'pg_dump (PostgreSQL) 15.18'\n`);
    await chmod(join(root, 'wrapper', 'pg_dump'), 0o755);
    const options = { libDirectory: join(root, 'lib'), path: join(root, 'wrapper') };
    expect((await locatePgTool({ tool: 'pg_dump', minimumMajor: 16 }, options)).path).toBe(join(root, 'lib', '16', 'bin', 'pg_dump'));
    await expect(access(ran)).rejects.toThrow('ENOENT');
    // Without the preferred major among the versioned installs, the copy on PATH is a candidate like any other.
    expect((await locatePgTool({ tool: 'pg_dump', minimumMajor: 15 }, options)).path).toBe(join(root, 'wrapper', 'pg_dump'));
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
    const requirement = { tool: 'pg_restore', minimumMajor: 15 } as const;
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
    const pgRestore = await locatePgTool({ tool: 'pg_restore', minimumMajor: 15 });
    expect(pgRestore).toMatchObject({ path: '/usr/lib/postgresql/15/bin/pg_restore', major: 15 });
  });
});
