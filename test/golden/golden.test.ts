import { readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { adGroupLinkFromWire, audienceFromWire, audienceSummaryFromWire } from '../../src/api/audience-wire.js';
import { companyFromWire, formatBizNum } from '../../src/api/business.js';
import type { AudienceAdGroup, AudienceDetail } from '../../src/api/generated/wire.js';
import { fromJsonText, jsonText, parseAnswer } from '../../src/api/long-json.js';
import { PATH_SETTINGS } from '../../src/api/path-settings.js';
import { validateWire } from '../../src/api/wire-schemas.js';
import { sha256 } from '../../src/apply/kinds/image.js';
import { renderImageLock } from '../../src/config/image-lock.js';
import { validateConfig } from '../../src/config/index.js';
import { LOCK_FILE, requestKey, type LockedImage } from '../../src/model/index.js';
import type { BusinessLookup, ReadContext } from '../../src/operations/kinds/kind.js';
import { planDesired, type AccountReader } from '../../src/operations/plan.js';
import { plainStyle, renderJson, renderMarkdown, renderText } from '../../src/render/index.js';
import { contentBytes, isFileContent, type FileContent } from '../helpers/image-files.js';
import { planSchemaValidator } from '../helpers/plan-schema.js';
import { temporaryDir } from '../helpers/temporary.js';

/**
 * Golden scenarios: `audiences.yaml` (the desired file), `live.json` (the account as the
 * service answers: single-read bodies and ad-group lists) and optionally `options.json`,
 * `base.yaml` (the file at the base `main`, as `plan --base main` reads it), `business.json`
 * (the business lookup's answer) and `images.json` (the lock and the image files beside the
 * desired file); the expected `plan.json`, `plan.txt`, `plan.md` and
 * `reads.txt` are compared as file snapshots (`npx vitest run test/golden -u` rewrites them;
 * review the diff).
 */
interface LiveFixture {
  audiences: AudienceDetail[];
  adGroups?: Record<string, AudienceAdGroup[]>;
}

/**
 * The local side of images, described: each file by its content, and the lock's entries as
 * the tool writes them, where every `sha256` may be given as a content (the hash of those
 * bytes) and `requestHash` is left out (the hash the tool records for the request). No lock
 * is written when `lock` is left out.
 */
interface ImagesFixture {
  files?: Record<string, FileContent>;
  lock?: Record<string, Omit<LockedImage, 'requestHash'>>;
}

const root = fileURLToPath(new URL('.', import.meta.url));
const scenarios = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('golden plans', () => {
  it('has the scenarios the plan format promises', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(15);
  });

  it.each(scenarios)('%s', async (scenario) => {
    const dir = join(root, scenario);
    const config = validateConfig(await readFile(join(dir, 'audiences.yaml'), 'utf8'), 'audiences.yaml');
    if (!config.ok) throw new Error(`invalid desired file in ${scenario}: ${JSON.stringify(config.issues)}`);
    const live = answersOf(await readFile(join(dir, 'live.json'), 'utf8'));
    const options = await readFile(join(dir, 'options.json'), 'utf8').then(JSON.parse, () => ({}));

    const base = await readFile(join(dir, 'base.yaml'), 'utf8').then((text) => validateConfig(text, 'audiences.yaml'), () => undefined);
    if (base && !base.ok) throw new Error(`invalid base file in ${scenario}: ${JSON.stringify(base.issues)}`);

    const reads: string[] = [];
    const context: Omit<ReadContext, 'reader'> = {};
    const business = await readFile(join(dir, 'business.json'), 'utf8').catch(() => undefined);
    if (business !== undefined) {
      const lookup = fixtureBusiness(fromJsonText(business), reads);
      context.services = { business: () => lookup };
    }
    const images = await readFile(join(dir, 'images.json'), 'utf8').catch(() => undefined);
    if (images !== undefined) {
      context.file = 'audiences.yaml';
      context.cwd = await writeImageFiles(images);
    }
    const planOptions = { allowMassDelete: false, ...options, ...(base ? { base: { ref: 'main', desired: base.value } } : {}) };
    const planned = await planDesired(config.value, planOptions, fixtureReader(live, reads), context);
    // As the command attaches it: the base named in the plan's lead of the drift section.
    const plan = base ? { ...planned, origin: { files: ['audiences.yaml'], commit: null, base: 'main' } } : planned;

    const validate = await planSchemaValidator();
    expect(validate(plan) ? [] : validate.errors).toEqual([]);
    expect(JSON.parse(JSON.stringify(plan))).toStrictEqual(plan);
    await expect(renderJson(plan)).toMatchFileSnapshot(join(dir, 'plan.json'));
    await expect(renderText(plan, plainStyle)).toMatchFileSnapshot(join(dir, 'plan.txt'));
    await expect(renderMarkdown(plan)).toMatchFileSnapshot(join(dir, 'plan.md'));
    await expect(`${reads.join('\n')}\n`).toMatchFileSnapshot(join(dir, 'reads.txt'));
  });
});

/**
 * The answers of a fixture, each parsed from its own JSON text as the client parses an answer
 * (every digit of a Long kept; an audience's fields beyond the model held exactly).
 */
function answersOf(text: string): LiveFixture {
  const exact = fromJsonText(text) as { audiences: unknown[]; adGroups?: Record<string, unknown[]> };
  const answer = <T>(value: unknown): T => parseAnswer(jsonText(value)) as T;
  return {
    audiences: exact.audiences.map((audience) => answer<AudienceDetail>(audience)),
    ...(exact.adGroups ? { adGroups: Object.fromEntries(Object.entries(exact.adGroups).map(([id, links]) => [id, links.map((link) => answer<AudienceAdGroup>(link))])) } : {}),
  };
}

/**
 * The account of a fixture, read through the same wire checks and conversion as the real
 * client (an answer without what the client needs is the transport's error); each read is
 * recorded.
 */
function fixtureReader(live: LiveFixture, reads: string[]): AccountReader {
  const byId = new Map(live.audiences.map((wire) => [String(wire.id), wire]));
  return {
    list: async () => {
      reads.push('GET /openapi/v4/targetings/audiences');
      return live.audiences.map(audienceSummaryFromWire);
    },
    read: async (id) => {
      const path = `/openapi/v4/targetings/${id}`;
      reads.push(`GET ${path}`);
      const wire = byId.get(id);
      if (!wire) throw new Error(`no audience ${id} in the fixture`);
      const checked = validateWire('AudienceDetail', wire);
      if (!checked.ok) {
        const reason = `not an AudienceDetail: ${checked.issues.join('; ')}`;
        throw new ApiError({ service: 'audience', method: 'GET', path, kind: 'invalid-response', status: 200, reason, ambiguous: false, attempts: 1 });
      }
      return audienceFromWire(wire);
    },
    adGroups: async (id) => {
      reads.push(`GET /openapi/v4/targetings/${id}/adGroups`);
      return (live.adGroups?.[String(id)] ?? []).map(adGroupLinkFromWire);
    },
  };
}

/**
 * The business lookup of a fixture: the service's answer (a Company, checked and converted as
 * the client does), or null when the service says no business has the number; each lookup
 * is recorded.
 */
function fixtureBusiness(answer: unknown, reads: string[]): BusinessLookup {
  return {
    lookup: async (bizNum) => {
      reads.push(`GET ${PATH_SETTINGS.ADS_COMPANY_PATH}?bizNum=${formatBizNum(bizNum)}`);
      if (answer === null) return null;
      const checked = validateWire('Company', parseAnswer(jsonText(answer)));
      if (!checked.ok) throw new Error(`not a Company: ${checked.issues.join('; ')}`);
      return companyFromWire(checked.value);
    },
  };
}

/**
 * Writes the images of a fixture in a new folder, the lock as the tool renders it, and returns
 * the folder: planning reads them there as it reads a project's (src/operations/images/state.ts).
 */
async function writeImageFiles(text: string): Promise<string> {
  const hashOf = (key: string, value: unknown): unknown => {
    return key === 'sha256' && isFileContent(value) ? sha256(contentBytes(value)) : value;
  };
  const fixture = JSON.parse(text, hashOf) as ImagesFixture;
  const dir = await temporaryDir('golden-images-');
  for (const [path, content] of Object.entries(fixture.files ?? {})) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), contentBytes(content));
  }
  if (fixture.lock) {
    const images = Object.fromEntries(
      Object.entries(fixture.lock).map(([name, entry]) => {
        const requestHash = sha256(new TextEncoder().encode(requestKey(entry.request)));
        return [name, { ...entry, requestHash }];
      }),
    );
    await writeFile(join(dir, LOCK_FILE), renderImageLock({ lockVersion: 1, images }));
  }
  return dir;
}
