import { defineConfig } from 'vitest/config';

/** Builds dist/ and the bundle once per run, for the projects that run the built command. */
const build = ['test/helpers/global-setup.ts'];

/** Removes the folders each test file made (see test/helpers/temporary.ts). */
const setupFiles = ['test/helpers/remove-temporary.ts'];

/** Tests of src/ that serve or call HTTP on loopback: the transport and the emulator. */
const loopback = ['src/api/http.test.ts', 'src/emulator/**/*.test.ts'];

/**
 * Three projects: `unit` (the pure code, the planner's properties and the golden plans: no
 * build, no network), `integration` (the transport, the emulator, the generator and the real
 * command over loopback, after one build), `bench` (the benchmark's smoke test). `npm test`
 * runs unit and integration, `npm run test:unit` unit alone, `npm run test:bench` the bench;
 * CI runs all three.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/golden/**/*.test.ts', 'test/comments/**/*.test.ts', 'test/property/planner.property.test.ts', 'test/property/plain-yaml.property.test.ts'],
          exclude: loopback,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [
            'test/e2e/**/*.test.ts',
            'test/api/**/*.test.ts',
            'test/property/apply.property.test.ts',
            'test/property/apply-outcomes.property.test.ts',
            'test/generated-types.test.ts',
            ...loopback,
          ],
          globalSetup: build,
        },
      },
      { extends: true, test: { name: 'bench', include: ['test/bench-smoke.test.ts'], globalSetup: build } },
    ],
  },
});
