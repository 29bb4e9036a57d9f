import { domainToASCII } from 'node:url';
import { isLoopback, networkContains, parseCidr, parseIp, sameIp, type IpBytes, type IpNetwork } from './ip-address.ts';
import { checkProxyProtocol } from './proxy-protocols.ts';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The proxy a request to `target` goes through according to HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or https_proxy,
 * http_proxy, no_proxy), or undefined to connect directly: the decision of Go's http.ProxyFromEnvironment, which
 * client-go makes for every cluster whose kubeconfig sets no proxy-url, in-cluster too. The rules are those of
 * golang.org/x/net/http/httpproxy (proxy.go: FromEnvironment, proxyForURL, useProxy, config.init and the matchers;
 * read at github.com/golang/net 0ca694d2), followed exactly:
 *
 * - The upper-case variable wins over the lower-case one; an empty value counts as unset.
 * - An https target uses HTTPS_PROXY only, an http target HTTP_PROXY only (so HTTP_PROXY never applies to an API server,
 *   which is always https here). A value without `scheme://host` is taken as `http://value`.
 * - `localhost` and loopback addresses (127.0.0.0/8, ::1) are never proxied, whatever the variables say.
 * - NO_PROXY is a comma-separated list, each entry trimmed and lower-cased: `*` (nothing is proxied); an IP address or a
 *   CIDR, IPv4 or IPv6 (`10.0.0.1`, `10.0.0.0/8`, `2001:db8::/32`); an IP address with a port (`10.0.0.1:6443`,
 *   `[2001:db8::1]:443`); a domain, which matches itself and its subdomains (`example.com`); a domain with a leading `.`
 *   or `*.`, which matches its subdomains only (`.example.com`). A domain may carry a port. Domains never match an IP
 *   target, nor IPs a name. Entries it cannot read are skipped.
 *
 * One difference, on purpose: Go ignores a proxy value it cannot parse and connects directly; this throws an error that
 * names the variable instead, since a direct connection where a proxy is required only ever times out. The same goes
 * for a proxy this client cannot speak to (see {@link checkProxyProtocol}).
 */
export function environmentProxy(env: Environment, target: URL): URL | undefined {
  const variable = target.protocol === 'https:' ? variableOf(env, 'HTTPS_PROXY', 'https_proxy') : target.protocol === 'http:' ? variableOf(env, 'HTTP_PROXY', 'http_proxy') : undefined;
  if (variable === undefined) return undefined;
  const noProxy = variableOf(env, 'NO_PROXY', 'no_proxy')?.value ?? '';
  if (!useProxy(noProxyMatchers(noProxy), target)) return undefined;
  return checkProxyProtocol(parseProxy(variable), `the ${variable.name} environment variable`);
}

/** Go's getEnvAny: the first of the names with a non-empty value. */
function variableOf(env: Environment, ...names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

/** Go's parseProxy: the value as a URL if it has a scheme and a host, else as `http://value`. */
function parseProxy({ name, value }: { name: string; value: string }): URL {
  const asGiven = URL.parse(value);
  if (asGiven !== null && asGiven.protocol !== '' && asGiven.host !== '') return asGiven;
  const withHttp = URL.parse(`http://${value}`);
  // The value itself is left out of the message: it may hold the proxy's password.
  if (withHttp === null) throw new Error(`the ${name} environment variable is not a URL: set it to http://host:port (or https://)`);
  return withHttp;
}

/** What one NO_PROXY entry excludes from proxying (Go's matcher). */
type NoProxyMatcher =
  | { kind: 'all' }
  | { kind: 'network'; network: IpNetwork }
  | { kind: 'ip'; ip: IpBytes; port: string }
  | { kind: 'domain'; suffix: string; port: string; alsoItself: boolean };

/** Go's config.init, for NO_PROXY. */
function noProxyMatchers(noProxy: string): NoProxyMatcher[] {
  const matchers: NoProxyMatcher[] = [];
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return [{ kind: 'all' }];
    const network = parseCidr(entry);
    if (network !== undefined) {
      matchers.push({ kind: 'network', network });
      continue;
    }
    const split = splitHostPort(entry);
    if (split?.host === '') continue;
    const host = split?.host ?? entry;
    const port = split?.port ?? '';
    const ip = parseIp(host);
    if (ip !== undefined) {
      matchers.push({ kind: 'ip', ip, port });
      continue;
    }
    const domain = host.startsWith('*.') ? host.slice(1) : host;
    const alsoItself = !domain.startsWith('.');
    const suffix = alsoItself ? `.${domain}` : domain;
    matchers.push({ kind: 'domain', suffix: idnaAscii(suffix), port, alsoItself });
  }
  return matchers;
}

/** Go's useProxy, for the target's host and port (the scheme's default port when it has none). */
function useProxy(matchers: readonly NoProxyMatcher[], target: URL): boolean {
  // URL keeps IPv6 brackets and has already lower-cased and IDNA-encoded the name.
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = target.port !== '' ? target.port : target.protocol === 'https:' ? '443' : '80';
  if (host === 'localhost') return false;
  const ip = parseIp(host);
  if (ip !== undefined && isLoopback(ip)) return false;
  return !matchers.some((matcher) => {
    switch (matcher.kind) {
      case 'all':
        return true;
      case 'network':
        return ip !== undefined && networkContains(matcher.network, ip);
      case 'ip':
        return ip !== undefined && sameIp(matcher.ip, ip) && (matcher.port === '' || matcher.port === port);
      case 'domain':
        return ip === undefined && (host.endsWith(matcher.suffix) || (matcher.alsoItself && host === matcher.suffix.slice(1))) && (matcher.port === '' || matcher.port === port);
    }
  });
}

/** Go's idnaASCII: a name with non-ASCII characters in its IDNA (punycode) form, as URL gives the target's; else as is. */
function idnaAscii(name: string): string {
  // eslint-disable-next-line no-control-regex -- the ASCII range, as Go's isASCII
  if (/^[\x00-\x7f]*$/.test(name)) return name;
  return domainToASCII(name) || name;
}

/**
 * Go's net.SplitHostPort: `host:port` or `[host]:port` (the brackets dropped), undefined when there is no port or the
 * host has colons outside brackets.
 */
function splitHostPort(text: string): { host: string; port: string } | undefined {
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0 || text[end + 1] !== ':') return undefined;
    const host = text.slice(1, end);
    const port = text.slice(end + 2);
    return host.includes('[') || port.includes(':') || port.includes('[') || port.includes(']') ? undefined : { host, port };
  }
  const colon = text.lastIndexOf(':');
  if (colon < 0) return undefined;
  const host = text.slice(0, colon);
  const port = text.slice(colon + 1);
  return host.includes(':') || host.includes('[') || host.includes(']') || port.includes('[') || port.includes(']') ? undefined : { host, port };
}
