import type { ChildProcess } from 'node:child_process';
import type { OperatorReport } from './widget-operator.ts';

/** A message of the given type from the controller process, or an error if it exits first. */
export function nextReport<K extends OperatorReport['type']>(child: ChildProcess, type: K): Promise<Extract<OperatorReport, { type: K }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: OperatorReport): void => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<OperatorReport, { type: K }>);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      child.off('message', onMessage);
      reject(new Error(`the controller process exited (${signal ?? `code ${String(code)}`}) before reporting '${type}'`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
