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
  { files: ['**/*.mjs', '**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
