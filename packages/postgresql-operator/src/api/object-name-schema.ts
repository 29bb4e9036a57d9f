import { Type } from 'typebox';
import { DNS_1123_SUBDOMAIN } from './formats.ts';

/** The name of an object in the PostgreSQL's namespace (a Secret, a ConfigMap), with a message naming the field. */
export const objectName = (field: string, description: string) =>
  Type.String({
    description,
    minLength: 1,
    maxLength: 253,
    'x-kubernetes-validations': [
      { rule: `self.matches('${DNS_1123_SUBDOMAIN}')`, message: `${field} must be a Kubernetes object name: lowercase letters, digits, '-' and '.'` },
    ],
  });
