import { Type } from 'typebox';

/**
 * The `status.conditions` schema: `metav1.Condition` exactly as controller-gen writes it for kubebuilder's scaffold
 * (`// +listType=map`, `// +listMapKey=type`, `Conditions []metav1.Condition`), descriptions included, so
 * `kubectl explain` reads the same as for any Go operator. Its static type is assignable to `Condition` (`../conditions.ts`).
 */

const DEFAULT_DESCRIPTION =
  'conditions represent the current state of the resource.\n' +
  'Each condition has a unique type and reflects the status of a specific aspect of the resource.\n' +
  '\n' +
  'Standard condition types include:\n' +
  '- "Ready": the resource is fully functional; it comes first and summarises the others\n' +
  '- "Progressing": the resource is being created or updated\n' +
  '- "Degraded": the resource failed to reach or maintain its desired state\n' +
  '\n' +
  'The status of each condition is one of True, False, or Unknown.';

export interface ConditionsSchemaOptions {
  /** Description of the list. Default: the kubebuilder scaffold's, with `Ready` as the first standard type. */
  description?: string;
}

export function conditionsSchema(options: ConditionsSchemaOptions = {}) {
  const { description = DEFAULT_DESCRIPTION } = options;
  return Type.Array(
    Type.Object(
      {
        lastTransitionTime: Type.String({
          description:
            'lastTransitionTime is the last time the condition transitioned from one status to another.\n' +
            'This should be when the underlying condition changed.  If that is not known, then using the time when ' +
            'the API field changed is acceptable.',
          format: 'date-time',
        }),
        message: Type.String({
          description:
            'message is a human readable message indicating details about the transition.\nThis may be an empty string.',
          maxLength: 32768,
        }),
        observedGeneration: Type.Optional(
          Type.Integer({
            description:
              'observedGeneration represents the .metadata.generation that the condition was set based upon.\n' +
              'For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration ' +
              'is 9, the condition is out of date\nwith respect to the current state of the instance.',
            format: 'int64',
            minimum: 0,
          }),
        ),
        reason: Type.String({
          description:
            "reason contains a programmatic identifier indicating the reason for the condition's last transition.\n" +
            'Producers of specific condition types may define expected values and meanings for this field,\n' +
            'and whether the values are considered a guaranteed API.\n' +
            'The value should be a CamelCase string.\n' +
            'This field may not be empty.',
          maxLength: 1024,
          minLength: 1,
          pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
        }),
        status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')], {
          description: 'status of the condition, one of True, False, Unknown.',
        }),
        type: Type.String({
          description: 'type of condition in CamelCase or in foo.example.com/CamelCase.',
          maxLength: 316,
          pattern:
            '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
        }),
      },
      { description: 'Condition contains details for one aspect of the current state of this API Resource.' },
    ),
    { description, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
  );
}
