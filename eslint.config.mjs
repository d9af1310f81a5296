// The linter of every TypeScript and JavaScript file: ESLint's and
// typescript-eslint's recommended rules (tsc checks the types); run by
// npm test before the tests.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'build-*/**', 'native/third_party/**', 'node_modules/**', 'test/fixtures/generated/**', 'bench-results/**', '.tap/**', '.dev-workers/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }]
    }
  },
  // Tests read JSON bodies whose shape is what they check.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['public/**/*.js'], languageOptions: { globals: { ...globals.browser } } }
)
