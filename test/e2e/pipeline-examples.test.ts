import { copyFile, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SERVICE_ENVIRONMENT } from '../../src/cli/command.js';
import { runInProcess, workspace } from '../helpers/cli.js';
import { git, run } from '../helpers/stand-in.js';

/**
 * The Action (action.yml) and the pipeline examples, checked by real validators
 * (@action-validator/cli for GitHub, gitlab-ci-local's schema check and rules for GitLab),
 * and against what the tool and the Action's script actually read and write.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const validator = join(root, 'node_modules', '@action-validator', 'cli', 'cli.mjs');
const gitlabCiLocal = join(root, 'node_modules', 'gitlab-ci-local', 'dist', 'index.js');
const workflowsDir = join(root, 'examples', 'github-actions');
const workflowNames = (await readdir(workflowsDir)).filter((name) => name.endsWith('.yml')).sort();
const read = (path: string) => readFile(join(root, path), 'utf8');

type Workflow = {
  on: Record<string, { paths?: string[]; branches?: string[] } | null>;
  permissions: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  jobs: Record<
    string,
    { env?: Record<string, string>; steps: Array<{ uses?: string; with?: Record<string, string> }> }
  >;
};
const workflows = Object.fromEntries(
  await Promise.all(
    workflowNames.map(
      async (name) => [name, parse(await read(`examples/github-actions/${name}`)) as Workflow] as const,
    ),
  ),
);
const action = parse(await read('action.yml')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { steps: Array<{ env?: Record<string, string> }> };
};
const actionText = await read('action.yml');
const scriptText = await read('ci/github-action.mjs');
const gitlabText = await read('examples/gitlab-ci.yml');

/** The service variables a file with audiences, a business and images needs, plan to apply: the commands' own list, without the colour settings. */
const SERVICE_VARIABLES = SERVICE_ENVIRONMENT.filter((name) => name !== 'NO_COLOR' && name !== 'FORCE_COLOR');

/** Every file `audiences plan` reads for the repository's sample: the file, the lock, the images and their inputs. */
async function filesTheToolReads(): Promise<string[]> {
  const sample = parse(await read('audiences.yaml')) as { images: Array<Record<string, unknown>> };
  const inputs = sample.images.flatMap((image) =>
    ['image', 'mask', 'reference_image']
      .map((field) => image[field])
      .filter((value): value is string => typeof value === 'string'),
  );
  return ['audiences.yaml', 'images.lock.json', ...sample.images.map((image) => String(image.output)), ...inputs];
}

describe('the GitHub Action and workflows', () => {
  it('pass @action-validator/cli', async () => {
    const files = ['action.yml', ...workflowNames.map((name) => `examples/github-actions/${name}`)];
    expect(workflowNames).toEqual(['audiences-apply.yml', 'audiences-drift.yml', 'audiences-plan.yml']);
    const results = await Promise.all(files.map((file) => run(process.execPath, [validator, file], { cwd: root })));
    results.forEach((result, i) => expect(result.code, `${files[i]}: ${result.stdout}${result.stderr}`).toBe(0));
  });

  it('agree with the Action: its inputs, outputs and the script that reads them', () => {
    const inputs = Object.keys(action.inputs);
    for (const [, name] of actionText.matchAll(/inputs\.([a-z-]+)/g)) expect(inputs, `inputs.${name}`).toContain(name);
    const mapped = Object.keys(action.runs.steps.find((step) => step.env?.INPUT_COMMAND)?.env ?? {});
    for (const [, name] of scriptText.matchAll(/env\.(INPUT_[A-Z_]+)/g)) expect(mapped, name).toContain(name);
    for (const [, name] of actionText.matchAll(/steps\.run\.outputs\.([a-z-]+)/g))
      expect(scriptText, `output ${name}`).toContain(`output('${name}'`);
    for (const [name, workflow] of Object.entries(workflows)) {
      const uses = Object.values(workflow.jobs).flatMap((job) =>
        job.steps.filter((step) => step.uses?.startsWith('your-org/audiences@')),
      );
      expect(uses, name).toHaveLength(1);
      for (const key of Object.keys(uses[0]?.with ?? {})) expect(inputs, `${name}: with.${key}`).toContain(key);
      expect(['plan', 'apply', 'drift']).toContain(uses[0]?.with?.command);
    }
  });

  it('give every job every service variable the file needs, and the permissions it uses', () => {
    for (const [name, workflow] of Object.entries(workflows)) {
      for (const job of Object.values(workflow.jobs))
        expect(Object.keys(job.env ?? {}).sort(), name).toEqual([...SERVICE_VARIABLES].sort());
    }
    expect(workflows['audiences-plan.yml']?.permissions).toMatchObject({ 'pull-requests': 'write' });
    expect(workflows['audiences-apply.yml']?.permissions).toMatchObject({
      contents: 'write',
      actions: 'read',
      'pull-requests': 'read',
    });
    expect(workflows['audiences-drift.yml']?.permissions).toMatchObject({ issues: 'write' });
    expect(workflows['audiences-apply.yml']?.concurrency).toMatchObject({
      group: 'audiences-apply',
      'cancel-in-progress': false,
    });
    expect(Object.keys(workflows['audiences-drift.yml']?.on ?? {})).toContain('schedule');
    for (const variable of [...SERVICE_VARIABLES, 'AUDIENCES_GITLAB_TOKEN', 'AUDIENCES_PUSH_TOKEN'])
      expect(gitlabText, variable).toContain(variable);
  });

  it('trigger on every file the tool reads', async () => {
    const read = await filesTheToolReads();
    for (const [name, trigger] of [
      ['audiences-plan.yml', workflows['audiences-plan.yml']?.on.pull_request],
      ['audiences-apply.yml', workflows['audiences-apply.yml']?.on.push],
    ] as const) {
      const matches = picomatch(trigger?.paths ?? [], { dot: true });
      for (const file of read) expect(matches(file), `${name} runs on a change to ${file}`).toBe(true);
    }
    const gitlab = parse(gitlabText) as Record<string, { rules?: Array<{ changes?: string[] }> }>;
    for (const job of ['audiences-plan', 'audiences-apply']) {
      const changes = gitlab[job]?.rules?.flatMap((rule) => rule.changes ?? []) ?? [];
      const matches = picomatch(changes, { dot: true });
      for (const file of read) expect(matches(file), `${job} runs on a change to ${file}`).toBe(true);
    }
  });
});

describe('the GitLab CI example', () => {
  it("passes gitlab-ci-local's schema check; a merge request runs the plan job alone, a schedule the drift job, a run by hand the apply job only to plan again", async () => {
    const repo = await mkdtemp(join(tmpdir(), 'audiences-gitlab-'));
    await copyFile(join(root, 'examples', 'gitlab-ci.yml'), join(repo, '.gitlab-ci.yml'));
    await git(repo, 'init', '--quiet', '--initial-branch=main');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '--quiet', '-m', 'CI');
    // A push runs the apply job: install-gitlab.test.ts runs it.
    const jobs = async (source: string, schema: boolean, variables: Record<string, string> = {}) => {
      const result = await run(
        process.execPath,
        [
          gitlabCiLocal,
          '--list-json',
          schema ? '--json-schema-validation' : '--no-json-schema-validation',
          '--no-evaluate-rule-changes',
          '--ignore-predefined-vars',
          'CI_PIPELINE_SOURCE',
          ...Object.entries({ CI_PIPELINE_SOURCE: source, ...variables }).flatMap(([name, value]) => [
            '--variable',
            `${name}=${value}`,
          ]),
        ],
        { cwd: repo },
      );
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as Array<{ name: string; when: string }>)
        .filter((job) => job.when !== 'never')
        .map((job) => job.name);
    };
    const [mergeRequest, schedule, byHand, byHandReplan] = await Promise.all([
      jobs('merge_request_event', true),
      jobs('schedule', false),
      jobs('web', false),
      jobs('web', false, { AUDIENCES_APPLY_MODE: 'replan' }),
    ]);
    await rm(repo, { recursive: true, force: true });
    // Run by hand, the apply job runs only to plan again: the way out of a refused saved plan.
    expect({ mergeRequest, schedule, byHand, byHandReplan }).toEqual({
      mergeRequest: ['audiences-plan'],
      schedule: ['audiences-drift'],
      byHand: [],
      byHandReplan: ['audiences-apply'],
    });
  });

  it("calls only the scripts of ci/ the package holds, and keeps the plan job's manifest for the apply", async () => {
    const scripts = [...gitlabText.matchAll(/node node_modules\/audiences\/(ci\/[\w-]+\.mjs)/g)].map(
      (match) => match[1]!,
    );
    expect(new Set(scripts)).toEqual(
      new Set(['ci/commit-back.mjs', 'ci/gitlab-note.mjs', 'ci/gitlab-apply.mjs', 'ci/gitlab-preview.mjs']),
    );
    const packed = (JSON.parse(await read('package.json')) as { files: string[] }).files;
    for (const script of scripts) {
      expect((await stat(join(root, script))).isFile(), script).toBe(true);
      expect(packed, script).toContain(script.split('/')[0]);
    }
    const gitlab = parse(gitlabText) as Record<string, { script: string[]; artifacts?: { paths: string[] } }>;
    const plan = gitlab['audiences-plan']!;
    const saved = /--out (\S+)/.exec(plan.script.join('\n'))?.[1];
    expect(plan.script.join('\n')).toContain(`gitlab-note.mjs plan.md --exit-code "$status" --plan ${saved}`);
    expect(plan.artifacts?.paths).toEqual(
      expect.arrayContaining([saved, 'audiences.plan.manifest.json', 'audiences.preview.json', 'audiences-previews/']),
    );
    // The preview's data, where the preview writes it, goes to the plan (and with the saved plan, to the apply).
    expect(plan.script.join('\n')).toContain('--preview audiences.preview.json');
  });

  it('uses only commands and options the tool has', async () => {
    const commands = [...gitlabText.matchAll(/npx audiences ([^\n|>&]+)/g)].map((match) =>
      (match[1] ?? '').trim().split(/\s+/),
    );
    expect(commands.length).toBeGreaterThanOrEqual(2);
    const cwd = await workspace({});
    for (const args of commands) {
      // No service and no file here: each command fails, but never on its arguments.
      const result = await runInProcess(args, { cwd, env: {} });
      expect(result.stderr, `audiences ${args.join(' ')}`).not.toContain('error[USAGE]');
      expect(result.stderr, `audiences ${args.join(' ')}`).not.toMatch(/Unknown argument|Invalid values/);
    }
  });
});

describe('the refs docs/pipelines.md and the examples name', () => {
  it('each exists in a clone of this repository: `git checkout` takes it', async () => {
    const doc = await read('docs/pipelines.md');
    const texts = [
      doc,
      actionText,
      gitlabText,
      ...(await Promise.all(workflowNames.map((name) => read(`examples/github-actions/${name}`)))),
    ];
    const refs = new Set([
      ...texts.flatMap((text) => [...text.matchAll(/your-org\/audiences@([^\s`'"),]+)/g)].map((match) => match[1]!)),
      ...[...doc.matchAll(/^git checkout (\S+)/gm)].map((match) => match[1]!),
      ...[...doc.matchAll(/audiences\.git#([^\s`'"]+)/g)].map((match) => match[1]!),
    ]);
    expect(refs.size).toBeGreaterThan(0);
    const dir = await mkdtemp(join(tmpdir(), 'audiences-clone-'));
    try {
      await git(dir, 'clone', '--quiet', '--no-checkout', root, 'audiences');
      for (const ref of refs) {
        const result = await run('git', ['checkout', '--quiet', ref], { cwd: join(dir, 'audiences') });
        expect(result.code, `git checkout ${ref}, in a clone: ${result.stderr}`).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
