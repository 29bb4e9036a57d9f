// The API server's audit log (JSON lines, as src/audit-policy.yaml asks for), read back as the requests it records:
// from testkit's local control plane and from a kind cluster built here, whose API server writes it to a directory of
// this machine (kind/local-cluster.sh).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The audit policy both kinds of cluster run with. */
export const AUDIT_POLICY_FILE = join(import.meta.dirname, 'audit-policy.yaml');

/** One request of the audit log: who asked for what, and the answer's status code. */
export interface AuditedRequest {
  user: string;
  verb: string;
  group: string;
  resource: string;
  subresource: string | undefined;
  namespace: string | undefined;
  /** The object's name, for requests on one object (get, patch, delete ...). */
  name: string | undefined;
  code: number;
  /**
   * What the authorizer (RBAC) decided, from the event's `authorization.k8s.io/decision` annotation. A 403 the
   * authorizer allowed was refused after it, by admission: content created in a namespace being deleted, for one.
   */
  authorization: 'allow' | 'forbid' | undefined;
}


interface AuditLine {
  user?: { username?: string };
  verb?: string;
  objectRef?: { apiGroup?: string; resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  annotations?: Record<string, string>;
}

function authorizationOf(line: AuditLine): AuditedRequest['authorization'] {
  const decision = line.annotations?.['authorization.k8s.io/decision'];
  return decision === 'allow' || decision === 'forbid' ? decision : undefined;
}

/** The requests on resources in `text` (one JSON event per line), of one user or of all. */
export function parseAuditLog(text: string, user?: string): AuditedRequest[] {
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as AuditLine)
    .filter((e) => e.objectRef?.resource !== undefined && (user === undefined || e.user?.username === user))
    .map((e) => ({
      user: e.user?.username ?? '', verb: e.verb ?? '', group: e.objectRef?.apiGroup ?? '', resource: e.objectRef?.resource ?? '',
      subresource: e.objectRef?.subresource, namespace: e.objectRef?.namespace, name: e.objectRef?.name, code: e.responseStatus?.code ?? 0,
      authorization: authorizationOf(e),
    }));
}

/**
 * The requests of every audit log file in `dir`: the current `audit.log` and the ones the API server rotated out of
 * it (`audit-<time>.log`), oldest first. A file being written may end in half a line, which is left for the next read.
 */
export async function readAuditLogDir(dir: string, user?: string): Promise<AuditedRequest[]> {
  const files = (await readdir(dir)).filter((f) => /^audit(-.+)?\.log$/.test(f))
    // audit.log is the newest; rotated names carry their time, so they sort oldest first.
    .sort((a, b) => (a === 'audit.log' ? 1 : b === 'audit.log' ? -1 : a.localeCompare(b)));
  if (!files.includes('audit.log')) throw new Error(`no audit.log in ${dir}: is the API server writing its audit log there?`);
  const requests: AuditedRequest[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    requests.push(...parseAuditLog(text.slice(0, text.lastIndexOf('\n') + 1), user));
  }
  return requests;
}
