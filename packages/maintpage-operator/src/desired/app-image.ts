import type { V1Deployment } from '@kubernetes/client-node';
import type { ResolvedMaintPage } from '../api/resolved-maintpage.ts';
import { appName } from '../api/object-names.ts';

/**
 * Telling a manual change of the app's image from a change of `appimage`. The app Deployment records the `appimage`
 * it was last built from in an annotation. When the container's image differs from `appimage`:
 * - and the annotation equals `appimage`, someone changed the Deployment: a manual change, reverted or kept by
 *   `imageChangePolicy`;
 * - otherwise `appimage` itself changed (or the Deployment predates the annotation): the new `appimage` is applied.
 * The container is found by name (`appname`, as the seed names it), not by position, so a sidecar added by a mutating
 * webhook or a human is never mistaken for the app.
 */

export const APPLIED_APP_IMAGE_ANNOTATION = 'maintpage.example.com/applied-appimage';

export interface AppImageChange {
  container: string;
  /** The image someone set on the Deployment. */
  observedImage: string;
  /** `spec.appconfig.appimage`. */
  specImage: string;
  /** What this reconcile does: set the image back to `specImage`, or keep `observedImage`. */
  action: 'Revert' | 'Keep';
}

/** The manual change of the app container's image on `observed`, if there is one. */
export function detectAppImageChange(maintPage: ResolvedMaintPage, observed: V1Deployment | undefined): AppImageChange | undefined {
  const container = appName(maintPage);
  const specImage = maintPage.spec.appconfig.appimage;
  const observedImage = observed?.spec?.template.spec?.containers.find((c) => c.name === container)?.image;
  if (observedImage === undefined || observedImage === specImage) return undefined;
  if (observed?.metadata?.annotations?.[APPLIED_APP_IMAGE_ANNOTATION] !== specImage) return undefined;
  const policy = maintPage.spec.appconfig.imageChangePolicy;
  return { container, observedImage, specImage, action: policy === 'Allow' ? 'Keep' : 'Revert' };
}

/** The image to put in the app Deployment: `appimage`, unless a manual change is to be kept. */
export function appImageToApply(maintPage: ResolvedMaintPage, observed: V1Deployment | undefined): string {
  const change = detectAppImageChange(maintPage, observed);
  return change?.action === 'Keep' ? change.observedImage : maintPage.spec.appconfig.appimage;
}
