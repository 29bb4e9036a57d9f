// One flat config for the whole workspace: typescript-eslint's strict and stylistic type-checked rules,
// with the project service finding each package's tsconfig.json.
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/.nx/**'] },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Numbers and booleans in log and error messages are fine; objects still are not.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // client-node's models (V1Pod, V1ObjectMeta, ...) are classes only for its own serializer; the API
      // speaks plain JSON, so plain objects of those shapes are exactly what the types describe.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  {
    // The manager owns the per-process plumbing, so that one recorder aggregates a controller's Events and one writer
    // remembers a field manager's status writes, whichever reconciler sends them.
    files: ['packages/{maintpage,postgresql,nutanix-ahvvm}-operator/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: "NewExpression[callee.name='EventRecorder']", message: 'Ask the manager: manager.eventRecorderFor(reportingController) reports as this Pod, one recorder per controller.' },
        { selector: "NewExpression[callee.name='StatusWriter']", message: 'Ask the manager: manager.statusWriter(fieldManager), one writer per field manager.' },
        { selector: "MemberExpression[property.name='POD_NAME']", message: 'Use manager.podName (POD_NAME, else the hostname), worked out once by the manager.' },
      ],
    },
  },
  {
    // A reconcile reads as its named steps: a function a reader cannot hold in one screen is split (ARCHITECTURE.md).
    files: ['packages/{maintpage,postgresql,nutanix-ahvvm}-operator/src/controller/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  { files: ['**/*.mjs', '**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
