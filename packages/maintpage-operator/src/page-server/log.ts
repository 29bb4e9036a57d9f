/**
 * One JSON object per line on stdout, shaped like the operator's pino logs (`level` as a word, ISO `time`, `msg`), so
 * one log pipeline reads both. The page server has no other dependency, which keeps its image small.
 */
export type LogLevel = 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

export function jsonLineLog(write: (line: string) => void, name = 'maintpage-page-server'): Log {
  return (level, msg, fields = {}) => {
    write(`${JSON.stringify({ level, time: new Date().toISOString(), name, msg, ...fields })}\n`);
  };
}
