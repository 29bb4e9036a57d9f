import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cpuBusyPercent, parseCpuTimes, parseLoad1 } from './machine-observer.ts';

describe('reading the machine from /proc', () => {
  it('takes the aggregate cpu line, idle and I/O wait as idle, guest time left inside user', () => {
    const stat = 'cpu  100 5 50 800 40 3 2 0 7 0\ncpu0 50 2 25 400 20 1 1 0 3 0\nintr 1 2 3\n';
    expect(parseCpuTimes(stat)).toEqual({ total: 100 + 5 + 50 + 800 + 40 + 3 + 2 + 0, idle: 840 });
  });

  it('says how busy the cores were between two readings, and 0 when no time passed', () => {
    expect(cpuBusyPercent({ total: 1000, idle: 840 }, { total: 1200, idle: 890 })).toBe(75);
    expect(cpuBusyPercent({ total: 1000, idle: 840 }, { total: 1000, idle: 840 })).toBe(0);
  });

  it('reads the one-minute load average', () => {
    expect(parseLoad1('3.42 2.10 1.05 4/812 12345\n')).toBe(3.42);
  });

  it('refuses text that is not what it reads, saying what it got', () => {
    expect(() => parseCpuTimes('intr 1 2 3\n')).toThrow('/proc/stat has no aggregate cpu line');
    expect(() => parseLoad1('busy\n')).toThrow('/proc/loadavg does not start with a load average');
  });

  it("reads this machine's own /proc", async () => {
    const times = parseCpuTimes(await readFile('/proc/stat', 'utf8'));
    expect(times.total).toBeGreaterThan(times.idle);
    expect(parseLoad1(await readFile('/proc/loadavg', 'utf8'))).toBeGreaterThanOrEqual(0);
  });
});
