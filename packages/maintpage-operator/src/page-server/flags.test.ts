import { describe, expect, it } from 'vitest';
import { PageServerFlagError, pageServerArgs, parsePageServerFlags } from './flags.ts';

describe('page server flags', () => {
  it('reads back what the operator writes', () => {
    const args = pageServerArgs({
      port: 8081,
      message: 'Back at 02:00 UTC, promise.',
      retryAfterSeconds: 120,
      retryAfterUntil: '2026-03-02T11:00:00+09:00',
      contentFile: '/etc/maintpage/page.html',
    });
    expect(parsePageServerFlags(args, { BIND_ADDRESS: '10.244.0.7' })).toEqual({
      port: 8081,
      bindAddress: '10.244.0.7',
      message: 'Back at 02:00 UTC, promise.',
      retryAfterSeconds: 120,
      retryAfterUntil: new Date('2026-03-02T02:00:00Z'),
      contentFile: '/etc/maintpage/page.html',
    });
  });

  it('has defaults for everything, and listens everywhere without a bind address', () => {
    expect(parsePageServerFlags([], {})).toEqual({
      port: 8080,
      bindAddress: undefined,
      message: 'This service is down for maintenance. Please try again later.',
      retryAfterSeconds: 300,
      retryAfterUntil: undefined,
      contentFile: undefined,
    });
    expect(parsePageServerFlags([], { BIND_ADDRESS: '' }).bindAddress).toBeUndefined();
  });

  it('prefers --bind-address to the environment and accepts space-separated values', () => {
    expect(parsePageServerFlags(['--bind-address', '127.0.0.1', '--port', '0'], { BIND_ADDRESS: '10.0.0.1' })).toMatchObject({
      bindAddress: '127.0.0.1',
      port: 0,
    });
  });

  it.each([
    [['--port=http'], '--port must be a whole number from 0 to 65535, got "http"'],
    [['--port=70000'], '--port must be a whole number from 0 to 65535, got "70000"'],
    [['--retry-after-seconds=0'], '--retry-after-seconds must be a whole number from 1 to 2147483647, got "0"'],
    [
      ['--retry-after-until=2026-03-02 02:00'],
      '--retry-after-until must be an RFC 3339 time with a zone, such as 2026-03-01T22:00:00Z, got "2026-03-02 02:00"',
    ],
    [['--colour=blue'], "Unknown option '--colour'"],
    [['page.html'], 'Unexpected argument'],
  ])('refuses %j', (argv, message) => {
    expect(() => parsePageServerFlags(argv, {})).toThrow(PageServerFlagError);
    expect(() => parsePageServerFlags(argv, {})).toThrow(message);
  });
});
