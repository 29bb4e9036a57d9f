import { expect, test } from 'vitest';
import { eventActionOf, finishedTask, isTaskPending, reasonWhileRunning, submittedTask, UNKNOWN_TASK_STATUS } from './task-record.ts';

test('a task is followed until Prism says it ended, or no longer knows it', () => {
  expect(isTaskPending(submittedTask('t', 'create'))).toBe(true);
  expect(isTaskPending({ uuid: 't', operation: 'update', status: 'RUNNING' })).toBe(true);
  for (const status of ['SUCCEEDED', 'FAILED', 'ABORTED', UNKNOWN_TASK_STATUS]) expect(isTaskPending({ uuid: 't', operation: 'update', status })).toBe(false);
  expect(isTaskPending(undefined)).toBe(false);
});

test('a finished task keeps Prism\'s error code and detail', () => {
  expect(finishedTask({ uuid: 't', status: 'FAILED', errorCode: '27', errorDetail: 'NotSupported: Can\'t shrink disk' }, 'update'))
    .toEqual({ uuid: 't', operation: 'update', status: 'FAILED', error: '27: NotSupported: Can\'t shrink disk' });
  expect(finishedTask({ uuid: 't', status: 'SUCCEEDED' }, 'create')).toEqual({ uuid: 't', operation: 'create', status: 'SUCCEEDED' });
});

test('reasons and Event actions name the operation', () => {
  expect(['create', 'update', 'power-off', 'power-on', 'delete'].map(reasonWhileRunning)).toEqual(['Creating', 'Updating', 'PoweringOff', 'PoweringOn', 'Deleting']);
  expect(eventActionOf('power-off')).toBe('PowerOff');
});
