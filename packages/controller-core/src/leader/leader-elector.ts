import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Counter, Gauge } from 'prom-client';
import type { KubeClient } from '../client/kube-client.ts';
import { isConflict, isNotFound } from '../client/errors.ts';
import { LeaseResource, microTime, recordFingerprint, type Lease } from './lease-record.ts';

export interface LeaderElectionOptions {
  /** Namespace and name of the coordination.k8s.io/v1 Lease. */
  namespace: string;
  name: string;
  /** Default `<hostname>_<uuid>`, as controller-runtime. */
  identity?: string;
  /** How long a lease is valid without renewal; candidates wait this long after the last change they saw (default 15 s). */
  leaseDurationMs?: number;
  /** The leader gives up when it could not renew for this long (default 10 s). */
  renewDeadlineMs?: number;
  /** How often candidates try and the leader renews (default 2 s). */
  retryPeriodMs?: number;
  /**
   * Write an empty holder with a 1 s duration on a clean stop, so a successor takes over within one retry period
   * instead of waiting out the lease (default true; controller-runtime defaults to false and makes every rolling
   * update wait 15 s). Safe because the manager stops all work before it releases.
   */
  releaseOnCancel?: boolean;
  /** `leader_election_master_status{name}`. */
  masterStatus?: Gauge<'name'>;
  /** `leader_election_lost_total{name}`: leaderships lost to the renew deadline. */
  lostTotal?: Counter<'name'>;
  logger?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

const JITTER_FACTOR = 1.2;

/** controller-runtime's validation: leaseDuration > renewDeadline > 1.2 × retryPeriod. */
function validated(options: LeaderElectionOptions): Required<Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>> {
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  if (!(leaseDurationMs > renewDeadlineMs)) throw new Error(`leader election: leaseDuration (${leaseDurationMs} ms) must be greater than renewDeadline (${renewDeadlineMs} ms)`);
  if (!(renewDeadlineMs > JITTER_FACTOR * retryPeriodMs)) throw new Error(`leader election: renewDeadline (${renewDeadlineMs} ms) must be greater than ${JITTER_FACTOR} × retryPeriod (${retryPeriodMs} ms)`);
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Lease-based leader election with client-go's semantics: a candidate takes the lease only when its holder has not
 * changed the record for a whole lease duration as measured on the candidate's own clock (no trust in other clocks);
 * the leader renews every retry period and steps down when it could not renew within the renew deadline.
 */
export class LeaderElector {
  readonly identity: string;
  readonly #client: KubeClient;
  readonly #options: LeaderElectionOptions;
  readonly #timing: ReturnType<typeof validated>;
  #observed: { fingerprint: string; at: number; lease: Lease } | undefined;
  #leading = false;

  constructor(client: KubeClient, options: LeaderElectionOptions) {
    this.#client = client;
    this.#options = options;
    this.#timing = validated(options);
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    options.masterStatus?.set({ name: options.name }, 0);
    options.lostTotal?.inc({ name: options.name }, 0);
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /**
   * Waits until this process leads (resolves true) or `signal` aborts first (resolves false). Each attempt is given
   * the renew deadline at most: an API server that holds the request (its etcd gone) delays the next attempt, not the
   * election. A process that lost leadership calls this again; it takes the lease back at once if it is still the
   * holder on record (nobody else took over, so nobody else acted), and otherwise waits like any candidate.
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    const { retryPeriodMs, renewDeadlineMs } = this.#timing;
    while (!signal.aborted) {
      if (await this.#tryAcquireOrRenew(AbortSignal.any([signal, AbortSignal.timeout(renewDeadlineMs)]))) {
        this.#setLeading(true);
        this.#options.logger?.info({ lease: `${this.#options.namespace}/${this.#options.name}`, identity: this.identity }, 'became leader');
        return true;
      }
      await sleep(retryPeriodMs * (1 + Math.random() * (JITTER_FACTOR - 1)), signal);
    }
    return false;
  }

  /**
   * Renews every retry period while leading. Resolves 'lost' once renewal has failed until the renew deadline (the
   * caller must stop all work at once), or 'stopped' when `signal` aborts (the caller then calls {@link release}).
   * As client-go's renew loop, the deadline also bounds the attempts themselves: a renewal still unanswered at the
   * deadline is abandoned, so a leader whose requests hang steps down before its lease can expire for the others
   * (leaseDuration > renewDeadline), and never leads beside a successor.
   */
  async hold(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    const { renewDeadlineMs, retryPeriodMs } = this.#timing;
    // When the last successful renewal was sent: the server recorded it after that, so others count from later.
    let lastRenewSent = Date.now();
    const remaining = (): number => lastRenewSent + renewDeadlineMs - Date.now();
    // A function, not the property: it changes while we await, which control-flow narrowing cannot see.
    const stopped = (): boolean => signal.aborted;
    while (!stopped()) {
      await sleep(Math.min(retryPeriodMs, Math.max(0, remaining())), signal);
      if (stopped()) break;
      const sent = Date.now();
      const left = remaining();
      if (left > 0 && await this.#tryAcquireOrRenew(AbortSignal.any([signal, AbortSignal.timeout(left)]))) {
        lastRenewSent = sent;
      } else if (remaining() <= 0 && !stopped()) {
        this.#setLeading(false);
        this.#options.lostTotal?.inc({ name: this.#options.name });
        this.#options.logger?.warn(
          { lease: `${this.#options.namespace}/${this.#options.name}`, renewDeadlineMs },
          'leader election lost: could not renew the lease within the renew deadline (is the API server reachable?)',
        );
        return 'lost';
      }
    }
    return 'stopped';
  }

  /** Gives the lease up (when configured) so a successor can lead at once. Call only after all work has stopped. */
  async release(): Promise<void> {
    if (!this.#leading) return;
    this.#setLeading(false);
    if (!(this.#options.releaseOnCancel ?? true) || !this.#observed) return;
    const lease = this.#observed.lease;
    if (lease.spec?.holderIdentity !== this.identity) return;
    const now = microTime(new Date());
    try {
      await this.#client.update(LeaseResource, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
      }, { signal: AbortSignal.timeout(this.#timing.renewDeadlineMs) });
      this.#options.logger?.info({ lease: `${this.#options.namespace}/${this.#options.name}` }, 'released the leader lease');
    } catch (error) {
      this.#options.logger?.warn({ err: error }, 'could not release the leader lease; a successor waits for it to expire');
    }
  }

  #setLeading(leading: boolean): void {
    this.#leading = leading;
    this.#options.masterStatus?.set({ name: this.#options.name }, leading ? 1 : 0);
  }

  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { namespace, name } = this.#options;
    const now = new Date();
    const durationSeconds = Math.round(this.#timing.leaseDurationMs / 1000);
    try {
      const existing = await this.#client.get(LeaseResource, { namespace, name }, { signal });
      if (!existing) {
        const created = await this.#client.create(LeaseResource, {
          apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { namespace, name },
          spec: { holderIdentity: this.identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
        }, { signal });
        this.#observe(created, now.getTime());
        return true;
      }
      const fingerprint = recordFingerprint(existing);
      if (this.#observed?.fingerprint !== fingerprint) this.#observe(existing, now.getTime());
      const spec = existing.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      const heldByOther = holder !== '' && holder !== this.identity;
      const expiresAt = (this.#observed?.at ?? now.getTime()) + (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      if (heldByOther && expiresAt > now.getTime()) return false;
      const mine = holder === this.identity;
      const updated = await this.#client.update(LeaseResource, {
        ...existing,
        spec: {
          holderIdentity: this.identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
          renewTime: microTime(now),
          leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
        },
      }, { signal });
      this.#observe(updated, now.getTime());
      return true;
    } catch (error) {
      // Another candidate won the race (409), the API is unreachable, or the attempt ran out of time: not leading this round.
      if (signal.aborted) this.#options.logger?.warn({ reason: (signal.reason as Error | undefined)?.message }, 'leader election: no answer about the lease in time');
      else if (!isConflict(error) && !isNotFound(error)) this.#options.logger?.warn({ err: error }, 'leader election: could not read or write the lease');
      return false;
    }
  }

  #observe(lease: Lease, at: number): void {
    this.#observed = { fingerprint: recordFingerprint(lease), at, lease };
  }
}
