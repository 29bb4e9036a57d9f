import { Type } from 'typebox';
import {
  DEFAULT_IMAGE_CHANGE_POLICY,
  DEFAULT_PAGE_MESSAGE,
  DEFAULT_PORT,
  DEFAULT_REPLICAS,
  DEFAULT_RETRY_AFTER_SECONDS,
  MAX_INLINE_HTML_LENGTH,
} from './defaults.ts';
import { CONFIG_MAP_KEY, DNS_1035_LABEL, DNS_1123_SUBDOMAIN, IMAGE_REFERENCE, RFC3339_TIME } from './formats.ts';

/**
 * `MaintPage.spec`. The seed's fields keep their names and lowercase spelling (`maintpageconfig.maintpagetoggle`,
 * `appconfig.appname` …) so the seed's manifest (deploy/maintpage-operator/samples/) applies unchanged; the other
 * fields follow the Kubernetes API conventions (camelCase) and are optional, with defaults that keep the seed's
 * behaviour.
 *
 * Bad input is refused by the API server with a message that says what to fix: CEL rules (`x-kubernetes-validations`)
 * rather than bare `pattern`s, whose messages only repeat the regular expression.
 */

function imageField(field: string, example: string, description: string) {
  return Type.String({
    description,
    minLength: 1,
    maxLength: 1024,
    'x-kubernetes-validations': [
      {
        rule: `self.matches('${IMAGE_REFERENCE}')`,
        message:
          `${field} must be a container image reference such as ${example} ` +
          '(registry and repository in lowercase, then an optional :tag and @sha256:digest)',
      },
    ],
  });
}

function portField(description: string) {
  return Type.Integer({ description, format: 'int32', minimum: 1, maximum: 65535, default: DEFAULT_PORT });
}

function timeField(field: string, description: string) {
  return Type.String({
    description,
    maxLength: 64,
    'x-kubernetes-validations': [
      {
        rule: `self.matches('${RFC3339_TIME}')`,
        message:
          `${field} must be an RFC 3339 time with a time zone, such as 2026-03-01T22:00:00Z or ` +
          '2026-03-02T07:00:00+09:00',
      },
    ],
  });
}

const ScheduleSpec = Type.Object(
  {
    start: Type.Optional(
      timeField('schedule.start', 'When maintenance begins. Without it, maintenance is on from now until end.'),
    ),
    end: Type.Optional(
      timeField(
        'schedule.end',
        'When maintenance ends and the Service goes back to the app. Without it, maintenance stays on from start ' +
          'until the schedule is removed. The built-in page server sends the time left as Retry-After.',
      ),
    ),
  },
  {
    description:
      'A maintenance window that turns maintenance on at start and off at end by itself, without editing ' +
      'maintpagetoggle. Maintenance is on while maintpagetoggle is true or the window is open (start <= now < end).',
    'x-kubernetes-validations': [
      { rule: 'has(self.start) || has(self.end)', message: 'schedule needs start, end or both' },
      {
        // Malformed times are reported by their own rules; `||` lets this rule pass rather than fail to evaluate.
        rule:
          `!has(self.start) || !has(self.end) || !self.start.matches('${RFC3339_TIME}') || ` +
          `!self.end.matches('${RFC3339_TIME}') || timestamp(self.end) > timestamp(self.start)`,
        message: 'schedule.end must be after schedule.start',
      },
    ],
  },
);

const ConfigMapKeySelector = Type.Object(
  {
    name: Type.String({
      description: 'Name of a ConfigMap in the MaintPage namespace.',
      maxLength: 253,
      'x-kubernetes-validations': [
        {
          rule: `self.matches('${DNS_1123_SUBDOMAIN}')`,
          message: "configMapKeyRef.name must be a ConfigMap name: lowercase letters, digits, '-' and '.'",
        },
      ],
    }),
    key: Type.String({
      description: 'The key whose value is the HTML page.',
      maxLength: 253,
      'x-kubernetes-validations': [
        {
          rule: `self.matches('${CONFIG_MAP_KEY}')`,
          message: "configMapKeyRef.key must be a ConfigMap key: letters, digits, '-', '_' and '.'",
        },
      ],
    }),
  },
  { description: 'A key of a ConfigMap.' },
);

const PageSpec = Type.Object(
  {
    message: Type.Optional(
      Type.String({
        description:
          'Plain text shown on the built-in page and sent as "message" in JSON answers, also when html or ' +
          'htmlFrom replaces the page.',
        maxLength: 1024,
        default: DEFAULT_PAGE_MESSAGE,
      }),
    ),
    html: Type.Optional(
      Type.String({
        description:
          `A complete HTML page served instead of the built-in one, at most ${MAX_INLINE_HTML_LENGTH} characters. ` +
          'For larger pages use htmlFrom.',
        maxLength: MAX_INLINE_HTML_LENGTH,
      }),
    ),
    htmlFrom: Type.Optional(
      Type.Object(
        { configMapKeyRef: ConfigMapKeySelector },
        {
          description:
            'Serve the HTML page stored in a ConfigMap key. Edits to the ConfigMap reach running page servers ' +
            'without a restart (within the kubelet sync period, about a minute).',
        },
      ),
    ),
    retryAfterSeconds: Type.Optional(
      Type.Integer({
        description:
          'Retry-After, in seconds, sent with every 503 when no schedule end is known (or once it has passed).',
        format: 'int32',
        minimum: 1,
        default: DEFAULT_RETRY_AFTER_SECONDS,
      }),
    ),
  },
  {
    description:
      'Settings of the built-in maintenance page server, used when maintpageimage is not set. It answers every ' +
      'path with 503 Service Unavailable, Retry-After and Cache-Control: no-store, in HTML or JSON by Accept.',
    'x-kubernetes-validations': [
      { rule: '!(has(self.html) && has(self.htmlFrom))', message: 'set page.html or page.htmlFrom, not both' },
    ],
  },
);

const MaintPageConfig = Type.Object(
  {
    maintpagetoggle: Type.Optional(
      Type.Boolean({
        description: 'true sends the Service to the maintenance page (once a maintenance pod is Ready).',
        default: false,
      }),
    ),
    maintpageimage: Type.Optional(
      imageField(
        'maintpageimage',
        'quay.io/daein/maintpage:latest',
        'Image that serves the maintenance page on maintpageconfig.port. Leave it out to use the built-in page ' +
          'server, which answers 503 with Retry-After and is configured by page.',
      ),
    ),
    port: Type.Optional(portField('Port the maintenance page container listens on.')),
    replicas: Type.Optional(
      Type.Integer({
        description: 'Number of maintenance page pods. They run all the time, so a switch never waits for a start.',
        format: 'int32',
        minimum: 1,
        default: DEFAULT_REPLICAS,
      }),
    ),
    schedule: Type.Optional(ScheduleSpec),
    page: Type.Optional(PageSpec),
  },
  {
    description: 'The maintenance page, and when it is served.',
    default: {},
    'x-kubernetes-validations': [
      {
        rule: '!has(self.page) || !has(self.maintpageimage)',
        message:
          'page configures the built-in page server, which is only used when maintpageimage is not set: ' +
          'remove maintpageimage or page',
      },
    ],
  },
);

const AppConfig = Type.Object(
  {
    appname: Type.String({
      description: "Name of the app's Deployment and Service, and of the app container.",
      maxLength: 63,
      'x-kubernetes-validations': [
        {
          rule: `self.matches('${DNS_1035_LABEL}')`,
          message:
            "appname must be a DNS-1035 label because it names a Service: lowercase letters, digits and '-', " +
            'starting with a letter and ending with a letter or digit',
        },
      ],
    }),
    appimage: imageField('appimage', 'quay.io/daein/prodpage:latest', 'Image of the app container.'),
    port: Type.Optional(portField('Port the app container listens on.')),
    replicas: Type.Optional(
      Type.Integer({
        description: 'Number of app pods. 0 stops the app; the Service then stays on the maintenance page.',
        format: 'int32',
        minimum: 0,
        default: DEFAULT_REPLICAS,
      }),
    ),
    imageChangePolicy: Type.Optional(
      Type.Union([Type.Literal('Revert'), Type.Literal('Allow')], {
        description:
          "What happens when someone changes the app container's image on the Deployment: Revert sets it back to " +
          'appimage (the default, as the original operator did); Allow keeps it, for GitOps or image-automation tools that own the image. ' +
          'A change of appimage itself is applied either way.',
        default: DEFAULT_IMAGE_CHANGE_POLICY,
      }),
    ),
  },
  { description: 'The app: a Deployment and a Service, both named appname.' },
);

export const MaintPageSpecSchema = Type.Object(
  {
    maintpageconfig: Type.Optional(MaintPageConfig),
    appconfig: AppConfig,
  },
  {
    description:
      "MaintPageSpec: the app and its maintenance page. The app's Service selects the app pods, or the maintenance " +
      'page pods while maintenance is on.',
  },
);
