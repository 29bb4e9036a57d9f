import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@k8s-operators/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { PageServerOptions } from './flags.ts';
import type { Log, LogLevel } from './log.ts';
import { startPageServer, type RunningPageServer } from './page-server.ts';

const started: RunningPageServer[] = [];
const logged: { level: LogLevel; msg: string; fields?: Record<string, unknown> }[] = [];
const directories: string[] = [];
afterEach(async () => {
  logged.length = 0;
  await Promise.all(started.splice(0).map((server) => server.close()));
  await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

let clock = new Date('2026-03-01T22:00:00Z');
const log: Log = (level, msg, fields) => {
  logged.push({ level, msg, ...(fields === undefined ? {} : { fields }) });
};

async function start(options: Partial<PageServerOptions> = {}): Promise<string> {
  const server = await startPageServer(
    {
      port: 0,
      bindAddress: '127.0.0.1',
      message: 'The shop is being upgraded.',
      retryAfterSeconds: 300,
      retryAfterUntil: undefined,
      contentFile: undefined,
      ...options,
    },
    { log, now: () => clock },
  );
  started.push(server);
  return `http://127.0.0.1:${server.address.port}`;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'maintpage-page-'));
  directories.push(dir);
  return dir;
}

/** The path of a page.html in a fresh directory, holding `html`; with `undefined`, a file that does not exist yet. */
async function pageFile(html: string | undefined): Promise<string> {
  const file = join(await tempDir(), 'page.html');
  if (html !== undefined) await writeFile(file, html);
  return file;
}

describe('the built-in page server', () => {
  it('answers every path with 503, Retry-After, no-store and the built-in HTML page', async () => {
    const base = await start();
    for (const path of ['/', '/cart/checkout?item=42', '/favicon.ico']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(503);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'retry-after': '300',
        'cache-control': 'no-store',
        vary: 'Accept',
        'content-type': 'text/html; charset=utf-8',
        'x-content-type-options': 'nosniff',
      });
      const html = await response.text();
      expect(html).toContain('<title>Down for maintenance</title>');
      expect(html).toContain('<p>The shop is being upgraded.</p>');
      expect(html).not.toContain('Expected back');
    }
  });

  it('answers JSON to clients that prefer it', async () => {
    const base = await start();
    const response = await fetch(`${base}/api/orders`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ status: 503, message: 'The shop is being upgraded.', retryAfter: 300 });
  });

  it('counts Retry-After down to the end of maintenance, rounding up, then falls back to the default', async () => {
    clock = new Date('2026-03-01T22:00:00Z');
    const base = await start({ retryAfterUntil: new Date('2026-03-01T22:02:00.400Z') });
    const during = await fetch(base);
    expect(during.headers.get('retry-after')).toBe('121');
    expect(await during.text()).toContain('Expected back by 2026-03-01 22:02 UTC.');
    const json = await fetch(base, { headers: { accept: 'application/json' } });
    expect(await json.json()).toMatchObject({ retryAfter: 121 });

    clock = new Date('2026-03-01T22:02:00.400Z');
    const after = await fetch(base);
    expect(after.headers.get('retry-after')).toBe('300');
    expect(await after.text()).not.toContain('Expected back');
  });

  it('answers HEAD and other methods the same way, HEAD without a body', async () => {
    const base = await start();
    const head = await fetch(base, { method: 'HEAD' });
    expect(head.status).toBe(503);
    expect(head.headers.get('retry-after')).toBe('300');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
    const post = await fetch(`${base}/cart`, { method: 'POST', body: 'item=42' });
    expect(post.status).toBe(503);
    await post.body?.cancel();
  });

  it('answers 200 on /healthz for the probes, and never caches it', async () => {
    const base = await start();
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe('ok\n');
    expect((await fetch(`${base}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });

  it('escapes the message in HTML', async () => {
    const base = await start({ message: '<script>alert("x")</script> & more' });
    const html = await (await fetch(base)).text();
    expect(html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; more');
    expect(html).not.toContain('<script>');
  });

  it('stops accepting connections once closed', async () => {
    const server = await startPageServer(
      { port: 0, bindAddress: '127.0.0.1', message: 'm', retryAfterSeconds: 300, retryAfterUntil: undefined, contentFile: undefined },
      { log },
    );
    const base = `http://127.0.0.1:${server.address.port}`;
    expect((await fetch(base)).status).toBe(503);
    await server.close();
    await expect(fetch(base)).rejects.toThrow();
  });
});

describe('the page from --content-file', () => {
  it('is served to HTML clients, while JSON clients still get the message', async () => {
    const file = await pageFile('<h1>Shop closed for upgrades</h1>');
    const base = await start({ contentFile: file });
    expect(await (await fetch(base)).text()).toBe('<h1>Shop closed for upgrades</h1>');
    expect(await (await fetch(base, { headers: { accept: 'application/json' } })).json()).toMatchObject({
      message: 'The shop is being upgraded.',
    });
  });

  it('is reloaded when the file is rewritten', async () => {
    const file = await pageFile('<p>first</p>');
    const base = await start({ contentFile: file });
    expect(await (await fetch(base)).text()).toBe('<p>first</p>');
    await writeFile(file, '<p>second</p>');
    await waitFor(async () => (await (await fetch(base)).text()) === '<p>second</p>', {
      what: 'the rewritten page to be served',
      timeoutMs: 10_000,
    });
  });

  it("is reloaded when the kubelet swaps a ConfigMap volume's ..data symlink", async () => {
    // The layout the kubelet's atomic writer makes: page.html -> ..data/page.html, ..data -> ..<timestamp>.
    const dir = await tempDir();
    await mkdir(join(dir, '..2026_03_01_22_00_00.1'));
    await writeFile(join(dir, '..2026_03_01_22_00_00.1', 'page.html'), '<p>version 1</p>');
    await symlink('..2026_03_01_22_00_00.1', join(dir, '..data'));
    await symlink('..data/page.html', join(dir, 'page.html'));
    const base = await start({ contentFile: join(dir, 'page.html') });
    expect(await (await fetch(base)).text()).toBe('<p>version 1</p>');

    await mkdir(join(dir, '..2026_03_01_22_01_00.2'));
    await writeFile(join(dir, '..2026_03_01_22_01_00.2', 'page.html'), '<p>version 2</p>');
    await symlink('..2026_03_01_22_01_00.2', join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await rm(join(dir, '..2026_03_01_22_00_00.1'), { recursive: true });
    await waitFor(async () => (await (await fetch(base)).text()) === '<p>version 2</p>', {
      what: 'the swapped page to be served',
      timeoutMs: 10_000,
    });
  });

  it('falls back to the built-in page until a missing file appears, and keeps the last page if it vanishes', async () => {
    const file = await pageFile(undefined);
    const base = await start({ contentFile: file });
    expect(await (await fetch(base)).text()).toContain('<title>Down for maintenance</title>');
    expect(logged).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'cannot read the page file; keeping the current page' }));

    await writeFile(file, '<p>arrived</p>');
    await waitFor(async () => (await (await fetch(base)).text()) === '<p>arrived</p>', {
      what: 'the new page to be served',
      timeoutMs: 10_000,
    });
    await rm(file);
    await waitFor(() => logged.filter((entry) => entry.msg.startsWith('cannot read')).length >= 2, {
      what: 'the failed re-read to be logged',
      timeoutMs: 10_000,
    });
    expect(await (await fetch(base)).text()).toBe('<p>arrived</p>');
  });
});
