import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { maintPageFixture, resolved } from '../../test/maintpage-fixture.ts';
import { APPLIED_APP_IMAGE_ANNOTATION, appImageToApply } from './app-image.ts';
import { desiredAppDeployment } from './desired-app-deployment.ts';
import { detectDrift } from './drift.ts';
import { selectorFor } from './labels.ts';

const specImage = 'quay.io/daein/prodpage:latest';
const appSelector = selectorFor('example', 'app');

/** The app Deployment as the operator applied it (for `appliedFor`), with the app container running `image`. */
function deploymentRunning(image: string, options: { appliedFor?: string; sidecarFirst?: boolean } = {}): V1Deployment {
  const app = { name: 'httpd', image };
  const sidecar = { name: 'log-shipper', image: 'fluent/fluent-bit:3.0' };
  return {
    metadata: { name: 'httpd', annotations: { [APPLIED_APP_IMAGE_ANNOTATION]: options.appliedFor ?? specImage } },
    spec: {
      selector: { matchLabels: appSelector },
      template: { spec: { containers: options.sidecarFirst === true ? [sidecar, app] : [app] } },
    },
  };
}

const service = (selector: Record<string, string>): V1Service => ({ metadata: { name: 'httpd' }, spec: { selector } });

describe('detectDrift: the app image', () => {
  it('sees nothing when the image is appimage', () => {
    const drift = detectDrift(resolved(maintPageFixture()), { appDeployment: deploymentRunning(specImage), service: undefined }, appSelector);
    expect(drift).toEqual({ appImage: undefined, serviceSelector: undefined, events: [] });
  });

  it("reverts a hand-made change (the seed article's test: prodpage:notfound) with a Warning event", () => {
    const maintPage = resolved(maintPageFixture());
    const deployment = deploymentRunning('quay.io/daein/prodpage:notfound');
    const drift = detectDrift(maintPage, { appDeployment: deployment, service: undefined }, appSelector);
    expect(drift.appImage).toEqual({
      container: 'httpd',
      observedImage: 'quay.io/daein/prodpage:notfound',
      specImage,
      action: 'Revert',
    });
    expect(drift.events).toEqual([
      {
        type: 'Warning',
        reason: 'ImageReverted',
        message:
          'Deployment httpd: the image of container httpd was changed to quay.io/daein/prodpage:notfound; set back ' +
          'to appimage quay.io/daein/prodpage:latest. Change spec.appconfig.appimage instead, or set ' +
          'spec.appconfig.imageChangePolicy to Allow to keep such changes',
      },
    ]);
    expect(desiredAppDeployment(maintPage, deployment).spec?.template.spec?.containers[0]?.image).toBe(specImage);
  });

  it('finds the app container by name, not position, so a sidecar listed first changes nothing', () => {
    const deployment = deploymentRunning('quay.io/daein/prodpage:notfound', { sidecarFirst: true });
    const drift = detectDrift(resolved(maintPageFixture()), { appDeployment: deployment, service: undefined }, appSelector);
    expect(drift.appImage).toMatchObject({ container: 'httpd', observedImage: 'quay.io/daein/prodpage:notfound' });
  });

  it('keeps a hand-made change when imageChangePolicy is Allow, and says so', () => {
    const maintPage = resolved(maintPageFixture({ appconfig: { imageChangePolicy: 'Allow' } }));
    const deployment = deploymentRunning('quay.io/daein/prodpage:v2');
    const drift = detectDrift(maintPage, { appDeployment: deployment, service: undefined }, appSelector);
    expect(drift.appImage?.action).toBe('Keep');
    expect(drift.events).toEqual([
      {
        type: 'Normal',
        reason: 'ImageChangeKept',
        message:
          'Deployment httpd: container httpd runs quay.io/daein/prodpage:v2, not appimage ' +
          'quay.io/daein/prodpage:latest; kept because imageChangePolicy is Allow',
      },
    ]);
    expect(appImageToApply(maintPage, deployment)).toBe('quay.io/daein/prodpage:v2');
    expect(desiredAppDeployment(maintPage, deployment).spec?.template.spec?.containers[0]?.image).toBe(
      'quay.io/daein/prodpage:v2',
    );
  });

  it.each(['Revert', 'Allow'] as const)('applies a new appimage under policy %s, without calling it drift', (policy) => {
    const maintPage = resolved(maintPageFixture({ appconfig: { appimage: 'quay.io/daein/prodpage:v3', imageChangePolicy: policy } }));
    const deployment = deploymentRunning(specImage); // applied for the previous appimage
    const drift = detectDrift(maintPage, { appDeployment: deployment, service: undefined }, appSelector);
    expect(drift.appImage).toBeUndefined();
    expect(drift.events).toEqual([]);
    expect(appImageToApply(maintPage, deployment)).toBe('quay.io/daein/prodpage:v3');
  });

  it('treats a Deployment without the annotation (made before this operator) as out of date, not drifted', () => {
    const deployment = deploymentRunning('quay.io/daein/prodpage:old');
    delete deployment.metadata?.annotations;
    expect(detectDrift(resolved(maintPageFixture()), { appDeployment: deployment, service: undefined }, appSelector).appImage).toBeUndefined();
  });
});

describe('detectDrift: the Service selector', () => {
  it('sees nothing without a Service, or when it selects what was decided', () => {
    const maintPage = resolved(maintPageFixture());
    expect(detectDrift(maintPage, { appDeployment: undefined, service: undefined }, appSelector).serviceSelector).toBeUndefined();
    expect(detectDrift(maintPage, { appDeployment: undefined, service: service(appSelector) }, appSelector).serviceSelector).toBeUndefined();
  });

  it('leaves a move between our own two selectors to the switch decision', () => {
    const drift = detectDrift(
      resolved(maintPageFixture()),
      { appDeployment: undefined, service: service(selectorFor('example', 'maintenance')) },
      appSelector,
    );
    expect(drift.serviceSelector).toBeUndefined();
  });

  it.each([
    ["the seed's selector", { app: 'httpd' }],
    ['an extra key', { ...appSelector, tier: 'web' }],
    ['another MaintPage', selectorFor('other', 'app')],
    ['no selector at all', undefined],
  ])('reverts %s with a Warning event', (_what, selector) => {
    const observedService: V1Service = { metadata: { name: 'httpd' }, spec: selector === undefined ? {} : { selector } };
    const drift = detectDrift(resolved(maintPageFixture()), { appDeployment: undefined, service: observedService }, appSelector);
    expect(drift.serviceSelector).toEqual({ service: 'httpd', observed: selector ?? {}, desired: appSelector });
    expect(drift.events).toHaveLength(1);
    expect(drift.events[0]).toMatchObject({ type: 'Warning', reason: 'SelectorReverted' });
    expect(drift.events[0]?.message).toContain(
      'set back to maintpage.example.com/instance=example,maintpage.example.com/role=app',
    );
  });
});
