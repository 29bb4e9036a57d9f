// What an operator said before its container ended, short enough for a violation's evidence: the person on call reads
// why, not only "exit code 1". The operators log JSON lines (pino, with "level":"error" labels or pino's numbers);
// a line that is not JSON (a stack trace Node printed itself) is kept as it is.

/** At most this many lines: the last warnings and errors, and the very last line. */
export const EXCERPT_LINES = 5;
/** Each line shortened to about this many characters. */
export const EXCERPT_LINE_CHARS = 300;
/** pino's level numbers; a line at WARN or above is kept. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const WARN = 40;

interface LogLine { level: number | undefined; text: string }

/**
 * The lines of `log` worth quoting: the last lines at warn or above, then the very last line, in log order, at most
 * EXCERPT_LINES, each on one line and shortened.
 */
export function crashLogExcerpt(log: string): string[] {
  const lines = log.split('\n').filter((line) => line.trim() !== '').map(parseLine);
  const last = lines.at(-1);
  if (last === undefined) return [];
  const warnings = lines.slice(0, -1).filter((line) => line.level !== undefined && line.level >= WARN).slice(-(EXCERPT_LINES - 1));
  return [...warnings, last].map((line) => shorten(line.text));
}

function parseLine(line: string): LogLine {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return { level: undefined, text: line };
  }
  if (typeof entry !== 'object' || entry === null) return { level: undefined, text: line };
  const { level, msg, err } = entry as { level?: unknown; msg?: unknown; err?: { message?: unknown } };
  const message = typeof msg === 'string' ? msg : undefined;
  const errorMessage = typeof err?.message === 'string' ? err.message : undefined;
  const parts = [message, errorMessage !== undefined && message?.includes(errorMessage) !== true ? errorMessage : undefined].filter((part) => part !== undefined && part !== '');
  return {
    level: typeof level === 'number' ? level : typeof level === 'string' ? LEVELS[level] : undefined,
    text: parts.length === 0 ? line : parts.join(': '),
  };
}

/** Why a log could not be read, from what kubectl printed (or the error running it), on one short line. */
export function unreadableReason(output: string, code?: number): string {
  const reason = shorten(output);
  if (reason !== '') return reason;
  return code === undefined ? 'kubectl logs failed without a message' : `kubectl logs exited with code ${String(code)}`;
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= EXCERPT_LINE_CHARS ? oneLine : `${oneLine.slice(0, EXCERPT_LINE_CHARS - 1)}…`;
}
