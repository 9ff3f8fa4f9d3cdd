import { mkdtempSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

type TestOptions = NonNullable<ViteUserConfig['test']>;

/** Builds dist/ and the bundle once per run, for the projects that run the built command. */
const build = ['test/helpers/global-setup.ts'];

/** Removes the folders each test file made (see test/helpers/temporary.ts). */
const setupFiles = ['test/helpers/remove-temporary.ts'];

/**
 * The integration files mostly wait (on the commands, npm and git they spawn, on paced requests), so they run two at a
 * time at least: Vitest's default, one worker less than the cores, is a single worker on a machine of two.
 */
const integrationWorkers = Math.max(2, availableParallelism() - 1);

/** Tests of src/ that serve or call HTTP on loopback: the transport and the emulator. */
const loopback = ['src/api/http.test.ts', 'src/emulator/**/*.test.ts'];

/**
 * The coverage floor of the pure core, over the unit project alone (`npm run test:coverage`, a
 * step of `npm test`): what its own tests and the golden plans reach, not what the end-to-end
 * tests happen to run through. Vitest measures coverage over a whole run, so the integration
 * project runs apart, without it. The thresholds sit a little under what the unit project
 * reaches, so that a large untested addition fails; the generated validators are left out.
 */
const coverage: TestOptions['coverage'] = {
  provider: 'v8',
  include: ['src/plan/**', 'src/render/**', 'src/config/**', 'src/model/**'],
  exclude: ['**/generated/**', '**/*.test.ts'],
  reporter: ['text-summary', 'html'],
  thresholds: { statements: 92, branches: 84, functions: 92, lines: 93 },
};

/**
 * With AUDIENCES_TEST_REPORTS set to a folder, each run also writes its JSON report in a new
 * folder of its own there, so that CI (.ci/run) counts the tests of every run `npm test` makes.
 */
const reportsDir = process.env['AUDIENCES_TEST_REPORTS'];
const report = reportsDir ? join(mkdtempSync(join(reportsDir, 'run-')), 'report.json') : undefined;
const reporters: TestOptions['reporters'] = report ? ['default', ['json', { outputFile: report }]] : ['default'];

/**
 * Three projects: `unit` (the pure code, the planner's properties and the golden plans: no
 * build, no network), `integration` (the transport, the emulator, the generator and the real
 * command over loopback, after one build), `bench` (the benchmark's smoke test). `npm test`
 * runs unit (with coverage) then integration, `npm run test:unit` unit alone, `npm run
 * test:bench` the bench; CI runs all three.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles,
    coverage,
    reporters,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Projects of different maxWorkers each need a group of their own, or `vitest run` of files from several of them
          // refuses to start: unit first, then integration, then the bench.
          sequence: { groupOrder: 0 },
          include: [
            'src/**/*.test.ts',
            'test/architecture/**/*.test.ts',
            'test/golden/**/*.test.ts',
            'test/comments/**/*.test.ts',
            'test/property/planner.property.test.ts',
            'test/property/plain-yaml.property.test.ts',
            'test/docs.test.ts',
          ],
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
          maxWorkers: integrationWorkers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'bench', include: ['test/bench-smoke.test.ts'], globalSetup: build, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
