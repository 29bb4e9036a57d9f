import { expect, test } from 'vitest';
import { roundTripMemory } from '../../test/age-memory.ts';

const MiB = 1024 * 1024;

// A backup's dump can be many GiB and the operator's memory limit is 512 MiB: encryption must hold a few chunks, not
// the dump. 64 MiB and then 256 MiB through encryption and decryption back to back, in the pipeline a backup and a
// restore use; what is held (heap and ArrayBuffers, once garbage is collected and settled: test/age-memory.ts) is read
// every 16 MiB, nothing timed. Held memory must not grow with the size: the 192 MiB more of the second run may add no
// more than 1/32 of themselves (retaining anything per chunk would add more), and both hold a few MiB (about 1 MiB
// measured). The resident set may also hold garbage not yet collected, which V8 lets grow to some tens of MiB, and
// stays well under half of what passed through.
test('64 and 256 MiB encrypted and decrypted back to back hold a few MiB, not the data: held memory does not grow with the size', async () => {
  const small = await roundTripMemory(64 * MiB);
  const large = await roundTripMemory(256 * MiB);
  for (const [run, bytes] of [[small, 64 * MiB], [large, 256 * MiB]] as const) {
    expect(run.bytes).toBe(bytes);
    expect(run.identical).toBe(true);
    expect(run.peakHeldGrowth).toBeLessThan(8 * MiB);
  }
  expect(large.peakHeldGrowth - small.peakHeldGrowth).toBeLessThan((256 - 64) * MiB / 32);
  expect(large.peakRssGrowth).toBeLessThan(128 * MiB);
});
