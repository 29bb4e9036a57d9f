import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { findImageRule, loadImageMap } from './image-map.ts';

test('globs match the whole image reference; the seed images and our own images are built in', async () => {
  const map = await loadImageMap(undefined);
  expect(findImageRule(map, 'postgres:16')?.runner).toBe('postgres');
  expect(findImageRule(map, 'postgres')).toBeUndefined();
  expect(findImageRule(map, 'ghcr.io/acme/maintpage-operator:0.1.0')?.with).toEqual({ entry: 'packages/maintpage-operator/dist/main.js' });
  expect(findImageRule(map, 'quay.io/daein/prodpage:latest')?.with).toMatchObject({ body: 'Production Page !\n' });
  expect(findImageRule(map, 'quay.io/daein/prodpage.evil:latest')).toBeUndefined();
});

test('a user map is searched before the defaults and malformed maps are refused with the file named', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'image-map-'));
  const file = join(dir, 'map.yaml');
  await writeFile(file, 'images:\n  - match: "postgres:*"\n    runner: http-static\n    with: { body: "not a db" }\n');
  const map = await loadImageMap(file);
  expect(findImageRule(map, 'postgres:15')?.runner).toBe('http-static');
  expect(findImageRule(map, 'busybox:1.36')?.runner).toBe('command');

  await writeFile(file, 'images:\n  - match: 7\n');
  await expect(loadImageMap(file)).rejects.toThrow(`image map ${file}: images[0] needs string fields "match" and "runner"`);
  await writeFile(file, 'pictures: []\n');
  await expect(loadImageMap(file)).rejects.toThrow('expected a top-level "images:" list');
});
