import { join } from 'node:path';
import { expect, it } from 'vitest';
import { base64, singleContext, writeKubeconfig, useTestPki } from '../../../test/kubeconfig-fixtures.ts';
import { loadClusterAuth } from './load-cluster-auth.ts';

const pki = useTestPki('ca');

/**
 * An OIDC id-token as client-node reads it: it decodes the JWT's `exp` and, while that is in the future, sends the
 * token without contacting the issuer. So an unexpired token works offline; the signature is the API server's concern.
 */
function idToken(expiresInSeconds: number): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: 'https://issuer.example', sub: 'jane', exp: Math.floor(Date.now() / 1000) + expiresInSeconds })}.c2lnbmF0dXJl`;
}

it('a user with an oidc auth-provider goes through client-node and sends the id-token', async () => {
  const token = idToken(3600);
  const kubeconfig = await writeKubeconfig(
    join(pki.dir, 'oidc/config'),
    singleContext(
      { server: 'https://api.example:6443/', 'certificate-authority': '../pki/ca.pem', 'tls-server-name': 'kubernetes' },
      {
        'auth-provider': {
          name: 'oidc',
          config: { 'id-token': token, 'client-id': 'kubectl', 'idp-issuer-url': 'https://issuer.example', 'refresh-token': 'refresh-me' },
        },
        as: 'admin',
        'as-groups': ['devs', 'ops'],
      },
    ),
  );
  const auth = await loadClusterAuth({ kubeconfig });
  expect(auth.server).toBe('https://api.example:6443');
  expect(auth.tls).toEqual({ ca: pki.ca.cert, cert: undefined, key: undefined, servername: 'kubernetes' });
  // client-node sends `as` only; the groups are added on top of its headers.
  expect(await auth.headers()).toEqual({ authorization: `Bearer ${token}`, 'impersonate-user': 'admin', 'impersonate-group': ['devs', 'ops'] });
  await auth.refresh();
  expect(await auth.headers()).toMatchObject({ authorization: `Bearer ${token}` });
});

it('the CA as data, with the context chosen by name', async () => {
  const token = idToken(600);
  const config = singleContext({ server: 'https://api.example', 'certificate-authority-data': base64(pki.ca.cert) }, { 'auth-provider': { name: 'oidc', config: { 'id-token': token } } }, 'sso');
  const kubeconfig = await writeKubeconfig(join(pki.dir, 'oidc-data/config'), { ...config, 'current-context': 'elsewhere' });
  const auth = await loadClusterAuth({ kubeconfig, context: 'sso' });
  expect(auth.tls.ca).toEqual(pki.ca.cert);
  expect(await auth.headers()).toEqual({ authorization: `Bearer ${token}` });
});

it('an auth-provider neither implements is refused', async () => {
  const kubeconfig = await writeKubeconfig(join(pki.dir, 'custom/config'), singleContext({ server: 'https://api.example' }, { 'auth-provider': { name: 'openstack' } }));
  await expect(loadClusterAuth({ kubeconfig })).rejects.toThrow(
    `user "main" in ${kubeconfig} uses auth-provider openstack, which is not supported (oidc, gcp, azure are): use an exec plugin`,
  );
});
