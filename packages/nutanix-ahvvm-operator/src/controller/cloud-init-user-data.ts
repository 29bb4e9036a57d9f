import { Resources, type KubeClient } from '@k8s-operators/controller-core';
import type { AhvVmScope } from './ahvvm-scope.ts';
import { Reason } from '../desired/desired-ahvvm-status.ts';

export type UserDataResult =
  | { ok: true; base64: string | undefined }
  | { ok: false; reason: string; message: string };

/**
 * The cloud-init user data of `spec.cloud_init.user_data_secret_ref`, base64 as the Secret holds it (which is what
 * Prism wants). Read only when a VM is created: Prism applies user data at creation alone, so a later change of the
 * Secret has nothing to go to. Messages name the Secret and key, never what they hold.
 */
export async function cloudInitUserData(kube: Pick<KubeClient, 'get'>, scope: Pick<AhvVmScope, 'avm' | 'spec'>): Promise<UserDataResult> {
  const ref = scope.spec.cloud_init?.user_data_secret_ref;
  if (ref === undefined) return { ok: true, base64: undefined };
  const namespace = scope.avm.metadata.namespace ?? 'default';
  const { key } = ref;
  const secret = await kube.get(Resources.Secret, { namespace, name: ref.name });
  if (secret === undefined) {
    return { ok: false, reason: Reason.CloudInitSecretNotFound, message: `Secret ${namespace}/${ref.name} (cloud_init.user_data_secret_ref) does not exist` };
  }
  const base64 = secret.data?.[key];
  if (base64 === undefined) {
    return { ok: false, reason: Reason.CloudInitSecretNotFound, message: `Secret ${namespace}/${ref.name} has no key ${JSON.stringify(key)} (cloud_init.user_data_secret_ref.key)` };
  }
  return { ok: true, base64 };
}
