import { describe, expect, it } from 'vitest';
import { environmentProxy } from './environment-proxy.ts';

/** The proxy for `target` as a string without the trailing slash URL adds, as Go prints it; `<nil>` for none. */
function proxyFor(env: Record<string, string>, target = 'http://example.com'): string {
  return environmentProxy(env, new URL(target))?.href.replace(/\/$/, '') ?? '<nil>';
}

// The cases of golang.org/x/net/http/httpproxy's proxy_test.go (TestProxyForURL, TestUseProxy, TestAllNoProxy,
// TestInvalidNoProxy), which http.ProxyFromEnvironment and so client-go follow.
describe('environmentProxy: proxy values (TestProxyForURL)', () => {
  it.each([
    [{ HTTP_PROXY: '127.0.0.1:8080' }, 'http://example.com', 'http://127.0.0.1:8080'],
    [{ HTTP_PROXY: 'cache.corp.example.com:1234' }, 'http://example.com', 'http://cache.corp.example.com:1234'],
    [{ HTTP_PROXY: 'cache.corp.example.com' }, 'http://example.com', 'http://cache.corp.example.com'],
    [{ HTTP_PROXY: 'localhost' }, 'http://example.com', 'http://localhost'],
    [{ HTTP_PROXY: 'https://cache.corp.example.com' }, 'http://example.com', 'https://cache.corp.example.com'],
    [{ HTTP_PROXY: 'http://127.0.0.1:8080' }, 'http://example.com', 'http://127.0.0.1:8080'],
    [{ HTTP_PROXY: 'https://127.0.0.1:8080' }, 'http://example.com', 'https://127.0.0.1:8080'],
    [{ HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'secure.proxy.tld' }, 'http://insecure.tld/', 'http://http.proxy.tld'],
    [{ HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'secure.proxy.tld' }, 'https://secure.tld/', 'http://secure.proxy.tld'],
    [{ HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'https://secure.proxy.tld' }, 'https://secure.tld/', 'https://secure.proxy.tld'],
    // HTTP_PROXY is for http targets only: an API server (https) never goes through it.
    [{ HTTP_PROXY: 'http.proxy.tld' }, 'https://secure.tld/', '<nil>'],
    [{ HTTP_PROXY: 'http.proxy.tld' }, 'ftp://insecure.tld/', '<nil>'],
    [{}, 'http://example.com', '<nil>'],
    [{ NO_PROXY: 'example.com', HTTP_PROXY: 'proxy' }, 'http://example.com/', '<nil>'],
    [{ NO_PROXY: '.example.com', HTTP_PROXY: 'proxy' }, 'http://example.com/', 'http://proxy'],
    [{ NO_PROXY: 'ample.com', HTTP_PROXY: 'proxy' }, 'http://example.com/', 'http://proxy'],
    [{ NO_PROXY: 'example.com', HTTP_PROXY: 'proxy' }, 'http://foo.example.com/', '<nil>'],
    [{ NO_PROXY: '.foo.com', HTTP_PROXY: 'proxy' }, 'http://example.com/', 'http://proxy'],
    [{ NO_PROXY: '.示例.com', HTTP_PROXY: 'proxy' }, 'http://www.示例.com', '<nil>'],
    [{ NO_PROXY: 'xn--fsq092h.com', HTTP_PROXY: 'proxy' }, 'http://www.示例.com', '<nil>'],
    [{ NO_PROXY: '示例.com', HTTP_PROXY: 'proxy' }, 'http://www.xn--fsq092h.com', '<nil>'],
  ])('%j, %s -> %s', (env, target, want) => {
    expect(proxyFor(env, target)).toBe(want);
  });
});

const noProxy =
  'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, 2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';

describe('environmentProxy: NO_PROXY and the hosts never proxied (TestUseProxy)', () => {
  it.each([
    ['localhost', false],
    ['127.0.0.1', false],
    ['127.0.0.2', false],
    ['[::1]', false],
    ['[::2]', true], // not a loopback address
    ['192.168.1.1', false], // matches exact IPv4
    ['192.168.1.2', true], // ports do not match
    ['192.168.1.3', false], // matches exact IPv4:port
    ['192.168.1.4', true], // no match
    ['10.0.0.2', false], // matches IPv4/CIDR
    ['[2001:db8::52:0:1]', false], // matches exact IPv6
    ['[2001:db8::52:0:2]', true], // no match
    ['[2001:db8::52:0:3]', false], // matches exact [IPv6]:port
    ['[2002:db8:a::123]', false], // matches IPv6/CIDR
    ['[fe80::424b:c8be:1643:a1b6]', true], // no match
    ['barbaz.net', true], // does not match as .barbaz.net
    ['www.barbaz.net', false], // does match as .barbaz.net
    ['foobar.com', false], // does match as foobar.com
    ['www.foobar.com', false], // match because NO_PROXY includes "foobar.com"
    ['foofoobar.com', true], // not match as a part of foobar.com
    ['baz.com', true], // not match as a part of barbaz.com
    ['localhost.net', true], // not match as suffix of address
    ['local.localhost', true], // not match as prefix as address
    ['barbarbaz.net', true], // not match, wrong domain
    ['wildcard.io', true], // does not match as *.wildcard.io
    ['nested.wildcard.io', false], // match as *.wildcard.io
    ['awildcard.io', true], // not a match because of '*'
  ])('%s proxied: %s', (host, proxied) => {
    expect(proxyFor({ HTTP_PROXY: 'proxy', NO_PROXY: noProxy }, `http://${host}:80`) !== '<nil>').toBe(proxied);
  });

  it('proxies nothing with NO_PROXY=* (TestAllNoProxy), and skips an entry without a host (TestInvalidNoProxy)', () => {
    for (const host of ['example.com', '192.168.1.4', '[fe80::424b:c8be:1643:a1b6]']) {
      expect(proxyFor({ HTTP_PROXY: 'proxy', NO_PROXY: 'a.example, *' }, `http://${host}:80`)).toBe('<nil>');
    }
    expect(proxyFor({ HTTP_PROXY: 'proxy', NO_PROXY: ':1' }, 'http://example.com:80')).toBe('http://proxy');
  });

  it('never proxies loopback, IPv4-mapped too, even when NO_PROXY is empty', () => {
    expect(proxyFor({ HTTPS_PROXY: 'proxy' }, 'https://[::ffff:127.0.0.1]:6443')).toBe('<nil>');
    expect(proxyFor({ HTTPS_PROXY: 'proxy' }, 'https://10.96.0.1:443')).toBe('http://proxy');
    expect(proxyFor({ HTTPS_PROXY: 'proxy', NO_PROXY: '10.96.0.0/12' }, 'https://10.96.0.1:443')).toBe('<nil>');
    expect(proxyFor({ HTTPS_PROXY: 'proxy', NO_PROXY: '10.96.0.1:6443' }, 'https://10.96.0.1')).toBe('http://proxy');
    expect(proxyFor({ HTTPS_PROXY: 'proxy', NO_PROXY: '10.96.0.1:443' }, 'https://10.96.0.1')).toBe('<nil>');
  });
});

describe('environmentProxy: the variables (TestFromEnvironment)', () => {
  it('reads the upper-case variable first, the lower-case one when the upper-case one is unset or empty', () => {
    expect(proxyFor({ HTTPS_PROXY: 'upper', https_proxy: 'lower' }, 'https://api.example')).toBe('http://upper');
    expect(proxyFor({ HTTPS_PROXY: '', https_proxy: 'lower' }, 'https://api.example')).toBe('http://lower');
    expect(proxyFor({ https_proxy: 'lower', NO_PROXY: '', no_proxy: 'api.example' }, 'https://api.example')).toBe('<nil>');
    expect(proxyFor({ https_proxy: 'lower', NO_PROXY: 'other.example', no_proxy: 'api.example' }, 'https://api.example')).toBe('http://lower');
  });

  it('refuses, naming the variable and never its value, a proxy it cannot parse or speak to (Go would connect directly)', () => {
    expect(() => proxyFor({ https_proxy: 'user:s3cret@proxy:port' }, 'https://api.example')).toThrow(
      /^the https_proxy environment variable is not a URL: set it to http:\/\/host:port \(or https:\/\/\)$/,
    );
    expect(() => proxyFor({ HTTPS_PROXY: 'socks5://user:s3cret@proxy:1080' }, 'https://api.example')).toThrow(
      /^the HTTPS_PROXY environment variable names a proxy with scheme "socks5"; controller-core reaches the API server through http:\/\/ or https:\/\/ proxies only$/,
    );
    // Not consulted for a target it would not apply to.
    expect(proxyFor({ HTTPS_PROXY: 'socks5://proxy:1080', NO_PROXY: 'api.example' }, 'https://api.example')).toBe('<nil>');
  });
});
