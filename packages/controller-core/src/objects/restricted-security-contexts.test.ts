import { describe, expect, it } from 'vitest';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from './restricted-security-contexts.ts';

describe('restrictedPodSecurityContext', () => {
  it('runs as non-root with the runtime default seccomp profile, leaving the user to the image', () => {
    expect(restrictedPodSecurityContext()).toStrictEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  });

  it('runs as the given user and group, and gives the volumes to fsGroup', () => {
    expect(restrictedPodSecurityContext({ runAsUserAndGroup: 65532 })).toStrictEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const withVolumes = restrictedPodSecurityContext({ runAsUserAndGroup: 999, fsGroup: 999 });
    expect(withVolumes).toStrictEqual({
      runAsNonRoot: true,
      runAsUser: 999,
      runAsGroup: 999,
      fsGroup: 999,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(Object.keys(withVolumes)).toEqual(['runAsNonRoot', 'runAsUser', 'runAsGroup', 'fsGroup', 'seccompProfile']);
  });
});

describe('restrictedContainerSecurityContext', () => {
  it('forbids privilege escalation and drops every capability', () => {
    const writable = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
    expect(restrictedContainerSecurityContext()).toStrictEqual(writable);
    expect(restrictedContainerSecurityContext({ readOnlyRootFilesystem: false })).toStrictEqual(writable);
  });

  it('makes the root filesystem read-only when asked', () => {
    expect(restrictedContainerSecurityContext({ readOnlyRootFilesystem: true })).toStrictEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      readOnlyRootFilesystem: true,
    });
  });
});
