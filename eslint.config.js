// Lint, and the one-way import direction of STYLE.md enforced by configuration:
// cli → operations → {config, api, plan, apply, render} → model.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import noImportCycle from './eslint-rules/no-import-cycle.js';

const layer = (name) => [`../${name}/*`, `../../${name}/*`, `../${name}`, `../../${name}`];

/** Each folder of src/ and the layers it must not import. */
const forbidden = {
  model: ['config', 'api', 'plan', 'apply', 'render', 'operations', 'cli', 'emulator'],
  config: ['api', 'plan', 'apply', 'render', 'operations', 'cli', 'emulator'],
  api: ['config', 'plan', 'apply', 'render', 'operations', 'cli', 'emulator'],
  plan: ['config', 'api', 'apply', 'render', 'operations', 'cli', 'emulator'],
  apply: ['config', 'render', 'operations', 'cli', 'emulator'],
  render: ['config', 'api', 'apply', 'operations', 'cli', 'emulator'],
  operations: ['cli'],
  // The emulator implements the spec on its own: it shares no code with the client.
  emulator: ['model', 'config', 'api', 'plan', 'apply', 'render', 'operations', 'cli'],
};

/** Planning, rendering and the model are pure: no I/O, no network, no clock. */
const pure = ['model', 'plan', 'render'];
const impure = ['node:*', 'fs', 'http', 'https', 'net', 'child_process', 'undici'];

/** What reads the clock, the process or chance without an import: a pure module gets them from its caller. */
const pureRules = {
  files: pure.map((folder) => `src/${folder}/**/*.ts`),
  ignores: ['src/**/*.test.ts'],
  rules: {
    'no-restricted-globals': [
      'error',
      ...['process', 'fetch', 'performance', 'crypto', 'setTimeout', 'setInterval', 'setImmediate'].map((name) => ({
        name,
        message: 'this folder is pure: no I/O, network or clock.',
      })),
    ],
    'no-restricted-properties': [
      'error',
      { object: 'Date', property: 'now', message: 'this folder is pure: no clock.' },
      { object: 'Math', property: 'random', message: 'this folder is pure: its output is deterministic.' },
    ],
    'no-restricted-syntax': [
      'error',
      { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'this folder is pure: no clock.' },
    ],
  },
};

const layerRules = Object.entries(forbidden).map(([folder, layers]) => ({
  files: [`src/${folder}/**/*.ts`],
  ignores: ['src/**/*.test.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: layers.flatMap(layer),
            message: `src/${folder} must not import this layer (see STYLE.md: imports point one way).`,
          },
          ...(pure.includes(folder)
            ? [{ group: impure, message: `src/${folder} is pure: no I/O, network or clock.` }]
            : []),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  // test/fixtures/lint/ holds code the lint must refuse, linted only by its test (eslint-rules/).
  { ignores: ['dist/', 'node_modules/', 'coverage/', '**/generated/', 'test/fixtures/lint/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { local: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
      'local/no-import-cycle': 'error',
    },
  },
  { files: ['scripts/**', 'bin/**', 'ci/**', 'test/**', '**/*.test.ts'], rules: { 'no-console': 'off' } },
  ...layerRules,
  pureRules,
);
