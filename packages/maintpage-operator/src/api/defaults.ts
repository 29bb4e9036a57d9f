/**
 * Defaults of the optional MaintPage fields. The CRD declares them (so `kubectl get -o yaml` shows them) and
 * `resolveMaintPage` applies the same values, so an object that never went through the API server's defaulting (a test
 * fixture, an object stored before a field existed) is read the same way. Each keeps the seed's behaviour.
 */

/** The seed's Service port, and the port the seed's app and maintenance images listen on. */
export const DEFAULT_PORT = 8080;

/** The seed runs one app pod and one maintenance pod. */
export const DEFAULT_REPLICAS = 1;

/** `Retry-After` of the built-in page server when no schedule end is known. */
export const DEFAULT_RETRY_AFTER_SECONDS = 300;

/** What the built-in page says (HTML and JSON) unless `page.message` says otherwise. */
export const DEFAULT_PAGE_MESSAGE = 'This service is down for maintenance. Please try again later.';

/**
 * Largest `page.html`, in characters (the API server counts characters, not bytes). Envoy Gateway and Gateway API
 * proposals cap direct responses at 4 KiB; a full page with inline CSS and an SVG logo needs more, and 64 KiB keeps
 * the MaintPage (and the ConfigMap made from it) far below etcd's 1.5 MiB object limit. Larger pages go in a
 * ConfigMap of the user's own (`page.htmlFrom`), which holds up to 1 MiB.
 */
export const MAX_INLINE_HTML_LENGTH = 65_536;

/** How a manual change of the app's image is treated; `Revert` is the seed's behaviour. */
export const IMAGE_CHANGE_POLICIES = ['Revert', 'Allow'] as const;
export type ImageChangePolicy = (typeof IMAGE_CHANGE_POLICIES)[number];
export const DEFAULT_IMAGE_CHANGE_POLICY: ImageChangePolicy = 'Revert';
