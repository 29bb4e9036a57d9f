import { describe, expect, it } from 'vitest';
import { hasFinalizer, withFinalizer, withoutFinalizer } from './finalizers.ts';

const FINALIZER = 'nutanix.com/vm-cleanup';

function vmWith(finalizers?: string[]) {
  const metadata = Object.freeze(finalizers === undefined ? { name: 'vm' } : { name: 'vm', finalizers: Object.freeze(finalizers) as string[] });
  return Object.freeze({ apiVersion: 'nutanix.com/v1alpha1', kind: 'AhvVm', metadata });
}

describe('finalizers', () => {
  it('tells whether the object has the finalizer', () => {
    expect(hasFinalizer(vmWith([FINALIZER]), FINALIZER)).toBe(true);
    expect(hasFinalizer(vmWith(['other']), FINALIZER)).toBe(false);
    expect(hasFinalizer(vmWith(), FINALIZER)).toBe(false);
  });

  it('adds a missing finalizer without touching the (frozen) object', () => {
    expect(withFinalizer(vmWith(), FINALIZER)).toEqual({ finalizers: [FINALIZER], changed: true });
    expect(withFinalizer(vmWith(['other']), FINALIZER)).toEqual({ finalizers: ['other', FINALIZER], changed: true });
    expect(withFinalizer(vmWith([FINALIZER]), FINALIZER)).toEqual({ finalizers: [FINALIZER], changed: false });
  });

  it('removes every occurrence of the finalizer', () => {
    expect(withoutFinalizer(vmWith([FINALIZER, 'other', FINALIZER]), FINALIZER)).toEqual({ finalizers: ['other'], changed: true });
    expect(withoutFinalizer(vmWith(['other']), FINALIZER)).toEqual({ finalizers: ['other'], changed: false });
    expect(withoutFinalizer(vmWith(), FINALIZER)).toEqual({ finalizers: [], changed: false });
  });
});
