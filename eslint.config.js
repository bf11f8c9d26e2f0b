// Lint rules for the whole repository: typescript-eslint with type information (each file checked against its own
// package's tsconfig through the project service), React's hook rules for the dashboard; formatting is Prettier's job.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/generated/**', 'docs/**', '.tsbuild/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Root config files belong to no package: they are checked with tsconfig.tools.json.
        projectService: { allowDefaultProject: ['*.ts', '*.js'], defaultProject: 'tsconfig.tools.json' },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Ports return promises: an in-memory or synchronous implementation is an async function without an await.
      '@typescript-eslint/require-await': 'off',
      // A `let` read by a callback written before its one assignment (wiring that refers forward) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_`-prefixed names are deliberately unused (destructuring a field away, an interface's parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Black-box tests read JSON answers from HTTP: untyped by nature, checked by their assertions.
    files: ['tests/**/*.ts', '**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Rejecting with whatever a callback handed over, and `any` in a parsed answer's shape, are the tests' business.
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Property-based tests build text from arbitrary values on purpose.
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  {
    // Plain JavaScript launchers and hooks outside any TypeScript project.
    files: ['**/bin/*.js', '**/bin/*.mjs', '**/*.cjs', 'eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', module: 'writable', require: 'readonly' },
    },
  },
  {
    // CommonJS hooks read by pnpm and dependency-cruiser.
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
