import { expect, test } from 'vitest';
import { PodIpAllocator } from './ip-allocator.ts';

test('each Pod gets its own address in the node\'s block, kept until released', () => {
  const ips = new PodIpAllocator(42);
  const a = ips.allocate('pod-a');
  const b = ips.allocate('pod-b');
  expect(a).toMatch(/^127\.42\.\d+\.\d+$/);
  expect(b).not.toBe(a);
  expect(ips.allocate('pod-a')).toBe(a);
  ips.release('pod-a');
  expect(ips.allocate('pod-c')).not.toBe(b);
});

test('nodes draw different blocks, and never the control plane\'s 127.0.0.0/16', () => {
  const blocks = new Set(Array.from({ length: 200 }, () => new PodIpAllocator().allocate('pod').split('.')[1]));
  expect(blocks.has('0')).toBe(false);
  expect(blocks.size).toBeGreaterThan(100);
  expect(() => new PodIpAllocator(0)).toThrow('loopback block must be 1-254, not 0');
});
