import { describe, expect, test } from 'vitest';
import { crashLogExcerpt, EXCERPT_LINE_CHARS, unreadableReason } from './crash-log.ts';

/** A pino line as the operators write it: a level label, an ISO time, the message and maybe a serialized error. */
const line = (level: string, second: number, msg: string, err?: { type: string; message: string }): string =>
  JSON.stringify({ level, time: new Date(Date.UTC(2025, 2, 1, 9, 0, second)).toISOString(), pid: 7, msg, ...(err ? { err: { ...err, stack: `${err.type}: ${err.message}\n    at x (y.js:1:1)` } } : {}) });
const SECOND_0 = Date.UTC(2025, 2, 1, 9, 0, 0);

describe('crashLogExcerpt', () => {
  test('the last warnings and errors and the very last line, in log order; info lines before them left out', () => {
    const log = [
      line('info', 1, 'manager started'),
      line('warn', 2, 'renewing the lease failed', { type: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:6443' }),
      line('info', 3, 'reconciled'),
      line('error', 4, 'manager stopped with an error', { type: 'Error', message: 'leader election lost' }),
      line('info', 5, 'closing the metrics server'),
      '',
    ].join('\n');
    expect(crashLogExcerpt(log)).toEqual([
      'renewing the lease failed: connect ECONNREFUSED 127.0.0.1:6443',
      'manager stopped with an error: leader election lost',
      'closing the metrics server',
    ]);
  });

  test('the last line counted once when it is itself an error; pino level numbers too', () => {
    const log = [
      JSON.stringify({ level: 30, time: SECOND_0, msg: 'reconciled' }),
      JSON.stringify({ level: 60, time: SECOND_0 + 1, msg: 'manager stopped with an error', err: { message: 'leader election lost' } }),
    ].join('\n');
    expect(crashLogExcerpt(log)).toEqual(['manager stopped with an error: leader election lost']);
  });

  test('at most five lines: the last four warnings or errors and the last line', () => {
    const log = [...Array.from({ length: 8 }, (_, index) => line('warn', index, `warning ${String(index)}`)), line('info', 9, 'last')].join('\n');
    expect(crashLogExcerpt(log)).toEqual(['warning 4', 'warning 5', 'warning 6', 'warning 7', 'last']);
  });

  test('each line on one line and shortened; lines that are not JSON (what Node printed itself) kept as they are', () => {
    const long = line('error', 1, `failed: ${'x'.repeat(400)}`);
    const excerpt = crashLogExcerpt(`${long}\nfile:///app/main.js:10\n   throw new Error('boom');\n`);
    expect(excerpt).toHaveLength(2);
    expect(excerpt[0]).toHaveLength(EXCERPT_LINE_CHARS);
    expect(excerpt[0]).toMatch(/^failed: x+…$/);
    expect(excerpt[1]).toBe("throw new Error('boom');");
    expect(crashLogExcerpt(line('info', 1, 'two\nlines'))).toEqual(['two lines']);
    expect(crashLogExcerpt('{"level":"warn","time":1}')).toEqual(['{"level":"warn","time":1}']);
    expect(crashLogExcerpt('')).toEqual([]);
  });
});

test('unreadableReason: what kubectl said, on one line, or its exit code', () => {
  expect(unreadableReason('Error from server (BadRequest): previous terminated container "manager" in pod "mp-0" not found\n', 1))
    .toBe('Error from server (BadRequest): previous terminated container "manager" in pod "mp-0" not found');
  expect(unreadableReason('', 1)).toBe('kubectl logs exited with code 1');
  expect(unreadableReason('')).toBe('kubectl logs failed without a message');
});
