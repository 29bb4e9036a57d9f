// Whether an operator's process leads, read from its namespace's Leases. controller-core names the holder
// `<pod>_<uuid>`, a new uuid per process, which the soak cannot see; but a container killed and restarted in the same
// Pod leaves the Lease naming its Pod until the Lease expires. Only a renewal after the container started can be the
// running process's own.

export interface LeaseRecord { spec?: { holderIdentity?: string; renewTime?: string } }

/** Whether the process that `pod`'s container started at `containerStartedAt` (RFC 3339) holds one of `leases`. */
export function holdsLease(leases: readonly LeaseRecord[], pod: string, containerStartedAt: string | undefined): boolean {
  const startedAt = containerStartedAt === undefined ? Number.NaN : Date.parse(containerStartedAt);
  if (Number.isNaN(startedAt)) return false;
  return leases.some(({ spec }) => {
    const renewedAt = spec?.renewTime === undefined ? Number.NaN : Date.parse(spec.renewTime);
    return (spec?.holderIdentity ?? '').startsWith(`${pod}_`) && renewedAt >= startedAt;
  });
}
