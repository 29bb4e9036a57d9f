import { statfs } from 'node:fs/promises';
import { metricsOn } from '@k8s-operators/controller-core';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The backup store service's own metrics, served on its `/metrics`. The volume's free space matters most: when it runs
 * out, every backup to the volume fails at once, and the space is only seen here (the operator mounts no volume).
 * With these, "the backup volume fills up within a day" is one rule:
 *
 *   predict_linear(postgresql_backup_store_volume_available_bytes[6h], 86400) < 0
 */
export interface BackupStoreMetrics {
  readonly registry: Registry;
  /** One request answered: its operation (`unknown` before the route was known), HTTP status and duration. */
  served(operation: string, status: number, seconds: number): void;
  /** Bytes of backup data received (written by Jobs) or sent (restores, read-backs). */
  received(bytes: number): void;
  sent(bytes: number): void;
}

/** Fills the volume gauges from the file system at each scrape; injectable for tests. */
export type VolumeSpace = (directory: string) => Promise<{ availableBytes: number; sizeBytes: number }>;

const volumeSpace: VolumeSpace = async (directory) => {
  const stats = await statfs(directory).catch((error: unknown) => {
    throw new Error(`cannot read the free space of the backup volume at ${directory}: ${(error as Error).message}`, { cause: error });
  });
  // bavail, not bfree: what an unprivileged writer (the service runs as 65532) may still use.
  return { availableBytes: stats.bavail * stats.bsize, sizeBytes: stats.blocks * stats.bsize };
};

export function createBackupStoreMetrics(backupDirectory: string, space: VolumeSpace = volumeSpace): BackupStoreMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const define = metricsOn(registry);
  const requests = define.counter(
    'postgresql_backup_store_requests_total',
    'Requests the backup store service answered, by operation (write, read, list, ...; unknown for no route) and HTTP status code',
    ['operation', 'code'],
  );
  const duration = define.histogram(
    'postgresql_backup_store_request_duration_seconds',
    'Seconds from a request\'s arrival to its answer, by operation; a write lasts as long as its backup\'s pg_dump',
    ['operation'],
    [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
  );
  const receivedBytes = define.counter('postgresql_backup_store_received_bytes_total', 'Bytes of backup data written to the volume through the service');
  const sentBytes = define.counter('postgresql_backup_store_sent_bytes_total', 'Bytes of backup data read from the volume through the service (restores, read-backs)');
  // Each scrape reads the file system once: the registry collects both gauges at the same time, and they share the
  // read in flight. A volume that cannot be read fails the scrape (the target goes down, which alerts) rather than
  // report a made-up 0 or a stale figure.
  let reading: ReturnType<VolumeSpace> | undefined;
  const readSpace = (): ReturnType<VolumeSpace> => (reading ??= space(backupDirectory).finally(() => { reading = undefined; }));
  const fromVolume = (name: string, help: string, pick: (space: { availableBytes: number; sizeBytes: number }) => number): void => {
    define.gauge(name, help, [], async function collect() {
      this.set(pick(await readSpace()));
    });
  };
  fromVolume('postgresql_backup_store_volume_available_bytes', 'Bytes the backup volume still has for new backups, read from the file system at each scrape', (read) => read.availableBytes);
  fromVolume('postgresql_backup_store_volume_size_bytes', 'Size of the backup volume\'s file system, in bytes', (read) => read.sizeBytes);
  return {
    registry,
    served(operation, status, seconds) {
      requests.inc({ operation, code: String(status) });
      duration.observe({ operation }, seconds);
    },
    received(bytes) { receivedBytes.inc(bytes); },
    sent(bytes) { sentBytes.inc(bytes); },
  };
}
