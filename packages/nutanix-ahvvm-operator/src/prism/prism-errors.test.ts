import { describe, expect, it } from 'vitest';
import { isEditConflict } from './edit-conflict.ts';
import { PrismApiError, parsePrismErrorBody } from './prism-errors.ts';

describe('parsePrismErrorBody', () => {
  it('reads message_list of the v3 error body, details included', () => {
    const body = JSON.stringify({
      api_version: '3.0',
      code: 422,
      message_list: [{ details: { '': ["'api_version' is a required property"] }, message: 'Request could not be processed.', reason: 'INVALID_REQUEST' }],
      state: 'ERROR',
    });
    expect(parsePrismErrorBody(422, body)).toEqual([
      { reason: 'INVALID_REQUEST', message: 'Request could not be processed.', details: { '': ["'api_version' is a required property"] } },
    ]);
  });

  it('reads the AppMessages of the v4 error body, errorGroup as the reason and the code in details', () => {
    // The body a real PC answers for an unknown VM (ANS PR #1147).
    const body = JSON.stringify({
      $dataItemDiscriminator: 'vmm.v4.error.ErrorResponse',
      data: {
        $errorItemDiscriminator: 'List<vmm.v4.error.AppMessage>',
        error: [
          {
            $objectType: 'vmm.v4.error.AppMessage',
            code: 'VMM-30100',
            errorGroup: 'VM_NOT_FOUND',
            message: "Failed to perform the operation on the VM with UUID '1', because it is not found.",
            severity: 'ERROR',
          },
        ],
      },
    });
    expect(parsePrismErrorBody(404, body)).toEqual([
      { reason: 'VM_NOT_FOUND', message: "Failed to perform the operation on the VM with UUID '1', because it is not found.", details: { code: 'VMM-30100' } },
    ]);
  });

  it('turns a body that is not the v3 shape into one message with the status as reason', () => {
    expect(parsePrismErrorBody(401, 'Authentication required: send valid Basic credentials.\n')).toEqual([
      { reason: 'HTTP_401', message: 'Authentication required: send valid Basic credentials.' },
    ]);
    expect(parsePrismErrorBody(502, '<html>\n<body>Bad gateway</body></html>')).toEqual([
      { reason: 'HTTP_502', message: '<html> <body>Bad gateway</body></html>' },
    ]);
    expect(parsePrismErrorBody(500, '{"message_list":[]}')).toEqual([{ reason: 'HTTP_500', message: '{"message_list":[]}' }]);
  });
});

describe('PrismApiError', () => {
  it('names the request, status, reasons and details', () => {
    const error = new PrismApiError({ method: 'POST', path: '/vms' }, 422, [
      { reason: 'INVALID_REQUEST', message: 'Request could not be processed.', details: { spec: ["'name' is a required property"] } },
    ]);
    expect(error.message).toBe(
      'POST /vms: HTTP 422 INVALID_REQUEST: Request could not be processed. {"spec":["\'name\' is a required property"]}',
    );
    expect(error.reason).toBe('INVALID_REQUEST');
  });
});

describe('isEditConflict', () => {
  it('recognises the synchronous 409 of a PUT', () => {
    const conflict = new PrismApiError({ method: 'PUT', path: '/vms/x' }, 409, [
      { reason: 'CONCURRENT_REQUESTS_NOT_ALLOWED', message: 'Edit conflict: please retry change. Entity CAS version mismatch.' },
    ]);
    expect(isEditConflict(conflict)).toBe(true);
    expect(isEditConflict(new PrismApiError({ method: 'POST', path: '/vms' }, 409, []))).toBe(false);
  });

  it('recognises a task that failed with an edit conflict, and nothing else', () => {
    expect(
      isEditConflict({
        uuid: 't',
        status: 'FAILED',
        errorCode: 'CONCURRENT_REQUESTS_NOT_ALLOWED',
        errorDetail: 'CONCURRENT_REQUESTS_NOT_ALLOWED: Edit conflict: please retry change. Entity CAS version mismatch.',
      }),
    ).toBe(true);
    expect(isEditConflict({ uuid: 't', status: 'FAILED', errorDetail: 'Entity version mismatch' })).toBe(true);
    expect(isEditConflict({ uuid: 't', status: 'FAILED', errorCode: '27', errorDetail: 'NotSupported: …' })).toBe(false);
    expect(isEditConflict({ uuid: 't', status: 'SUCCEEDED' })).toBe(false);
  });
});
