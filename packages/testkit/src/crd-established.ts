import { waitFor } from './wait-for.ts';

/** Runs kubectl with these arguments and resolves to what it printed; rejects when it fails. */
export type KubectlOk = (args: readonly string[]) => Promise<string>;

interface CrdStatus {
  metadata?: { name?: string };
  status?: { conditions?: { type?: string; status?: string }[] };
}

/**
 * Waits until each named CustomResourceDefinition (`maintpages.maintpage.example.com`) is Established. Not `kubectl
 * wait --for=condition=Established`: when it reads a CRD that the API server has not given any condition yet, right
 * after the apply, it fails at once with ".status.conditions accessor error: <nil> is of the type <nil>" instead of
 * waiting (it failed a CI run that way, 2026-11-27).
 */
export async function waitForCrdsEstablished(kubectlOk: KubectlOk, crds: readonly string[], timeoutMs = 60_000): Promise<void> {
  await waitFor(async () => {
    const printed = JSON.parse(await kubectlOk(['get', 'crd', ...crds, '-o', 'json'])) as CrdStatus & { kind?: string; items?: CrdStatus[] };
    const found = printed.kind === 'List' ? (printed.items ?? []) : [printed];
    const established = new Set(found
      .filter((crd) => crd.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') === true)
      .map((crd) => crd.metadata?.name));
    return crds.every((name) => established.has(name));
  }, { what: `the CRDs ${crds.join(', ')} to be Established`, timeoutMs });
}
