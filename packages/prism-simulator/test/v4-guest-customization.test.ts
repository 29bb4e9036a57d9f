// The cloud-init of a v4 create body, as CAPX v1.10.3 sends it (nutanixmachine_controller.go:1567-1590: a
// GuestCustomizationParams whose CloudInit config has base64 `metadata` and a `Userdata` script, CONFIG_DRIVE_V2): the VM
// keeps it, as v3 shows it in `guest_customization.cloud_init`; a config the simulator does not carry out is refused
// rather than dropped.

import { describe, expect, it } from 'vitest';
import { PrismTestClient } from './prism-client.ts';
import { useFastSimulator } from './use-simulator.ts';
import { V4TestClient, firstAppMessage, v4VmBody } from './v4-client.ts';

const METADATA = Buffer.from('{"hostname": "capx-m-0", "uuid": "5c1d4e2a-0000-4000-8000-000000000001"}').toString('base64');
const USERDATA = Buffer.from('#cloud-config\nhostname: capx-m-0\n').toString('base64');

const cloudInit = (config: Record<string, unknown>): Record<string, unknown> => ({
  $objectType: 'vmm.v4.ahv.config.GuestCustomizationParams',
  $configItemDiscriminator: 'vmm.v4.ahv.config.CloudInit',
  config,
});

describe('guest customization in a v4 create', () => {
  const prism = useFastSimulator({}, (simulator) => new V4TestClient(simulator));

  it('keeps the cloud-init metadata and user data CAPX sends, as v3 guest_customization.cloud_init', async () => {
    const extId = await prism.client.createReadyVm(v4VmBody(prism.simulator, 'capx-m-0', {
      guestCustomization: cloudInit({
        $objectType: 'vmm.v4.ahv.config.CloudInit',
        datasourceType: 'CONFIG_DRIVE_V2',
        metadata: METADATA,
        cloudInitScript: { $objectType: 'vmm.v4.ahv.config.Userdata', value: USERDATA },
      }),
    }));
    const v3 = await new PrismTestClient(prism.simulator).getVm(extId);
    expect((v3.spec.resources as Record<string, unknown>).guest_customization).toEqual({ cloud_init: { user_data: USERDATA, meta_data: METADATA } });
  });

  it('refuses a Sysprep config and a custom key-value script rather than dropping them', async () => {
    const sysprep = await prism.client.request('POST', '/api/vmm/v4.2/ahv/config/vms', v4VmBody(prism.simulator, 'win', {
      guestCustomization: { $configItemDiscriminator: 'vmm.v4.ahv.config.Sysprep', config: { $objectType: 'vmm.v4.ahv.config.Sysprep' } },
    }));
    expect(sysprep.status).toBe(400);
    expect(firstAppMessage(sysprep).message).toContain('"vmm.v4.ahv.config.Sysprep" is not supported by the simulator');
    const keyValues = await prism.client.request('POST', '/api/vmm/v4.2/ahv/config/vms', v4VmBody(prism.simulator, 'kv', {
      guestCustomization: cloudInit({ $objectType: 'vmm.v4.ahv.config.CloudInit', cloudInitScript: { $objectType: 'vmm.v4.ahv.config.CustomKeyValues' } }),
    }));
    expect(keyValues.status).toBe(400);
    expect(firstAppMessage(keyValues).message).toContain('guestCustomization.config.cloudInitScript');
  });
});
