/**
 * Regular expressions the API server checks (as CEL `matches`, so each failure gets a message saying what to fix) and
 * the code reuses, so the two never disagree. They are written for RE2 (CEL) and JavaScript alike: no backslashes, no
 * lookarounds, so they read the same in the CRD YAML as here.
 */

/** A DNS-1035 label, what a Service name must be: lowercase, starts with a letter. Length (≤63) is checked apart. */
export const DNS_1035_LABEL = '^[a-z]([-a-z0-9]*[a-z0-9])?$';

/** A DNS-1123 subdomain, what a ConfigMap name must be. Length (≤253) is checked apart. */
export const DNS_1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/** A ConfigMap data key. */
export const CONFIG_MAP_KEY = '^[-._a-zA-Z0-9]+$';

// The grammar of github.com/distribution/reference: [host[:port]/]path[:tag][@digest], the path in lowercase.
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_COMPONENT}(?:[.]${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const TAG = '[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';

/** A container image reference such as `quay.io/daein/maintpage:latest` or `nginx@sha256:…`. */
export const IMAGE_REFERENCE = `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`;

/**
 * An RFC 3339 time with an explicit zone (`Z` or `±hh:mm`), e.g. `2026-03-01T22:00:00Z`. A zone is required so a
 * schedule means the same instant on every machine; local times without one are refused.
 */
export const RFC3339_TIME =
  '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?' +
  '(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$';
