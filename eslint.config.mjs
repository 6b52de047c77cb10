import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'clients/*/dist/',
      'node_modules/',
      'coverage/',
      'eslint.config.mjs',
      // The reference PDS's launcher runs on its own Node, outside the TypeScript project.
      'test/support/pds/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              importNames: ['IsOptional'],
              message:
                'IsOptional lets null through unvalidated; use Omittable (src/http/input/omittable.ts).',
            },
          ],
        },
      ],
    },
  },
  { files: ['bench/**', 'scripts/**', 'test/**'], rules: { 'no-console': 'off' } },
  // A platform's descriptor requires its Nest side when the application is assembled, not when
  // the registration list loads (see PlatformDescriptor.nest).
  {
    files: ['src/domains/platforms/*/*.descriptor.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
    },
    languageOptions: {
      parserOptions: { projectService: false },
      globals: { require: 'readonly', process: 'readonly', __dirname: 'readonly' },
    },
  },
);
