import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpuSecondsOf } from './proc-cpu.ts';

describe('cpuSecondsOf', () => {
  it("counts a reaped child's CPU only when asked to, and the process's own always", async () => {
    const before = { own: await cpuSecondsOf('self'), withChildren: await cpuSecondsOf('self', { reapedChildren: true }) };
    // A child that burns 0.3 s of CPU (not of wall time, which a loaded machine stretches), then is waited for.
    const child = spawnSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 300_000);'], { stdio: 'ignore' });
    expect(child.status).toBe(0);
    const after = { own: await cpuSecondsOf('self'), withChildren: await cpuSecondsOf('self', { reapedChildren: true }) };
    const childSeconds = (after.withChildren - after.own) - (before.withChildren - before.own);
    expect(childSeconds).toBeGreaterThanOrEqual(0.29);
    expect(childSeconds).toBeLessThan(5);
    expect(after.own).toBeGreaterThanOrEqual(before.own);
  });

  it('reads another process by its pid', async () => {
    expect(await cpuSecondsOf(process.pid)).toBeGreaterThan(0);
  });
});
