import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // docs/examples/nestjs and bench/nestjs are packages of their own (decorators, their own
  // tsconfig and dependencies).
  { ignores: ['node_modules', '.local', 'coverage', 'docs/examples/nestjs', 'bench/nestjs'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./){3,}',
              message:
                "Import the project's own modules through package.json's imports map (#shared/…, #local/…) instead of climbing three folders.",
            },
          ],
        },
      ],
    },
  },
  {
    // A module longer than this holds more than one concern: split it by what it does.
    files: ['{services,shared,deploy,bench,chaos,tooling,scripts}/**/*.{ts,mjs}'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    // A function longer than this does more than one step: name the steps.
    files: ['{services,shared,deploy/local,bench,chaos,tooling}/**/*.{ts,mjs}'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
