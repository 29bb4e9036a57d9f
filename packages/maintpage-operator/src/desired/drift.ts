import { isDeepStrictEqual } from 'node:util';
import { requiredName } from '@k8s-operators/controller-core';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import type { ResolvedMaintPage } from '../api/resolved-maintpage.ts';
import { detectAppImageChange, type AppImageChange } from './app-image.ts';
import { targetOfSelector } from './labels.ts';
import { appName } from '../api/object-names.ts';

/**
 * Changes made by hand to what the MaintPage owns, and what to do about them: the app container's image (reverted
 * or kept by `imageChangePolicy`, see app-image.ts) and the Service selector (always set back: the selector is the
 * whole point of the MaintPage). Applying the desired objects makes the correction; this module says that one was
 * made, for an Event a user can find with `kubectl describe maintpage`.
 */

export interface SelectorChange {
  service: string;
  observed: Record<string, string>;
  desired: Record<string, string>;
}

export interface DriftEvent {
  type: 'Normal' | 'Warning';
  reason: 'ImageReverted' | 'ImageChangeKept' | 'SelectorReverted';
  message: string;
}

export interface Drift {
  appImage: AppImageChange | undefined;
  serviceSelector: SelectorChange | undefined;
  events: DriftEvent[];
}

export interface ObservedObjects {
  appDeployment: V1Deployment | undefined;
  service: V1Service | undefined;
}

/** `a=1,b=2`, as kubectl prints selectors. */
function formatSelector(selector: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(selector).map(([key, value]) => `${key}=${value}`);
  return pairs.length === 0 ? '(none)' : pairs.join(',');
}

/**
 * A hand-made change of the Service selector: the Service exists and selects neither `desiredSelector` nor the other
 * of this MaintPage's two selectors (moving between those is a switch, which `decideSwitch` reports).
 */
export function detectServiceSelectorChange(
  maintPage: ResolvedMaintPage,
  service: V1Service | undefined,
  desiredSelector: Record<string, string>,
): SelectorChange | undefined {
  if (service === undefined) return undefined;
  const observed = service.spec?.selector ?? {};
  if (isDeepStrictEqual(observed, desiredSelector)) return undefined;
  if (targetOfSelector(requiredName(maintPage), observed) !== undefined) return undefined;
  return { service: service.metadata?.name ?? appName(maintPage), observed: { ...observed }, desired: { ...desiredSelector } };
}

function imageEvent(deployment: string, change: AppImageChange): DriftEvent {
  if (change.action === 'Revert') {
    return {
      type: 'Warning',
      reason: 'ImageReverted',
      message:
        `Deployment ${deployment}: the image of container ${change.container} was changed to ${change.observedImage}; ` +
        `set back to appimage ${change.specImage}. Change spec.appconfig.appimage instead, or set ` +
        'spec.appconfig.imageChangePolicy to Allow to keep such changes',
    };
  }
  return {
    type: 'Normal',
    reason: 'ImageChangeKept',
    message:
      `Deployment ${deployment}: container ${change.container} runs ${change.observedImage}, not appimage ` +
      `${change.specImage}; kept because imageChangePolicy is Allow`,
  };
}

/** Hand-made changes to the app Deployment's image and the Service selector, with the Events that report them. */
export function detectDrift(maintPage: ResolvedMaintPage, observed: ObservedObjects, desiredSelector: Record<string, string>): Drift {
  const appImage = detectAppImageChange(maintPage, observed.appDeployment);
  const serviceSelector = detectServiceSelectorChange(maintPage, observed.service, desiredSelector);
  const events: DriftEvent[] = [];
  if (appImage !== undefined) events.push(imageEvent(appName(maintPage), appImage));
  if (serviceSelector !== undefined) {
    events.push({
      type: 'Warning',
      reason: 'SelectorReverted',
      message:
        `Service ${serviceSelector.service}: the selector was changed to ${formatSelector(serviceSelector.observed)}; ` +
        `set back to ${formatSelector(serviceSelector.desired)}. Use spec.maintpageconfig.maintpagetoggle to switch`,
    });
  }
  return { appImage, serviceSelector, events };
}
