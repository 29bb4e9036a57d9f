import type { MaintPage, MaintPageSpec } from '../src/api/maintpage-resource.ts';
import { resolveMaintPage, type ResolvedMaintPage } from '../src/api/resolved-maintpage.ts';

type MaintPageConfig = NonNullable<MaintPageSpec['maintpageconfig']>;
type AppConfig = MaintPageSpec['appconfig'];

export interface FixtureOptions {
  name?: string;
  generation?: number;
  maintpageconfig?: Partial<MaintPageConfig>;
  appconfig?: Partial<AppConfig>;
  status?: MaintPage['status'];
}

/**
 * The seed article's sample MaintPage as the API server returns it (with uid, namespace and generation; without the
 * defaults, which the code must not rely on), with any fields replaced.
 */
export function maintPageFixture(options: FixtureOptions = {}): MaintPage {
  const { name = 'example', generation = 1 } = options;
  return {
    apiVersion: 'maintpage.example.com/v1alpha1',
    kind: 'MaintPage',
    metadata: { name, namespace: 'maintpage-operator', uid: '6b0e3a57-3a43-4c39-9d55-6f6d0d8e4b11', generation },
    spec: {
      maintpageconfig: {
        maintpagetoggle: false,
        maintpageimage: 'quay.io/daein/maintpage:latest',
        ...options.maintpageconfig,
      },
      appconfig: { appname: 'httpd', appimage: 'quay.io/daein/prodpage:latest', ...options.appconfig },
    },
    ...(options.status === undefined ? {} : { status: options.status }),
  };
}

/** The fixture using the built-in page server: `maintpageimage` left out. */
export function builtInPageFixture(options: FixtureOptions = {}): MaintPage {
  const maintPage = maintPageFixture(options);
  const { maintpageimage: _omitted, ...config } = maintPage.spec.maintpageconfig ?? {};
  return { ...maintPage, spec: { ...maintPage.spec, maintpageconfig: config } };
}

/** `maintPage` resolved as a reconcile resolves it, for the builders; a fixture with a spec problem fails its test. */
export function resolved(maintPage: MaintPage): ResolvedMaintPage {
  const resolution = resolveMaintPage(maintPage);
  if (!resolution.ok) throw new Error(`the fixture has a spec problem: ${resolution.message}`);
  return resolution.maintPage;
}
