import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { errorReport } from '../../src/cli/report-error.js';
import { ConfigError } from '../../src/config/issues.js';
import type { Plan } from '../../src/plan/index.js';
import { planAccount } from '../../src/plan/index.js';
import { commentMarker, renderComment, renderErrorComment } from '../../src/render/index.js';
import { MARKDOWN_LIMIT } from '../../src/render/markdown.js';
import { lockChanges } from '../../src/plan/kinds/image.js';
import { requestKey, type ImageLock, type ImageRequest, type LockedImage } from '../../src/model/index.js';
import { desiredAudience, desiredState, liveState } from '../helpers/builders.js';

/**
 * Golden pull-request comments (`--format markdown`): the plans come from the golden plan
 * scenarios (test/golden/<scenario>/plan.json). `npx vitest run test/comments -u` rewrites
 * them; review the diff.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
const goldenPlan = async (scenario: string): Promise<Plan> =>
  JSON.parse(await readFile(join(here, '..', 'golden', scenario, 'plan.json'), 'utf8')) as Plan;
const context = { files: ['audiences.yaml'], commit: '4b198fd' };

describe('the pull-request comment', () => {
  it('mixed changes: deletes and unlinks first, under a warning with their count', async () => {
    const comment = renderComment([await goldenPlan('mixed')], context);
    await expect(comment).toMatchFileSnapshot(join(here, 'mixed.md'));
    expect(comment.split('\n')[0]).toBe('<!-- audiences-plan files=audiences.yaml -->');
    expect(comment).toContain(':warning: **This plan deletes 1 audience, unlinks 2 ad groups**');
    const rows = comment.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows.map((row) => row.slice(3, 4))).toEqual(['-', '-', '-', '+', '~']);
  });

  it("drift: the changes the base makes too under a section of their own, after the change's own, and a loosened guard said", async () => {
    const comment = renderComment([await goldenPlan('drift')], context);
    await expect(comment).toMatchFileSnapshot(join(here, 'drift.md'));
    const [own = '', outside = ''] = comment.split('#### Changed outside the tool\n');
    const rows = (part: string) =>
      part
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .map((row) => /audience "([^"]+)"/.exec(row)?.[1]);
    expect(rows(own)).toEqual(['banner', 'commuters']);
    expect(rows(outside)).toEqual(['kept-links', 'made-outside', 'made-outside', 'new-parents', 'seoul-women']);
    expect(own).toContain('warning\\[MASS\\_DELETE\\_LOOSENED\\]');
  });

  it('several accounts: one comment, a section and a marker per account', async () => {
    const comment = renderComment(
      [await goldenPlan('mixed'), { ...(await goldenPlan('no-changes')), adAccountId: 5678 }],
      { files: ['shop.yaml', 'brand.yaml'] },
    );
    await expect(comment).toMatchFileSnapshot(join(here, 'several-accounts.md'));
    expect(comment.split('\n')[0]).toBe('<!-- audiences-plan files=shop.yaml,brand.yaml -->');
    expect(comment).toContain('<!-- audiences-plan account=1234 -->');
    expect(comment).toContain('<!-- audiences-plan account=5678 -->');
  });

  it('a plan with errors, and a plan that failed: the error, its hint and each problem at its place', async () => {
    await expect(renderComment([await goldenPlan('mass-delete-refused')], context)).toMatchFileSnapshot(
      join(here, 'plan-errors.md'),
    );
    const invalid = new ConfigError([
      {
        file: 'audiences.yaml',
        line: 4,
        column: 11,
        pointer: '/audiences/0/type',
        message: 'type must be one of DISPLAY, MESSAGE',
        hint: 'did you mean DISPLAY?',
      },
      { file: 'audiences.yaml', line: 9, column: 5, pointer: '/audiences/1', message: 'unknown key "agess"' },
    ]);
    await expect(renderErrorComment(errorReport(invalid), context)).toMatchFileSnapshot(
      join(here, 'error-invalid-file.md'),
    );
    const unauthorized = new ApiError({
      service: 'audience',
      method: 'GET',
      path: '/openapi/v4/targetings/audiences',
      kind: 'http',
      status: 401,
      serviceCode: -401,
      serviceMsg: 'invalid token',
      ambiguous: false,
      attempts: 1,
    });
    const comment = renderErrorComment(errorReport(unauthorized), context);
    await expect(comment).toMatchFileSnapshot(join(here, 'error-unauthorized.md'));
    expect(comment.split('\n')[0]).toBe(commentMarker(['audiences.yaml']));
  });

  it('cut at the size limit, saying how much', async () => {
    const audiences = Array.from({ length: 200 }, (_, index) =>
      desiredAudience({ name: `audience-${String(index).padStart(3, '0')}`, ufoInterests: ['TRAVEL'] }),
    );
    const plan = planAccount(desiredState(audiences), liveState([]), { allowMassDelete: false });
    const comment = renderComment([plan], context, 6000);
    await expect(comment).toMatchFileSnapshot(join(here, 'cut.md'));
    expect(comment.length).toBeLessThan(6000);
    expect(comment).toMatch(/The plan is too long for one comment: \d+ lines were cut/);
  });

  it('makes names inert: no mention, link, tag or code span, and no fence closed by a name', () => {
    const name = 'x @team [a](https://e.example) <img src=x> `y` ```';
    const plan = planAccount(desiredState([desiredAudience({ name })]), liveState([]), { allowMassDelete: false });
    const comment = renderComment([plan], context);
    const table = comment.split('\n').find((line) => line.startsWith('| `+`')) ?? '';
    expect(table).toContain('&#64;team');
    expect(table).toContain('\\[a\\](https&#58;//e.example)');
    expect(table).toContain('&lt;img src=x&gt;');
    expect(table).toContain('\\`y\\`');
    expect(comment).toContain('````diff');
  });

  it('images of the change: new, changed beside its previous version, removed, each with its prompt, size, seeds and files', async () => {
    const locked = (prompt: string, seed: number, path: string, hash: string): LockedImage => {
      const request: ImageRequest = {
        operation: 't2i',
        params: { version: 'v2.0', prompt, width: 512, height: 384, image_format: 'webp', samples: 1 },
        inputs: {},
      };
      return {
        request,
        requestHash: requestKey(request),
        seeds: [seed],
        modelVersion: 'v2.0',
        outputs: [{ path, sha256: hash.repeat(64) }],
      };
    };
    const lock = (images: Record<string, LockedImage>): ImageLock => ({ lockVersion: 1, images });
    const base = lock({
      'spring-banner': locked('a spring picnic in a park, watercolor', 7, 'assets/spring-banner.webp', 'a'),
      'winter-sale': locked('snow on a <b>red</b> roof | 50% off', 9, 'assets/winter-sale.webp', 'b'),
      unchanged: locked('a quiet street', 3, 'assets/unchanged.webp', 'f'),
    });
    const head = lock({
      'spring-banner': locked('a spring picnic by a lake, watercolor', 8, 'assets/spring-banner.webp', 'c'),
      'summer-hero': locked('a beach at noon, @team', 42, 'assets/summer-hero.webp', 'd'),
      unchanged: base.images['unchanged']!,
    });
    const plan: Plan = { ...(await goldenPlan('no-changes')), previews: lockChanges(base, head) };
    const url = (hash: string) => `https://github.example/team/ads/blob/${hash.repeat(7)}/x.webp?raw=true`;
    const comment = renderComment([plan], {
      ...context,
      preview: {
        requests: 2,
        commit: 'c'.repeat(40),
        urls: { ['a'.repeat(64)]: url('a'), ['c'.repeat(64)]: url('c'), ['d'.repeat(64)]: url('d') },
      },
    });
    await expect(comment).toMatchFileSnapshot(join(here, 'images.md'));
    const rows = comment.split('\n').filter((line) => line.startsWith('| **'));
    expect(rows.map((row) => /^\| \*\*(\w+)\*\* ([\w-]+)/.exec(row)?.slice(1).join(' '))).toEqual([
      'changed spring-banner',
      'new summer-hero',
      'removed winter-sale',
    ]);
    // The changed image shows the picture now and the one before, each at a bounded width.
    expect(rows[0]).toContain(`<img src="${url('c')}" width="320" alt="spring-banner"> | <img src="${url('a')}"`);
    expect(comment).toContain('2 image requests');
    // Text from the file stays inert: no tag, no mention, no cell ended early.
    expect(rows[2]).toContain('snow on a &lt;b&gt;red&lt;/b&gt; roof \\| 50% off');
    expect(rows[1]).toContain('&#64;team');

    const fork = renderComment([plan], {
      ...context,
      preview: { requests: 1, commit: null, notCommitted: 'fork', artifact: 'audiences-previews-7', urls: {} },
    });
    expect(fork).toContain(
      ':warning: **The images were not committed to the branch:** the pull request comes from a fork, which this job cannot push to.',
    );
    expect(fork).toContain('The merge generates the images again');
    expect(fork).not.toContain('<img');

    // Forty new images with the longest prompts take at most their share: the rest are counted, the comment fits.
    const prompt = 'a long and careful prompt '.repeat(78);
    const many = lock(
      Object.fromEntries(
        Array.from({ length: 40 }, (_, index) => [
          `img-${index}`,
          locked(prompt, index, `assets/img-${index}.webp`, 'e'),
        ]),
      ),
    );
    const crowded = renderComment([{ ...plan, previews: lockChanges(null, many) }], context);
    expect(crowded.length).toBeLessThan(MARKDOWN_LIMIT);
    const shown = crowded.split('\n').filter((line) => line.startsWith('| **new**')).length;
    expect(shown).toBeGreaterThan(0);
    expect(crowded).toContain(`| … ${40 - shown} more images: no room in the comment;`);
  });
});
