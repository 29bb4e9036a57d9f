/**
 * Regular expressions the API server checks (as CEL `matches`, so each failure gets a message saying what to fix) and
 * the code reuses, so the two never disagree. Written for RE2 (CEL) and JavaScript alike: no backslashes and no
 * lookarounds, so they read the same in the CRD YAML as here.
 */

/**
 * A PostgreSQL identifier that needs no quoting: a lowercase letter or underscore, then lowercase letters, digits or
 * underscores (length ≤ 63, NAMEDATALEN - 1, is checked apart). Unquoted identifiers fold to lowercase in SQL, so only
 * lowercase names mean the same thing in `psql -d foo`, in an application's `CREATE TABLE` and in a connection string.
 */
export const POSTGRES_IDENTIFIER = '^[a-z_][a-z0-9_]*$';

/** A DNS-1123 subdomain: what a Secret or a PostgreSQL object's name must be. Length (≤253) is checked apart. */
export const DNS_1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/**
 * The shape of a cron schedule: five fields separated by spaces (minute hour day-of-month month day-of-week), or one
 * of the macros Kubernetes CronJobs accept. The API server only checks the shape; the controller parses the expression
 * fully (cron-parser) and reports a bad one as a condition.
 */
export const CRON_SHAPE = '^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+)$';

/** A retention age: a whole number of minutes, hours, days or weeks, e.g. `90m`, `36h`, `7d`, `2w`. */
export const RETENTION_AGE = '^[1-9][0-9]{0,5}(m|h|d|w)$';

/** A Kubernetes resource quantity as `resource.Quantity` accepts it (`1Gi`, `500m`, `2`), as controller-gen writes it. */
export const QUANTITY =
  '^([+]|-)?(([0-9]+([.][0-9]*)?)|([.][0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE]([+]|-)?(([0-9]+([.][0-9]*)?)|([.][0-9]+))))?$';

/** A lowercase hex SHA-256 digest. */
export const SHA256_HEX = '^[0-9a-f]{64}$';

/**
 * An S3 bucket name as AWS allows it: lowercase letters, digits, '.' and '-', starting and ending with a letter or digit
 * (length 3 to 63 is checked apart).
 */
export const S3_BUCKET_NAME = '^[a-z0-9][a-z0-9.-]*[a-z0-9]$';
