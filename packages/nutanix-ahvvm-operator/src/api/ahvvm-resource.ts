import { AGE_COLUMN, READY_COLUMN, REASON_COLUMN, defineCustomResource, type CustomResource, type CustomResourceSpec, type CustomResourceStatus } from '@k8s-operators/controller-core';
import { conditionsSchema } from '@k8s-operators/controller-core/crd';
import { Type } from 'typebox';
import { AHVVM_LIMITS, AHVVM_SPEC_DEFAULTS, DEFAULT_USER_DATA_KEY } from './ahvvm-limits.ts';
import { AHVVM } from './ahvvm-ref.ts';

/**
 * The `nutanix.com/v1alpha1` `AhvVm` API. The seed's three fields keep their names, minimums and printer columns, so
 * the seed's sample applies unchanged; everything added is optional and, when absent, leaves the VM as the seed's
 * operator would have (created OFF, no disks or NICs, nothing managed beyond CPU and memory).
 *
 * Field names in `spec` are snake_case like the seed's (which are Prism's own names): one spelling within a spec reads
 * better than two. `status` uses Kubernetes' camelCase, which `conditions` and `observedGeneration` require anyway.
 */

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** A Prism entity named either way; names are resolved to UUIDs by the operator, since v3 and v4 take references by UUID only. */
function entityReference(what: string, nameDescription = `Name of the ${what} in Prism Central; must be unique.`) {
  return Type.Object(
    {
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: nameDescription })),
      uuid: Type.Optional(Type.String({ pattern: UUID_PATTERN, description: `UUID of the ${what}.` })),
    },
    {
      description: `The ${what}, by name or by UUID.`,
      'x-kubernetes-validations': [
        { rule: 'has(self.name) != has(self.uuid)', message: `set exactly one of name or uuid for the ${what}` },
      ],
    },
  );
}

/**
 * CAPX's `imageLookup` for an AhvVm. CAPX renders `format` as a Go template with `{{.BaseOS}}` and `{{.K8sVersion}}`
 * (the Machine's Kubernetes version); an AhvVm has no Kubernetes version, so `{{.BaseOS}}` is the one variable and a
 * version goes into `format` itself. CEL refuses any other `{{…}}` and a `{{.BaseOS}}` without `base_os`; whether the
 * rendered pattern is a valid regular expression only the operator can tell (Ready=False, InvalidImageLookup).
 */
const TEMPLATE_ACTION = '[{][{][^}]*[}][}]';
const BASE_OS_ACTION = '[{][{] *[.]BaseOS *[}][}]';
const ImageLookup = Type.Object(
  {
    format: Type.String({
      minLength: 1,
      maxLength: 256,
      description:
        'A regular expression searched in every image name (anchor it with ^ and $ for whole names), in which ' +
        '{{.BaseOS}} stands for base_os, e.g. "^{{.BaseOS}}-k8s-v1[.]30[.]5-". Of the images it matches, the one ' +
        'created last is used, as CAPX\'s imageLookup does.',
    }),
    base_os: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'What {{.BaseOS}} in format stands for, e.g. "ubuntu-22.04".' }),
    ),
  },
  {
    description:
      'Find the disk\'s image by name pattern instead of naming it: the newest matching image when the disk is created. ' +
      'A newer image uploaded later is used for disks added later; an existing disk is never re-imaged.',
    'x-kubernetes-validations': [
      {
        rule: "!self.format.contains('.K8sVersion')",
        message: 'an AhvVm has no Kubernetes version: write the version into format itself (e.g. "^ubuntu-22.04-kube-v1[.]30[.]5") instead of {{.K8sVersion}}',
      },
      {
        rule: `self.format.findAll('${TEMPLATE_ACTION}').all(action, action.matches('^${BASE_OS_ACTION}$'))`,
        message: 'format can use {{.BaseOS}} only; write anything else into the pattern itself',
      },
      {
        rule: `has(self.base_os) || !self.format.matches('${BASE_OS_ACTION}')`,
        message: 'format uses {{.BaseOS}}: set base_os to what it stands for, or write the OS into format',
      },
    ],
  },
);

const Disk = Type.Object(
  {
    image: Type.Optional(entityReference('image')),
    image_lookup: Type.Optional(ImageLookup),
    storage_container: Type.Optional(
      entityReference(
        'storage container',
        'Name of the storage container on the VM\'s cluster (each cluster has its own; the name need only be unique there).',
      ),
    ),
    size_mib: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: AHVVM_LIMITS.diskSizeMib.max,
        description: 'Disk size in MiB. Without it a disk cloned from an image has the image size. Disks only grow.',
      }),
    ),
  },
  {
    description:
      'A SCSI disk: a clone of an image (named, or found by image_lookup), an empty disk of size_mib, or a clone grown ' +
      'to size_mib; on storage_container, or on the cluster\'s default container.',
    'x-kubernetes-validations': [
      { rule: 'has(self.image) || has(self.image_lookup) || has(self.size_mib)', message: 'a disk needs an image, an image_lookup or a size_mib' },
      { rule: '!(has(self.image) && has(self.image_lookup))', message: 'set either image or image_lookup on a disk, not both' },
    ],
  },
);

const Nic = Type.Object(
  { subnet: entityReference('subnet') },
  { description: 'A network interface on a subnet.' },
);

export const AhvVmSpecSchema = Type.Object(
  {
    // Optional with defaults, as the seed declared them optional and its operator filled in 1, 1 and 1024.
    num_sockets: Type.Optional(
      Type.Integer({
        minimum: AHVVM_LIMITS.numSockets.min,
        maximum: AHVVM_LIMITS.numSockets.max,
        default: AHVVM_SPEC_DEFAULTS.numSockets,
        description: 'Number of vCPU sockets. More sockets are hot-added to a running VM; fewer need a power cycle.',
      }),
    ),
    num_vcpus_per_socket: Type.Optional(
      Type.Integer({
        minimum: AHVVM_LIMITS.numVcpusPerSocket.min,
        maximum: AHVVM_LIMITS.numVcpusPerSocket.max,
        default: AHVVM_SPEC_DEFAULTS.numVcpusPerSocket,
        description: 'vCPUs per socket. Any change needs a power cycle.',
      }),
    ),
    memory_size_mib: Type.Optional(
      Type.Integer({
        minimum: AHVVM_LIMITS.memorySizeMib.min,
        maximum: AHVVM_LIMITS.memorySizeMib.max,
        default: AHVVM_SPEC_DEFAULTS.memorySizeMib,
        description: 'Memory in MiB. More memory is hot-added to a running VM; less needs a power cycle.',
      }),
    ),
    // Not Prism's ON/OFF: YAML 1.1 parsers (kubectl's among them) read an unquoted ON or OFF as a boolean, so users
    // would have to quote them. PoweredOn/PoweredOff is what VMware's VM Operator uses for the same field.
    power_state: Type.Optional(
      Type.Union([Type.Literal('PoweredOn'), Type.Literal('PoweredOff')], {
        description: 'Power state to keep the VM in. Unset: not managed (a new VM starts powered off, as Prism creates it).',
      }),
    ),
    description: Type.Optional(
      Type.String({
        maxLength: AHVVM_LIMITS.descriptionMaxLength,
        description: 'Description of the VM in Prism. The operator appends a line that marks the VM as owned by this resource.',
      }),
    ),
    categories: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        maxProperties: AHVVM_LIMITS.maxCategories,
        description: 'Prism categories (key: value) of the VM. They must exist in Prism Central. Unset: not managed.',
      }),
    ),
    cluster: Type.Optional(entityReference('cluster')),
    project: Type.Optional(
      entityReference(
        'project',
        'Name of the project in Prism Central; must be unique. Prism v4 has no projects API the operator can use, so a ' +
          'name is looked up through v3 (as CAPX does): on a Prism Central without v3, give the uuid.',
      ),
    ),
    disks: Type.Optional(
      Type.Array(Disk, {
        maxItems: AHVVM_LIMITS.maxDisks,
        'x-kubernetes-list-type': 'atomic',
        description:
          'Disks in order, matched by position to the VM\'s disks. Disks are added and grown, never removed or shrunk. ' +
          'Unset: not managed.',
      }),
    ),
    nics: Type.Optional(
      Type.Array(Nic, {
        maxItems: AHVVM_LIMITS.maxNics,
        'x-kubernetes-list-type': 'atomic',
        description: 'Network interfaces in order, matched by position to the VM\'s NICs. Unset: not managed.',
      }),
    ),
    cloud_init: Type.Optional(
      Type.Object(
        {
          user_data_secret_ref: Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 253, description: 'Name of a Secret in the namespace of this resource.' }),
              key: Type.Optional(
                Type.String({
                  minLength: 1,
                  default: DEFAULT_USER_DATA_KEY,
                  description: 'Key in the Secret that holds the user data.',
                }),
              ),
            },
            { description: 'The Secret holding the cloud-init user data.' },
          ),
        },
        { description: 'cloud-init user data, applied when the VM is created (Prism cannot change it later).' },
      ),
    ),
    boot_type: Type.Optional(
      Type.Union([Type.Literal('LEGACY'), Type.Literal('UEFI'), Type.Literal('SECURE_BOOT')], {
        description: 'Firmware boot type. Changing it needs a power cycle. Unset: Prism\'s default (LEGACY), not managed.',
      }),
    ),
    allow_power_cycle: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Allow the operator to power a running VM off and on again to apply changes that cannot be made live ' +
          '(fewer sockets or less memory, vCPUs per socket, boot type). Without it such changes wait, with ' +
          'Ready=False reason PowerCycleRequired.',
      }),
    ),
    gpus: Type.Optional(
      Type.Array(
        Type.Object(
          {
            device_id: Type.Optional(Type.Integer({ minimum: 0, description: 'PCI device id of the GPU, e.g. 8629 for an NVIDIA A16.' })),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Device name of the GPU or vGPU profile, e.g. "NVIDIA A16".' })),
          },
          {
            description:
              'A GPU, as CAPX\'s NutanixGPU: by device id or by name. A free passthrough GPU of the VM\'s cluster with it is ' +
              'used, else a vGPU profile.',
            'x-kubernetes-validations': [{ rule: 'has(self.device_id) != has(self.name)', message: 'set exactly one of device_id or name for a GPU' }],
          },
        ),
        {
          maxItems: 8,
          'x-kubernetes-list-type': 'atomic',
          description:
            'GPUs to attach when the VM is created, each found free on its cluster (passthrough first, then vGPU, as CAPX ' +
            'finds them). None free: Ready=False GpuNotFound, no VM. Set at creation only.',
        },
      ),
    ),
    adopt: Type.Optional(
      Type.Object(
        {
          uuid: Type.String({ pattern: UUID_PATTERN, description: 'UUID of the VM in Prism Central to take over.' }),
        },
        {
          description:
            'Take over an existing VM the operator did not create, named by its UUID (never by name: Prism VM names are ' +
            'not unique). The operator records it, adds its ownership line to the description, renames it to this ' +
            'resource\'s name and then manages it like a VM it made: the spec is applied with the usual rules (set ' +
            'cluster, size and devices to what the VM has, or they are changed), and deletion_policy decides what ' +
            'deleting this resource does to it. A VM another AhvVm owns is refused; an adopted VM that is gone is ' +
            'reported, never re-created.',
        },
      ),
    ),
    deletion_policy: Type.Optional(
      Type.Union([Type.Literal('Delete'), Type.Literal('Retain')], {
        default: 'Delete',
        description: 'What happens to the VM when this resource is deleted: Delete it in Prism, or Retain it.',
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        // The fields are defaulted before validation; the has() guards only keep the rule total.
        rule:
          `(has(self.num_sockets) ? self.num_sockets : ${AHVVM_SPEC_DEFAULTS.numSockets}) * ` +
          `(has(self.num_vcpus_per_socket) ? self.num_vcpus_per_socket : ${AHVVM_SPEC_DEFAULTS.numVcpusPerSocket}) ` +
          `<= ${AHVVM_LIMITS.maxTotalVcpus}`,
        message: `num_sockets × num_vcpus_per_socket must be at most ${AHVVM_LIMITS.maxTotalVcpus} vCPUs`,
      },
      {
        rule: 'has(self.cluster) == has(oldSelf.cluster) && (!has(self.cluster) || self.cluster == oldSelf.cluster)',
        message: 'cluster cannot be changed: Prism cannot move a VM to another cluster; create a new AhvVm instead',
      },
      {
        rule: 'has(self.project) == has(oldSelf.project) && (!has(self.project) || self.project == oldSelf.project)',
        message: 'project cannot be changed: the operator puts a VM in its project when it creates it, as CAPX does; move the VM in Prism, or create a new AhvVm',
      },
      {
        rule: 'has(self.adopt) == has(oldSelf.adopt) && (!has(self.adopt) || self.adopt.uuid.lowerAscii() == oldSelf.adopt.uuid.lowerAscii())',
        message: 'adopt cannot be added, changed or removed: it says which VM this AhvVm took over; create a new AhvVm to adopt another VM',
      },
      {
        rule: '!has(self.adopt) || !has(self.cloud_init)',
        message: 'cloud_init cannot be set with adopt: Prism applies cloud-init only when it creates a VM, and an adopted VM exists already',
      },
      {
        rule: 'has(self.gpus) == has(oldSelf.gpus) && (!has(self.gpus) || self.gpus == oldSelf.gpus)',
        message: 'gpus cannot be changed: the operator attaches GPUs when it creates the VM, as CAPX does; create a new AhvVm',
      },
      {
        rule: '!has(self.adopt) || !has(self.gpus)',
        message: 'gpus cannot be set with adopt: the operator attaches GPUs only when it creates a VM; an adopted VM keeps its own',
      },
      {
        rule: '!has(self.adopt) || !has(self.project)',
        message: 'project cannot be set with adopt: the operator sets a project only when it creates a VM; an adopted VM stays in its own',
      },
      {
        rule: 'has(self.cloud_init) == has(oldSelf.cloud_init) && (!has(self.cloud_init) || self.cloud_init == oldSelf.cloud_init)',
        message: 'cloud_init cannot be changed: Prism applies cloud-init user data only when it creates the VM',
      },
    ],
  },
);

const LastTask = Type.Object(
  {
    uuid: Type.String({ description: 'UUID of the Prism task.' }),
    operation: Type.String({ description: 'What the task did: create, update, power-off, power-on or delete.' }),
    status: Type.String({ description: 'Task status in Prism: QUEUED, RUNNING, SUCCEEDED, FAILED, ABORTED …' }),
    error: Type.Optional(Type.String({ description: 'error_code and error_detail of a failed task.' })),
  },
  { description: 'The last Prism task the operator started for this VM.' },
);

export const AhvVmStatusSchema = Type.Object({
  observedGeneration: Type.Optional(
    Type.Integer({ format: 'int64', minimum: 0, description: 'The .metadata.generation the status was computed from.' }),
  ),
  conditions: Type.Optional(conditionsSchema()),
  uuid: Type.Optional(
    Type.String({
      description:
        'UUID of the VM in Prism. Recorded before the create request is sent (it is the idempotence UUID the VM gets), ' +
        'so a retried create can never make a second VM.',
    }),
  ),
  createRequestId: Type.Optional(
    Type.String({
      description:
        'Prism v4 only: the NTNX-Request-Id of the create request, recorded before it is sent. Sending the create again ' +
        'with it answers the first request\'s task, so a retried create can never make a second VM; the VM\'s UUID is ' +
        'recorded from that task.',
    }),
  ),
  state: Type.Optional(Type.String({ description: 'Prism\'s status.state of the VM: PENDING, RUNNING, COMPLETE, ERROR …' })),
  powerState: Type.Optional(Type.String({ description: 'Power state Prism reports: ON, OFF, PAUSED or UNKNOWN.' })),
  ipAddresses: Type.Optional(
    Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic', description: 'IP addresses of the VM\'s NICs.' }),
  ),
  specVersion: Type.Optional(Type.Integer({ format: 'int64', description: 'metadata.spec_version of the VM in Prism.' })),
  lastTask: Type.Optional(LastTask),
  powerCycleInProgress: Type.Optional(
    Type.Boolean({
      description: 'True while the operator has powered the VM off to apply a change and has yet to power it on again.',
    }),
  ),
});

export const AhvVmResource = defineCustomResource({
  group: AHVVM.group,
  kind: AHVVM.kind,
  plural: AHVVM.plural,
  singular: 'ahvvm',
  shortNames: ['avm'],
  categories: ['k8s-operators', 'nutanix'],
  scope: 'Namespaced',
  versions: [
    {
      name: AHVVM.version,
      spec: AhvVmSpecSchema,
      status: AhvVmStatusSchema,
      printerColumns: [
        { name: 'Sockets', type: 'integer', jsonPath: '.spec.num_sockets', description: 'Number of sockets' },
        {
          name: 'vCPUsPerSocket',
          type: 'integer',
          jsonPath: '.spec.num_vcpus_per_socket',
          description: 'Number of vCPUs per socket',
        },
        { name: 'Memory', type: 'integer', jsonPath: '.spec.memory_size_mib', description: 'Memory Size in MiB' },
        { name: 'Power', type: 'string', jsonPath: '.status.powerState', description: 'Power state in Prism' },
        { name: 'IP', type: 'string', jsonPath: '.status.ipAddresses[0]', description: 'First IP address of the VM' },
        READY_COLUMN,
        REASON_COLUMN,
        AGE_COLUMN,
      ],
    },
  ],
});

export type AhvVm = CustomResource<typeof AhvVmResource>;
export type AhvVmSpec = CustomResourceSpec<typeof AhvVmResource>;
export type AhvVmStatus = CustomResourceStatus<typeof AhvVmResource>;
