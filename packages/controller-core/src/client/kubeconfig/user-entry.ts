import type { PemSource } from './cluster-entry.ts';
import { asString, asStringList, EntryFields } from './entry-fields.ts';
import { EXEC_API_VERSIONS, type ExecApiVersion, type ExecSettings } from './exec-plugin.ts';
import { isMapping, type KubeconfigEntry } from './kubeconfig-file.ts';

/** Whom to act as (the API server checks the real user may impersonate): `as`, `as-uid`, `as-groups`, `as-user-extra`. */
export interface Impersonation {
  readonly user: string;
  readonly uid: string | undefined;
  readonly groups: readonly string[];
  readonly extra: ReadonlyMap<string, readonly string[]>;
}

/** A kubeconfig user, validated. */
export interface UserSettings {
  readonly name: string;
  /** Describes the entry in messages: `user "alice" in /home/me/.kube/config`. */
  readonly description: string;
  readonly clientCertificate: PemSource | undefined;
  readonly clientKey: PemSource | undefined;
  readonly token: string | undefined;
  /** Absolute path. */
  readonly tokenFile: string | undefined;
  readonly basic: { readonly username: string; readonly password: string } | undefined;
  readonly impersonation: Impersonation | undefined;
  readonly exec: ExecSettings | undefined;
  /** oidc, gcp, azure: left to client-node. */
  readonly authProvider: { readonly name: string; readonly config: Record<string, string> } | undefined;
}

const INTERACTIVE_MODES = ['Never', 'IfAvailable', 'Always'];

/** Reads a user entry with client-go's validation (clientcmd validateAuthInfo). */
export function userSettings(entry: KubeconfigEntry): UserSettings {
  const fields = new EntryFields(entry);
  const token = fields.string('token');
  const tokenFile = fields.path('tokenFile');
  const username = fields.string('username');
  const password = fields.string('password');
  if ((token !== undefined || tokenFile !== undefined) && (username !== undefined || password !== undefined)) {
    throw fields.error('has both a token (or tokenFile) and username/password: client-go allows only one authentication method');
  }
  const exec = execSettings(fields);
  const authProvider = authProviderOf(fields);
  if (exec !== undefined && authProvider !== undefined) throw fields.error('has both exec and auth-provider: keep one');
  return {
    name: entry.name,
    description: fields.description,
    ...clientCertificate(fields),
    token,
    tokenFile,
    // As client-go: basic auth is on when a username is set.
    basic: username === undefined ? undefined : { username, password: password ?? '' },
    impersonation: impersonation(fields),
    exec,
    authProvider,
  };
}

function clientCertificate(fields: EntryFields): Pick<UserSettings, 'clientCertificate' | 'clientKey'> {
  const clientCertificate = pemSource(fields, 'client-certificate');
  const clientKey = pemSource(fields, 'client-key');
  if (clientCertificate !== undefined && clientKey === undefined) throw fields.error('has a client certificate but no client-key(-data)');
  if (clientKey !== undefined && clientCertificate === undefined) throw fields.error('has a client key but no client-certificate(-data)');
  return { clientCertificate, clientKey };
}

function pemSource(fields: EntryFields, key: string): PemSource | undefined {
  const file = fields.path(key);
  const base64 = fields.string(`${key}-data`);
  if (file !== undefined && base64 !== undefined) throw fields.error(`sets both ${key} and ${key}-data: keep one`);
  return file !== undefined ? { file } : base64 !== undefined ? { base64 } : undefined;
}

function impersonation(fields: EntryFields): Impersonation | undefined {
  const user = fields.string('as');
  const uid = fields.string('as-uid');
  const groups = fields.stringList('as-groups');
  const extra = new Map<string, string[]>();
  for (const [key, values] of Object.entries(fields.mapping('as-user-extra') ?? {})) {
    extra.set(key, asStringList(fields, `as-user-extra ${key}`, values));
  }
  if (user === undefined) {
    if (uid !== undefined || groups.length > 0 || extra.size > 0) {
      throw fields.error('sets as-uid, as-groups or as-user-extra without as: impersonation needs a user name');
    }
    return undefined;
  }
  return { user, uid, groups, extra };
}

function execSettings(fields: EntryFields): ExecSettings | undefined {
  const exec = fields.mapping('exec');
  if (exec === undefined) return undefined;
  const at = (key: string): string => `exec ${key}`;
  const command = asString(fields, at('command'), exec.command);
  if (command === undefined) throw fields.error('has exec without a command');
  const apiVersion = asString(fields, at('apiVersion'), exec.apiVersion);
  if (apiVersion === undefined) throw fields.error(`has exec without apiVersion (${EXEC_API_VERSIONS.join(' or ')})`);
  if (!isExecApiVersion(apiVersion)) {
    throw fields.error(`has exec apiVersion ${apiVersion}, which is not supported: use ${EXEC_API_VERSIONS.join(' or ')}`);
  }
  // v1 requires interactiveMode; v1beta1 defaults it to IfAvailable (clientcmd's defaulting).
  const interactiveMode = asString(fields, at('interactiveMode'), exec.interactiveMode);
  if (interactiveMode === undefined && apiVersion === 'client.authentication.k8s.io/v1') {
    throw fields.error('has exec apiVersion client.authentication.k8s.io/v1 without interactiveMode (Never or IfAvailable)');
  }
  if (interactiveMode !== undefined && !INTERACTIVE_MODES.includes(interactiveMode)) {
    throw fields.error(`has exec interactiveMode ${interactiveMode}: use Never or IfAvailable`);
  }
  if (interactiveMode === 'Always') {
    throw fields.error('has exec interactiveMode Always, but an operator has no terminal: use Never or IfAvailable');
  }
  const provideClusterInfo = exec.provideClusterInfo ?? false;
  if (typeof provideClusterInfo !== 'boolean') throw fields.error('has exec provideClusterInfo that is not true or false');
  return {
    // client-go resolves the command against the kubeconfig's directory only when it is a path, not a name in PATH.
    command: command.includes('/') ? fields.resolve(command) : command,
    args: asStringList(fields, at('args'), exec.args),
    env: execEnv(fields, exec.env),
    apiVersion,
    installHint: asString(fields, at('installHint'), exec.installHint),
    provideClusterInfo,
  };
}

function isExecApiVersion(value: string): value is ExecApiVersion {
  return (EXEC_API_VERSIONS as readonly string[]).includes(value);
}

function execEnv(fields: EntryFields, value: unknown): ExecSettings['env'] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw fields.error('has exec env that is not a list of name and value');
  return value.map((item: unknown, index) => {
    if (!isMapping(item)) throw fields.error(`has exec env[${index}] that is not a mapping of name and value`);
    const name = asString(fields, `exec env[${index}].name`, item.name);
    if (name === undefined) throw fields.error(`has exec env[${index}] without a name`);
    return { name, value: asString(fields, `exec env[${index}].value`, item.value) ?? '' };
  });
}

function authProviderOf(fields: EntryFields): UserSettings['authProvider'] {
  const provider = fields.mapping('auth-provider');
  if (provider === undefined) return undefined;
  const name = asString(fields, 'auth-provider name', provider.name);
  if (name === undefined) throw fields.error('has auth-provider without a name');
  const config: Record<string, string> = {};
  const raw = provider.config ?? {};
  if (!isMapping(raw)) throw fields.error('has auth-provider config that is not a mapping');
  for (const [key, value] of Object.entries(raw)) {
    const text = asString(fields, `auth-provider config ${key}`, value);
    if (text !== undefined) config[key] = text;
  }
  return { name, config };
}
