// Lint, and the one-way import direction of STYLE.md enforced by configuration:
// cli → operations → {config, api, plan, apply, render} → model.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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

/** Planning and rendering are pure: no I/O, no network, no clock. */
const impure = ['node:*', 'fs', 'http', 'https', 'net', 'child_process', 'undici'];

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
          ...(folder === 'plan' || folder === 'render' ? [{ group: impure, message: `src/${folder} is pure: no I/O, network or clock.` }] : []),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '**/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  { files: ['scripts/**', 'bin/**', 'ci/**', 'test/**', '**/*.test.ts'], rules: { 'no-console': 'off' } },
  ...layerRules,
);
