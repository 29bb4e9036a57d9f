/**
 * Bounds of the AhvVm API, enforced by the API server so a typo is refused at `kubectl apply` with a message, not
 * discovered later as a failed Prism task.
 *
 * Minimums are the seed's (1 socket, 1 vCPU per socket, 1024 MiB). The seed's maximums (4 sockets, 2 vCPUs per socket,
 * 4096 MiB) fitted one lab, not AHV: they would refuse ordinary database VMs. The maximums here are ceilings that catch
 * an extra zero without refusing real large VMs: 240 vCPUs in total (the vCPU count QEMU/KVM guests are commonly
 * supported up to, e.g. RHEL 7 on KVM) and 4 TiB of memory. What a given cluster can actually host is for Prism to
 * judge; a value it refuses surfaces as a failed task in `status.lastTask` and `Ready=False`.
 */
export const AHVVM_LIMITS = {
  numSockets: { min: 1, max: 240 },
  numVcpusPerSocket: { min: 1, max: 64 },
  /** num_sockets × num_vcpus_per_socket. */
  maxTotalVcpus: 240,
  /** 4 TiB. */
  memorySizeMib: { min: 1024, max: 4 * 1024 * 1024 },
  /** 64 TiB, far above any single virtual disk in practice; a guard against typos only. */
  diskSizeMib: { max: 64 * 1024 * 1024 },
  maxDisks: 32,
  maxNics: 16,
  maxCategories: 32,
  /**
   * The Prism simulator, following its reading of the v3 schema, takes 1000 characters of description (the real limit
   * is unverified); the operator appends its ownership line (see `desired/ownership-marker.ts`, under 70 characters), so
   * users get what is left with room to spare.
   */
  descriptionMaxLength: 900,
} as const;

/**
 * The defaults of the sizing fields: what the seed's operator sent when a field was left out
 * (`spec.get('num_sockets', 1)` and so on), so the seed's manifests size their VMs as before.
 */
export const AHVVM_SPEC_DEFAULTS = { numSockets: 1, numVcpusPerSocket: 1, memorySizeMib: 1024 } as const;

/** The Secret key read for cloud-init user data when `cloud_init.user_data_secret_ref.key` is not given. */
export const DEFAULT_USER_DATA_KEY = 'userdata';
