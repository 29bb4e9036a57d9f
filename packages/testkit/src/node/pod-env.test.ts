import { expect, test } from 'vitest';
import { expandReferences } from './pod-env.ts';
import { translateMountedPaths, translatePath } from './volumes.ts';

test('$(VAR) references expand like Kubernetes: known names only, $$ escapes', () => {
  const vars = { NAME: 'web', PORT: '8080' };
  expect(expandReferences('--name=$(NAME) --port=$(PORT)', vars)).toBe('--name=web --port=8080');
  expect(expandReferences('$(MISSING) stays', vars)).toBe('$(MISSING) stays');
  expect(expandReferences('$$(NAME) is literal', vars)).toBe('$(NAME) is literal');
});

test('container paths map to the longest matching mount, else to the container root when asked', () => {
  const mounts = [
    { mountPath: '/backup', hostPath: '/h/backup', readOnly: false },
    { mountPath: '/var/lib/postgresql/data', hostPath: '/h/pvc', readOnly: false },
    { mountPath: '/var/lib', hostPath: '/h/lib', readOnly: false },
  ];
  expect(translatePath('/backup', mounts)).toBe('/h/backup');
  expect(translatePath('/backup/db/x.dump', mounts)).toBe('/h/backup/db/x.dump');
  expect(translatePath('/backupx/file', mounts)).toBe('/backupx/file');
  expect(translatePath('/var/lib/postgresql/data/pgdata', mounts)).toBe('/h/pvc/pgdata');
  expect(translatePath('/etc/passwd', mounts, '/h/rootfs')).toBe('/h/rootfs/etc/passwd');
  expect(translateMountedPaths('--backup-dir=/backup/db', mounts)).toBe('--backup-dir=/h/backup/db');
  expect(translateMountedPaths('plain value', mounts)).toBe('plain value');
});
