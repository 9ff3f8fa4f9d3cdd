import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import type { WireTypes } from '../src/api/generated/wire.js';
import type { CompiledValidator } from '../src/api/generated/wire-validators.js';
import {
  checkWire,
  validateWire,
  wireTypeNames,
  type WireTypeName,
  type WireValidation,
} from '../src/api/wire-schemas.js';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Generated {
  out: string;
  text: string;
}
interface Entry {
  kind: string;
  out: string;
}
const script = (await import(pathToFileURL(join(root, 'scripts/generate.mjs')).href)) as {
  generate: (root: string) => Promise<Generated[]>;
  entries: Entry[];
  compileSchemas: (
    root: string,
    entry: Entry,
  ) => { ajv: { getSchema: (ref: string) => CompiledValidator<unknown> | undefined }; refs: Record<string, string> };
};

/**
 * The API's schemas compiled as the command's validators are, every title among them (the command has validators for
 * its answers only).
 */
const wireEntry = script.entries.find(
  (entry) => entry.kind === 'validators' && entry.out === 'src/api/generated/wire-validators.ts',
);
if (wireEntry === undefined) throw new Error('scripts/generate.mjs has no entry for the wire validators');
const wireSchemas = script.compileSchemas(root, wireEntry);

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('generated types', () => {
  it('match the schemas (run npm run generate after changing a schema)', async () => {
    const results = await script.generate(root);
    expect(results.map((result) => result.out)).toContain('src/api/generated/wire.ts');
    for (const { out, text } of results) {
      const committed = existsSync(join(root, out)) ? readFileSync(join(root, out), 'utf8') : '(missing)';
      expect(committed, `${out} is stale: run npm run generate`).toBe(text);
      expect(text.startsWith('// Generated from ')).toBe(true);
      expect(text).toContain('by npm run generate. Do not edit.');
    }
  });

  it('notice a schema change that was not regenerated', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'audiences-generate-'));
    scratch.push(copy);
    cpSync(join(root, 'schemas/api'), join(copy, 'schemas/api'), { recursive: true });
    const file = join(copy, 'schemas/api/business-api.schema.json');
    const schema = JSON.parse(readFileSync(file, 'utf8')) as { properties: Record<string, unknown> };
    schema.properties['taxOffice'] = { type: 'string' };
    writeFileSync(file, JSON.stringify(schema));
    const [result] = await script.generate(copy);
    expect(result?.out).toBe('src/api/generated/wire.ts');
    expect(result?.text).toContain('taxOffice?: string');
    expect(result?.text).not.toBe(readFileSync(join(root, 'src/api/generated/wire.ts'), 'utf8'));
  });

  it('skip entries whose schemas do not exist', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'audiences-generate-'));
    scratch.push(empty);
    expect(await script.generate(empty)).toEqual([]);
  });
});

describe('wire schemas', () => {
  it('compile in ajv strict mode, each with an $id and a title', () => {
    const ajv = new Ajv({ strict: true, strictRequired: false, allErrors: true });
    const dir = join(root, 'schemas/api');
    const files = readdirSync(dir).filter((name) => name.endsWith('.schema.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const name of files) {
      const schema = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
        $id?: string;
        title?: string;
        definitions?: object;
      };
      expect(schema.$id, name).toMatch(/^https:\/\//);
      expect(schema.title, name).toMatch(/^[A-Z][A-Za-z0-9]*$/);
      ajv.addSchema(schema);
    }
    for (const name of files) {
      const schema = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { $id: string; definitions?: object };
      expect(ajv.getSchema(schema.$id), name).toBeTypeOf('function');
      for (const key of Object.keys(schema.definitions ?? {})) {
        expect(ajv.getSchema(`${schema.$id}#/definitions/${key}`), `${name} ${key}`).toBeTypeOf('function');
      }
    }
  });

  it('know every body the brief lists', () => {
    const names = Object.keys(wireSchemas.refs);
    for (const name of [
      'AudienceListItem',
      'AudienceListResponse',
      'AudienceDetail',
      'AudienceCreateBody',
      'AudienceUpdateBody',
      'AudienceWriteResponse',
      'BatchDeleteResult',
      'AudienceAdGroup',
      'AudienceAdGroupListResponse',
      'CampaignTypeGoal',
      'Location',
      'Depth2Location',
      'Depth3Location',
      'Company',
      'Address',
      'TextToImageRequest',
      'VariationsRequest',
      'InpaintingRequest',
      'FaceRefiner',
      'ImageGenerationResponse',
      'ErrorBody',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('have a validator in the command for each answer its clients read, and for nothing else', () => {
    const dir = join(root, 'src/api');
    const sources = readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    const read = sources.flatMap((name) =>
      [...readFileSync(join(dir, name), 'utf8').matchAll(/response: '(\w+)'/g)].map((match) => match[1]),
    );
    expect(read.length).toBeGreaterThanOrEqual(7);
    expect(wireTypeNames()).toEqual([...new Set(read)].sort());
  });
});

/**
 * A body checked against its schema: by the command's own validator when it has one (the
 * answers), otherwise compiled here the same way; both say their problems as the command does.
 */
function check(name: keyof WireTypes, body: unknown): WireValidation<unknown> {
  if ((wireTypeNames() as string[]).includes(name)) return validateWire(name as WireTypeName, body);
  const ref = wireSchemas.refs[name];
  const validate = ref === undefined ? undefined : wireSchemas.ajv.getSchema(ref);
  if (validate === undefined) throw new Error(`no schema has the title ${name}`);
  return checkWire(validate, body);
}

const accepts = (name: keyof WireTypes, body: unknown) =>
  expect(check(name, body), JSON.stringify(body)).toMatchObject({ ok: true });
const rejects = (name: keyof WireTypes, body: unknown, issue: RegExp) => {
  const result = check(name, body);
  expect(result.ok, JSON.stringify(body)).toBe(false);
  if (!result.ok) expect(result.issues.join('\n')).toMatch(issue);
};

/** A single read the way the spec's examples write it: lower-case depth2locations, misspelt description. */
const quirkyDetail = {
  id: 1201,
  name: 'seoul-women-20s',
  audienceStatus: 'AVAILABLE',
  type: 'DISPLAY',
  createdDate: '2024-03-01T09:00:00',
  lastModifiedDate: '2024-03-02T10:30:00',
  populationScore: 120000,
  ageType: 'NOT_ALL',
  ages: ['20', '25'],
  genderType: 'NOT_ALL',
  genders: ['F'],
  locations: [{ value: 'I', description: 'Seoul', depth1Name: 'Seoul' }],
  depth2locations: [{ value: 'I01', descripton: 'Gangnam-gu', depth1Name: 'Seoul' }],
  depth3Locations: [
    {
      value: 'I0101',
      descripton: 'Yeoksam-dong',
      depth1Name: 'Seoul',
      depth2Name: 'Gangnam-gu',
      depth3Name: 'Yeoksam-dong',
    },
  ],
  ufoInterests: ['TRAVEL'],
  ufoBusinessTypes: null,
  customerFileTargetings: [{ customerFileId: 7, inclusionType: 'INCLUDE', customerFileName: 'vip list' }],
  trackerTargetings: null,
  cohortTargetings: [],
  talkChannelTargetings: null,
  syncAppTargetings: [],
  talkChannelGroupTargetings: null,
  somethingNew: { the: 'service added a field' },
};

describe('answers tolerate extra fields and the documented quirks', () => {
  it('single read with depth2locations, descripton, null sets and an unknown field', () => {
    accepts('AudienceDetail', quirkyDetail);
  });

  it('create/update answer with adAccountId and the swapped region shapes', () => {
    accepts('AudienceWriteResponse', {
      ...quirkyDetail,
      adAccountId: 1234,
      depth2Locations: [{ value: 'I01', description: 'Gangnam-gu', depth1Name: 'Seoul', depth2Name: 'Gangnam-gu' }],
      depth3Locations: [{ value: 'I0101', description: 'Yeoksam-dong', depth1Name: 'Seoul' }],
    });
  });

  it('lists, ad groups, batch delete and company', () => {
    accepts('AudienceListResponse', {
      content: [
        {
          id: 1,
          name: 'a',
          audienceStatus: 'STANDBY',
          type: 'MESSAGE',
          createdDate: 'x',
          lastModifiedDate: 'y',
          extra: 1,
        },
      ],
    });
    accepts('AudienceListResponse', { content: null });
    accepts('AudienceAdGroupListResponse', {
      content: [
        {
          campaignId: 5,
          campaignName: 'c',
          campaignTypeGoal: { campaignType: 'TALK_CHANNEL', goal: 'REACH' },
          adGroupId: 101,
          adGroupName: 'g',
          adGroupStatus: ['LIVE'],
          adGroupType: 'DIRECT_MESSAGE',
        },
      ],
    });
    accepts('BatchDeleteResult', { successCount: 1, failCount: 1, errorMessages: ['audience 999: not found'] });
    accepts('Company', {
      id: 9,
      businessRegistrationNumber: '120-81-47521',
      name: 'Acme',
      representationName: 'Kim',
      businessCategory: 'retail',
      businessItem: 'shoes',
      address: { zipCode: '06236', baseAddress: 'Teheran-ro 1', detailAddress: null },
      foundedIn: 1999,
    });
    accepts('ImageGenerationResponse', {
      id: 'job-1',
      model_version: 'v2.1',
      images: [{ id: 'img-1', seed: 42, image: 'https://x/1.webp', nsfw_content_detected: null, nsfw_score: null }],
    });
  });

  it('any value in a field the client only shows, and member ids as numbers or text (the spec does not show their type)', () => {
    accepts('AudienceDetail', {
      ...quirkyDetail,
      populationScore: '12,000',
      audienceStatus: 3,
      createdDate: 1700000000,
      lastModifiedDate: null,
      ageType: undefined,
      genderType: undefined,
    });
    accepts('AudienceDetail', {
      ...quirkyDetail,
      customerFileTargetings: [{ customerFileId: '7', inclusionType: 'INCLUDE', customerFileName: null }],
      talkChannelTargetings: [{ profileId: 501, inclusionType: 'EXCLUDE', profileName: 42 }],
      trackerTargetings: [{ trackId: 9, eventCode: 'buy' }],
    });
    accepts('AudienceListResponse', {
      content: [{ id: 1, name: 'a', audienceStatus: null, type: 7, createdDate: [], lastModifiedDate: 20240302 }],
    });
    rejects(
      'AudienceDetail',
      { ...quirkyDetail, customerFileTargetings: [{ customerFileId: { id: 7 }, inclusionType: 'INCLUDE' }] },
      /customerFileTargetings\[0\]\.customerFileId must be integer or string/,
    );
    rejects(
      'AudienceDetail',
      { ...quirkyDetail, cohortTargetings: [{ inclusionType: 'INCLUDE' }] },
      /must have required property 'cohortId'/,
    );
    rejects(
      'AudienceDetail',
      { ...quirkyDetail, cohortTargetings: [{ cohortId: 7, inclusionType: { value: 'INCLUDE' } }] },
      /cohortTargetings\[0\]\.inclusionType must be string or number or null/,
    );
    accepts('AudienceAdGroupListResponse', {
      content: [
        {
          campaignId: 5,
          campaignName: null,
          campaignTypeGoal: null,
          adGroupId: 101,
          adGroupName: null,
          adGroupStatus: 'LIVE',
          adGroupType: 3,
        },
      ],
    });
  });

  it('error bodies with, without, empty and null extras', () => {
    accepts('ErrorBody', { code: -813, msg: 'bad', extras: { detailCode: 31001, detailMsg: 'ages required' } });
    accepts('ErrorBody', { code: -813, msg: 'bad' });
    accepts('ErrorBody', { code: -813, msg: 'bad', extras: {} });
    accepts('ErrorBody', { code: -813, msg: 'bad', extras: null });
    rejects('ErrorBody', { code: 'E1', msg: 'bad' }, /^code must be integer/);
  });

  it('but reject answers missing what the client relies on', () => {
    rejects('AudienceDetail', { ...quirkyDetail, id: undefined }, /must have required property 'id'/);
    rejects('AudienceListResponse', { content: [{ name: 'a' }] }, /content\[0\] must have required property 'id'/);
    rejects(
      'AudienceAdGroupListResponse',
      { content: [{ adGroupName: 'g' }], last: true },
      /content\[0\] must have required property 'adGroupId'/,
    );
    rejects('AudienceDetail', { ...quirkyDetail, ages: [20] }, /ages\[0\] must be equal to one of the allowed values/);
    rejects('ImageGenerationResponse', { id: 'j', model_version: 'v2.1', images: [{ id: 'i', image: 'x' }] }, /seed/);
  });
});

const createBody = {
  adAccountId: 1234,
  name: 'seoul-women-20s',
  type: 'DISPLAY',
  ageType: 'NOT_ALL',
  ages: ['20', '25'],
  genderType: 'ALL',
  locationType: 'AREA',
  locations: [{ value: 'I' }],
  customerFileTargetings: [{ customerFileId: 7, inclusionType: 'EXCLUDE' }],
};

describe('request bodies are strict and carry the spec rules', () => {
  it('accept a well-formed create and update', () => {
    accepts('AudienceCreateBody', createBody);
    accepts('AudienceUpdateBody', { ...createBody, id: 1201 });
    accepts('AudienceCreateBody', {
      ...createBody,
      type: 'MESSAGE',
      customerFileTargetings: [],
      locationType: 'ALL',
      locations: undefined,
    });
  });

  it('reject unknown fields, in the body and in members', () => {
    rejects('AudienceCreateBody', { ...createBody, populationScore: 3 }, /additional properties \(populationScore\)/);
    rejects(
      'AudienceCreateBody',
      { ...createBody, cohortTargetings: [{ cohortId: 1, inclusionType: 'INCLUDE', nickname: 'x' }] },
      /nickname/,
    );
    rejects('AudienceCreateBody', { ...createBody, locations: [{ value: 'I', descripton: 'Seoul' }] }, /descripton/);
    rejects('AudienceCreateBody', { ...createBody, id: 1 }, /\(id\)/);
    rejects('AudienceUpdateBody', createBody, /required property 'id'/);
  });

  it('enforce ageType/genderType, locationType and the per-type table', () => {
    rejects('AudienceCreateBody', { ...createBody, ageType: 'ALL' }, /must NOT be valid/);
    rejects('AudienceCreateBody', { ...createBody, ages: undefined }, /required property 'ages'/);
    rejects('AudienceCreateBody', { ...createBody, genderType: 'NOT_ALL' }, /required property 'genders'/);
    rejects('AudienceCreateBody', { ...createBody, locationType: 'ALL' }, /must NOT be valid/);
    rejects('AudienceCreateBody', { ...createBody, locations: [] }, /must match a schema in anyOf/);
    rejects(
      'AudienceCreateBody',
      { ...createBody, type: 'MESSAGE' },
      /customerFileTargetings must NOT have more than 0 items/,
    );
    rejects(
      'AudienceCreateBody',
      { ...createBody, talkChannelGroupTargetings: [{ groupId: 3, inclusionType: 'INCLUDE' }] },
      /talkChannelGroupTargetings/,
    );
    rejects('AudienceCreateBody', { ...createBody, ages: [20] }, /allowed values/);
  });

  it('image requests follow the R/O/- table and the per-version bounds', () => {
    const t2i = {
      version: 'v2.1',
      prompt: 'a spring picnic',
      width: 1024,
      height: 1024,
      seed: [42],
      face_refiner: { weight_sft: 0.3 },
    };
    accepts('TextToImageRequest', t2i);
    accepts('TextToImageRequest', {
      ...t2i,
      version: 'v2.0',
      width: 512,
      height: 384,
      scheduler: 'decoder_ddim_v_prediction',
    });
    rejects('TextToImageRequest', { ...t2i, width: 700 }, /^width must be >= 768/m);
    rejects('TextToImageRequest', { ...t2i, width: 1020 }, /multiple of 8/);
    rejects('TextToImageRequest', { ...t2i, version: 'v2.0' }, /^width must be <= 640/m);
    rejects(
      'TextToImageRequest',
      { ...t2i, scheduler: 'decoder_ddim_v_prediction' },
      /scheduler must be equal to constant/,
    );
    rejects('TextToImageRequest', { ...t2i, image: 'aGVsbG8=' }, /\(image\)/);
    rejects('TextToImageRequest', { ...t2i, face_refiner: { weight_sft: 2 } }, /weight_sft must be <= 1/);
    rejects('TextToImageRequest', { ...t2i, seed: [-1] }, /seed\[0\] must be >= 0/);
    accepts('VariationsRequest', { version: 'v2.1', image: 'aGVsbG8=', width: 768, height: 1280 });
    rejects(
      'VariationsRequest',
      { version: 'v2.1', image: 'aGVsbG8=', width: 768, height: 1280, prompt: 'x' },
      /\(prompt\)/,
    );
    accepts('InpaintingRequest', { prompt: 'a hat', image: 'aGVsbG8=', mask: 'aGVsbG8=', reference_image: 'aGVsbG8=' });
    rejects(
      'InpaintingRequest',
      { prompt: 'a hat', image: 'aGVsbG8=', mask: 'aGVsbG8=', version: 'v2.1' },
      /version must be equal to constant/,
    );
    rejects('InpaintingRequest', { prompt: 'a hat', image: 'aGVsbG8=', mask: 'aGVsbG8=', width: 512 }, /\(width\)/);
    rejects('InpaintingRequest', { prompt: 'a hat', image: 'aGVsbG8=' }, /required property 'mask'/);
  });
});
