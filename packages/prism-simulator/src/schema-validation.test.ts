import { describe, expect, it } from 'vitest';
import { listMetadataSchema } from './list-call.ts';
import { validate } from './schema-validation.ts';
import { vmIntentSchema } from './vm-schema.ts';

const minimal = { metadata: { kind: 'vm' }, spec: { name: 'NewVM', resources: {} } };

describe('the vm_intent_input schema', () => {
  it('accepts the minimal body from the v3 introduction and the recorded create request', () => {
    expect(validate(vmIntentSchema, minimal)).toEqual({});
    const recorded = {
      metadata: { kind: 'vm', spec_version: 1 },
      spec: {
        cluster_reference: { kind: 'cluster', uuid: '00061f7f-44f7-19dc-3be1-7cc25586ee44' },
        description: 'test-vm-description',
        name: 'test-vm',
        resources: {
          boot_config: { boot_type: 'UEFI' },
          disk_list: [{ data_source_reference: { kind: 'image', uuid: '70cfd137-a8d9-4169-a5ac-cf9ad6ddb03a' }, disk_size_mib: 8192 }],
          memory_size_mib: 1024,
          nic_list: [{ subnet_reference: { kind: 'subnet', uuid: 'b2e46975-2cde-4a49-9dda-815eb4fcd679' } }],
          num_threads_per_core: 1,
          num_sockets: 1,
        },
      },
    };
    expect(validate(vmIntentSchema, recorded)).toEqual({});
  });

  it('words errors like Python jsonschema, keyed by the path of the failing object', () => {
    expect(validate(vmIntentSchema, { metadata: { kind: 'vm' }, spec: { resources: {} } })).toEqual({ spec: ["'name' is a required property"] });
    expect(validate(vmIntentSchema, { spec: { name: 'x', resources: {} } })).toEqual({ '': ["'metadata' is a required property"] });
    expect(validate(vmIntentSchema, { ...minimal, spec: { name: 'x', resources: { num_sockets: 'two', power_state: 'PAUSED', memory_size_mib: 0 } } })).toEqual({
      'spec.resources.num_sockets': ["'two' is not of type 'integer'"],
      'spec.resources.power_state': ["'PAUSED' is not one of ['ON', 'OFF']"],
      'spec.resources.memory_size_mib': ['0 is less than the minimum of 1'],
    });
    expect(validate(vmIntentSchema, { ...minimal, spec: { name: 'x', resources: { nic_list: [{ is_connected: 'yes' }] } } })).toEqual({
      'spec.resources.nic_list.0.is_connected': ["'yes' is not of type 'boolean'"],
    });
    expect(validate(vmIntentSchema, { ...minimal, spec: { name: 'x'.repeat(257), resources: {} } })['spec.name']?.[0]).toMatch(/is too long$/);
    expect(validate(vmIntentSchema, { ...minimal, metadata: { kind: 'vm', spec_version: true } })).toEqual({ 'metadata.spec_version': ["True is not of type 'integer'"] });
    expect(validate(vmIntentSchema, 'hello')).toEqual({ '': ["'hello' is not of type 'object'"] });
  });

  it('rejects a status section sent back in the body', () => {
    expect(validate(vmIntentSchema, { ...minimal, status: {} })).toEqual({ '': ["Additional properties are not allowed ('status' was unexpected)"] });
  });

  it('checks reference kinds and uuids', () => {
    const details = validate(vmIntentSchema, { ...minimal, spec: { name: 'x', resources: {}, cluster_reference: { kind: 'subnet', uuid: 'nope' } } });
    expect(details['spec.cluster_reference.kind']).toEqual(["'subnet' is not one of ['cluster']"]);
    expect(details['spec.cluster_reference.uuid']?.[0]).toMatch(/^'nope' does not match/);
  });

  it('passes unknown resource keys through', () => {
    expect(validate(vmIntentSchema, { ...minimal, spec: { name: 'x', resources: { some_new_field: { a: 1 } } } })).toEqual({});
  });
});

describe('the vm_list_metadata schema', () => {
  const vmListSchema = listMetadataSchema('vm');

  it('bounds length and offset', () => {
    expect(validate(vmListSchema, { length: 0, offset: -1 })).toEqual({
      length: ['0 is less than the minimum of 1'],
      offset: ['-1 is less than the minimum of 0'],
    });
    expect(validate(vmListSchema, { filter: 'vm_name==x', sort_order: 'ASCENDING', sort_attribute: 'name' })).toEqual({});
  });
});
