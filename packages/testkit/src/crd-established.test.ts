import { describe, expect, it } from 'vitest';
import { waitForCrdsEstablished } from './crd-established.ts';

const crd = (name: string, established?: 'True' | 'False'): object => ({
  kind: 'CustomResourceDefinition',
  metadata: { name },
  ...(established === undefined ? {} : { status: { conditions: [{ type: 'NamesAccepted', status: 'True' }, { type: 'Established', status: established }] } }),
});

/** A kubectl that prints the given answers to `get crd ... -o json` one after the other, the last one from then on. */
function kubectlPrinting(...answers: object[]): { kubectlOk: (args: readonly string[]) => Promise<string>; calls: (readonly string[])[] } {
  const calls: (readonly string[])[] = [];
  return {
    calls,
    kubectlOk: (args) => {
      calls.push(args);
      return Promise.resolve(JSON.stringify(answers[Math.min(calls.length, answers.length) - 1]));
    },
  };
}

describe('waitForCrdsEstablished', () => {
  it('keeps waiting through a CRD with no conditions yet, where kubectl wait fails', async () => {
    const kubectl = kubectlPrinting(crd('maintpages.maintpage.example.com'), crd('maintpages.maintpage.example.com', 'False'), crd('maintpages.maintpage.example.com', 'True'));
    await waitForCrdsEstablished(kubectl.kubectlOk, ['maintpages.maintpage.example.com']);
    expect(kubectl.calls).toHaveLength(3);
    expect(kubectl.calls[0]).toEqual(['get', 'crd', 'maintpages.maintpage.example.com', '-o', 'json']);
  });

  it('waits for every CRD of a list', async () => {
    const kubectl = kubectlPrinting(
      { kind: 'List', items: [crd('a.example.com', 'True'), crd('b.example.com')] },
      { kind: 'List', items: [crd('a.example.com', 'True'), crd('b.example.com', 'True')] },
    );
    await waitForCrdsEstablished(kubectl.kubectlOk, ['a.example.com', 'b.example.com']);
    expect(kubectl.calls).toHaveLength(2);
  });

  it('gives up after its time-out, naming the CRDs', async () => {
    const kubectl = kubectlPrinting({ kind: 'List', items: [crd('a.example.com', 'True'), crd('b.example.com')] });
    await expect(waitForCrdsEstablished(kubectl.kubectlOk, ['a.example.com', 'b.example.com'], 300)).rejects.toThrow(
      'timed out after 300 ms waiting for the CRDs a.example.com, b.example.com to be Established',
    );
  });
});
