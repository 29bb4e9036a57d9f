import type { PrinterColumn } from './define-custom-resource.ts';

/**
 * The columns our conventions put on every resource ("is it working?" at a glance, as cert-manager does): Ready and,
 * under `-o wide`, its reason, then Age. Declaring any printer column hides kubectl's default Age, so it is listed.
 */

export const READY_COLUMN: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};

export const REASON_COLUMN: PrinterColumn = {
  name: 'Reason',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
  priority: 1,
};

export const AGE_COLUMN: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
