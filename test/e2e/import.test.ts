/**
 * `audiences import`: a varied live account (every field family, targeting members that come
 * back with server-added names, depth-2 and depth-3 regions, names YAML must quote, a name
 * used twice) becomes a file that validates and plans to no changes.
 */
import { execFileSync } from 'node:child_process';
import { lstat, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ApiError } from '../../src/api/api-error.js';
import type { AudienceClient } from '../../src/api/audiences.js';
import { seedState } from '../../src/emulator/seed.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { AudienceDefinition } from '../../src/model/index.js';
import { importAccount } from '../../src/operations/import.js';
import { definition, storedAudience } from '../helpers/builders.js';
import { emulatorEnv, runInProcess, workspace } from '../helpers/cli.js';
import { connectClient, linkAdGroup, type LiveClient } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;
let live: LiveClient;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
  live = connectClient(emulator);
});
afterEach(async () => {
  await live.close();
  await emulator.close();
});

/** Audiences that between them use every field the service has, in the forms it answers with. */
const varied: Array<Partial<AudienceDefinition> & { name: string }> = [
  {
    name: 'seoul-women-20s',
    ageType: 'NOT_ALL',
    ages: ['20', '25'],
    genderType: 'NOT_ALL',
    genders: ['F'],
    locationType: 'AREA',
    locations: [{ value: 'I' }, { value: 'B' }],
    depth2Locations: [{ value: 'H01' }],
    depth3Locations: [{ value: 'I0401' }, { value: 'N0102' }],
    ufoInterests: ['FASHION', 'BEAUTY'],
    ufoBusinessTypes: ['RETAIL'],
    customerFileTargetings: [{ customerFileId: 5001, inclusionType: 'INCLUDE' }],
    trackerTargetings: [
      { trackId: 'trk-web', eventCode: 'purchase', retentionDays: 30, inclusionType: 'EXCLUDE' },
      { trackId: 'trk-web', eventCode: 'cart', retentionDays: 7, inclusionType: 'INCLUDE' },
    ],
    cohortTargetings: [{ cohortId: 7001, inclusionType: 'INCLUDE' }],
    talkChannelTargetings: [{ profileId: '_brand', inclusionType: 'INCLUDE' }],
    syncAppTargetings: [{ profileId: 'app-main', inclusionType: 'EXCLUDE' }],
  },
  {
    name: 'channel friends',
    type: 'MESSAGE',
    locationType: 'AREA',
    depth3Locations: [{ value: 'I0101' }],
    talkChannelGroupTargetings: [
      { groupId: 9001, inclusionType: 'INCLUDE' },
      { groupId: 9002, inclusionType: 'EXCLUDE' },
    ],
    cohortTargetings: [{ cohortId: 7002, inclusionType: 'INCLUDE' }],
  },
  { name: 'everyone' },
  { name: 'overseas', locationType: 'AREA', locations: [{ value: 'Z' }], genderType: 'NOT_ALL', genders: ['M', 'F'] },
  // Names a careless writer would turn into something else: a boolean, a number, a comment, a map, null.
  { name: 'yes' },
  { name: '1234' },
  { name: '# not a comment' },
  { name: 'key: value' },
  { name: 'null' },
  { name: ' padded ', ageType: 'NOT_ALL', ages: ['65'] },
  { name: '서울 여성 "VIP"' },
  { name: "it's" },
  { name: '*star' },
  { name: '&anchor' },
  { name: '!tag' },
  { name: '@at' },
  { name: '`tick' },
  { name: '%percent' },
  { name: '---' },
  { name: 'trailing\\' },
];

async function seedVariedAccount(): Promise<{ twins: string[] }> {
  for (const audience of varied) await live.client.create(definition({ type: 'DISPLAY', ...audience }));
  const firstTwin = await live.client.create(definition({ name: 'twin', ufoInterests: ['GAME'] }));
  const secondTwin = await live.client.create(definition({ name: 'twin', ufoInterests: ['PETS'] }));
  await linkAdGroup(emulator, firstTwin.id, 101);
  return { twins: [firstTwin.id, secondTwin.id] };
}

describe('audiences import', () => {
  it('writes a file that validates and plans to no changes, pinning ids and keeping the first of a repeated name', async () => {
    const { twins } = await seedVariedAccount();
    const cwd = await workspace({});

    const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'imported.yaml'], { cwd, env });
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain(`Imported ${varied.length + 1} audiences of ad account 1234 into imported.yaml.`);
    expect(imported.stderr).toContain(
      `warning: "twin" (id ${twins[1]}) was not imported: another audience has its name`,
    );

    const text = await readFile(join(cwd, 'imported.yaml'), 'utf8');
    const file = parse(text) as {
      adAccountId: number;
      prune: boolean;
      audiences: Array<{ name: string; id: number; [field: string]: unknown }>;
    };
    expect(file.adAccountId).toBe(1234);
    expect(file.prune).toBe(false);
    expect(file.audiences.map((audience) => audience.name).sort()).toEqual(
      [...varied.map((audience) => audience.name), 'twin'].sort(),
    );
    expect(file.audiences.find((audience) => audience.name === 'twin')?.id).toBe(Number(twins[0]));
    // Members as a request takes them: the names the service adds stay out of the file.
    expect(text).not.toMatch(/customerFileName|trackName|cohortName|profileName|groupName/);
    const seoul = file.audiences.find((audience) => audience.name === 'seoul-women-20s');
    expect(seoul).toMatchObject({
      depth2Locations: ['H01'],
      depth3Locations: expect.arrayContaining(['I0401', 'N0102']),
    });

    expect((await runInProcess(['validate', '-f', 'imported.yaml'], { cwd, env })).code).toBe(0);
    const plan = await runInProcess(['plan', '-f', 'imported.yaml', '--detailed-exitcode'], { cwd, env });
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  it('writes to standard output without -o', async () => {
    await seedVariedAccount();
    const cwd = await workspace({});
    const imported = await runInProcess(['import', '--ad-account', '1234'], { cwd, env });
    expect(imported.code).toBe(0);
    await writeFile(join(cwd, 'audiences.yaml'), imported.stdout);
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it("names the schema where a teammate's clone has it: in the project's node_modules when its package.json lists the tool, else not at all", async () => {
    await seedVariedAccount();
    const installed = 'node_modules/audiences/schemas/audiences.schema.json';
    const project = await workspace({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'package.json': JSON.stringify({
        name: 'ads',
        devDependencies: { audiences: 'file:vendor/audiences-0.2.0.tgz' },
      }),
      [installed]: '{}',
      'ads/README.md': 'the shop account\n',
    });
    const firstLine = (text: string) => text.slice(0, text.indexOf('\n'));
    const runs: Array<{ cwd: string; out?: string; ref: string }> = [
      { cwd: project, out: 'audiences.yaml', ref: installed },
      { cwd: project, out: 'ads/shop.yaml', ref: `../${installed}` },
      { cwd: join(project, 'ads'), ref: `../${installed}` },
    ];
    for (const { cwd, out, ref } of runs) {
      const imported = await runInProcess(
        ['import', '--ad-account', '1234', ...(out === undefined ? [] : ['-o', out])],
        { cwd, env },
      );
      expect(imported.code).toBe(0);
      const text = out === undefined ? imported.stdout : await readFile(join(cwd, out), 'utf8');
      expect(firstLine(text)).toBe(`# yaml-language-server: $schema=${ref}`);
      expect(join(cwd, dirname(out ?? '.'), ref)).toBe(join(project, installed));
    }
    // A clone of the tool elsewhere is no path for a teammate: no line, rather than one that leads out of the project.
    const unlisted = await workspace({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'package.json': JSON.stringify({ name: 'ads', devDependencies: { other: '1.0.0' } }),
    });
    const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml'], {
      cwd: unlisted,
      env,
    });
    expect(imported.code).toBe(0);
    const text = await readFile(join(unlisted, 'audiences.yaml'), 'utf8');
    expect(text).not.toContain('$schema');
    expect(firstLine(text)).toMatch(/^# Imported from ad account 1234 \(\d+ audiences\)\.$/);
  });

  it('imports only the names that match --name', async () => {
    await seedVariedAccount();
    const cwd = await workspace({});
    const imported = await runInProcess(
      ['import', '--ad-account', '1234', '--name', 'seoul-*', '--name', 'channel*', '-o', 'some.yaml'],
      { cwd, env },
    );
    expect(imported.code).toBe(0);
    const file = parse(await readFile(join(cwd, 'some.yaml'), 'utf8')) as { audiences: Array<{ name: string }> };
    expect(file.audiences.map((audience) => audience.name).sort()).toEqual(['channel friends', 'seoul-women-20s']);
    expect((await runInProcess(['plan', '-f', 'some.yaml', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('matches --name globs against names as plain text: `.` and `..` segments are characters like any other', async () => {
    for (const name of ['legacy-x/.', 'legacy-a/./b', 'legacy-../..', 'other'])
      await live.client.create(definition({ name }));
    const cwd = await workspace({});
    const imported = await runInProcess(['import', '--ad-account', '1234', '--name', 'legacy-*', '-o', 'some.yaml'], {
      cwd,
      env,
    });
    expect(imported.code).toBe(0);
    const file = parse(await readFile(join(cwd, 'some.yaml'), 'utf8')) as { audiences: Array<{ name: string }> };
    expect(file.audiences.map((audience) => audience.name).sort()).toEqual([
      'legacy-../..',
      'legacy-a/./b',
      'legacy-x/.',
    ]);
  });

  it('refuses a --name glob that another glob dialect reads otherwise, before reading the account', async () => {
    const refused = await runInProcess(['import', '--ad-account', '1234', '--name', '{seoul,busan}-*'], {
      cwd: await workspace({}),
      env,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error[USAGE]: --name "{seoul,busan}-*" is not a name glob: `{` is not glob syntax here (no braces, groups or extglobs)\n' +
        '  hint: write `\\` before a character to match it as it is; for alternatives, write one glob each (\\{seoul,busan\\}-*)\n',
    );
  });

  it('leaves out, with a note and a warning, an audience whose name a file cannot hold', async () => {
    // The API refuses control characters in a name; such an audience was made elsewhere (the
    // ad manager, an older service), so it is planted in the emulator's state.
    const dir = await workspace({});
    const state = seedState();
    const odd = 'two\nlines\n  - name: injected';
    const oddId = state.nextAudienceId;
    state.audiences.push(
      { ...storedAudience(oddId, odd), ufoInterests: ['GAME'] },
      storedAudience(String(Number(oddId) + 1), 'plain'),
    );
    state.nextAudienceId = String(Number(oddId) + 2);
    await writeFile(join(dir, 'state.json'), JSON.stringify(state));
    await live.close();
    await emulator.close();
    ({ emulator, env } = await emulatorEnv({ statePath: join(dir, 'state.json') }));
    live = connectClient(emulator);

    const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'imported.yaml'], { cwd: dir, env });
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain(
      `warning: ${JSON.stringify(odd)} (id ${oddId}) was not imported: a file cannot hold it (name: ${JSON.stringify(odd)} must be 1 to 255 characters`,
    );
    const text = await readFile(join(dir, 'imported.yaml'), 'utf8');
    expect(text).toContain(`# Not imported: ${JSON.stringify(odd)} (id ${oddId}): a file cannot hold it`);
    expect((parse(text) as { audiences: Array<{ name: string }> }).audiences.map((audience) => audience.name)).toEqual([
      'plain',
    ]);
    expect((await runInProcess(['plan', '-f', 'imported.yaml', '--detailed-exitcode'], { cwd: dir, env })).code).toBe(
      0,
    );
  });

  it('leaves out, with a note, an audience whose answer it cannot read, and imports the others', async () => {
    const odd = await live.client.create(definition({ name: 'odd-answer' }));
    await live.client.create(definition({ name: 'fine' }));
    const unreadable: AudienceClient = {
      ...live.client,
      read: async (id) => {
        if (id !== odd.id) return live.client.read(id);
        throw new ApiError({
          service: 'audience',
          method: 'GET',
          path: `/openapi/v4/targetings/${id}`,
          kind: 'invalid-response',
          status: 200,
          reason: 'not an AudienceDetail: cohortTargetings[0].cohortId must be integer or string',
          ambiguous: false,
          attempts: 1,
        });
      },
    };
    const result = await importAccount(
      { adAccountId: 1234, out: undefined, force: false, names: [] },
      unreadable,
      process.cwd(),
    );
    expect(result.imported).toBe(1);
    expect(result.skipped).toMatchObject([
      { audience: { id: odd.id }, reason: expect.stringContaining('its answer cannot be read') },
    ]);
    expect(result.text).toContain(`# Not imported: "odd-answer" (id ${odd.id}): its answer cannot be read`);
    expect(
      (parse(result.text) as { audiences: Array<{ name: string }> }).audiences.map((audience) => audience.name),
    ).toEqual(['fine']);
  });

  it("keeps the service's status and date inside their comment, escapes and line breaks written out", async () => {
    const made = await live.client.create(definition({ name: 'kept' }));
    const forged = 'AVAILABLE\u0085  - name: injected\n    type: MESSAGE\u001b]0;owned\u0007';
    const odd: AudienceClient = {
      ...live.client,
      read: async (id) => ({
        ...(await live.client.read(id)),
        audienceStatus: forged,
        lastModifiedDate: '2026-01-01\r',
      }),
    };
    const result = await importAccount(
      { adAccountId: 1234, out: undefined, force: false, names: [] },
      odd,
      process.cwd(),
    );
    expect(result.text).toContain(
      '# AVAILABLE\\u0085  - name: injected\\n    type: MESSAGE\\u001b]0;owned\\u0007, population',
    );
    expect(result.text).toContain('last modified 2026-01-01\\r\n');
    // eslint-disable-next-line no-control-regex -- no control character but the line breaks may be left
    expect(result.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(parse(result.text)).toMatchObject({ audiences: [{ name: 'kept', id: Number(made.id) }] });
  });

  it('refuses to overwrite a file unless --force', async () => {
    await live.client.create(definition({ name: 'only' }));
    const cwd = await workspace({ 'audiences.yaml': 'precious: true\n' });
    const refused = await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml'], { cwd, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[FILE_EXISTS]: audiences.yaml already exists');
    expect(refused.stderr).toContain('--force');
    expect(await readFile(join(cwd, 'audiences.yaml'), 'utf8')).toBe('precious: true\n');

    const forced = await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml', '--force'], {
      cwd,
      env,
    });
    expect(forced.code).toBe(0);
    expect(await readFile(join(cwd, 'audiences.yaml'), 'utf8')).toContain('name: only');
  });

  it('never replaces a device or a FIFO, even with --force', async () => {
    await live.client.create(definition({ name: 'only' }));
    const cwd = await workspace({});
    execFileSync('mkfifo', [join(cwd, 'pipe')]);
    // A link to the device, not the device: were the check to fail, the link is what a write replaces.
    await symlink('/dev/null', join(cwd, 'null'));
    for (const target of ['pipe', 'null']) {
      const refused = await runInProcess(['import', '--ad-account', '1234', '-o', target, '--force'], { cwd, env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `error[FILE_EXISTS]: ${target} already exists and is not a regular file (a device, a FIFO or a socket)`,
      );
    }
    expect((await stat(join(cwd, 'pipe'))).isFIFO()).toBe(true);
    expect((await lstat(join(cwd, 'null'))).isSymbolicLink()).toBe(true);
  });
});
