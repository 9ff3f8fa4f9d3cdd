import { describe, expect, it } from 'vitest';
import type { DesiredImage, ImageState, LocalFile, LockedImage } from '../../model/index.js';
import { planImages } from './image.js';

const banner: DesiredImage = {
  key: 'banner',
  operation: 't2i',
  params: { version: 'v2.0', prompt: 'a kite', width: 512, height: 512, image_format: 'webp', samples: 1 },
  inputs: {},
  outputs: ['banner.webp'],
};
const variant: DesiredImage = {
  key: 'variant',
  operation: 'variations',
  params: { version: 'v2.0', width: 384, height: 384, image_format: 'png', samples: 2 },
  inputs: { image: { from: 'banner' } },
  outputs: ['variant-1.png', 'variant-2.png'],
};

function locked(image: DesiredImage, hashes: string[], inputHash?: string): LockedImage {
  return {
    request: {
      operation: image.operation,
      params: image.params,
      inputs: inputHash === undefined ? {} : { image: { from: 'banner', file: 'banner.webp', sha256: inputHash } },
    },
    requestHash: 'h',
    seeds: hashes.map((_, index) => 100 + index),
    modelVersion: 'v2.0',
    outputs: image.outputs.map((path, index) => ({ path, sha256: hashes[index] as string })),
  };
}

const present = (sha256: string): LocalFile => ({ status: 'present', sha256, format: null, width: null, height: null });
const png = (sha256: string): LocalFile => ({ status: 'present', sha256, format: 'png', width: 384, height: 384 });

/** Both images generated before: the lock and the files agree. */
function generated(overrides: Partial<Record<string, LocalFile>> = {}): ImageState {
  const files: Record<string, LocalFile> = {
    'banner.webp': present('b'),
    'variant-1.png': present('v1'),
    'variant-2.png': present('v2'),
  };
  for (const [path, file] of Object.entries(overrides)) if (file) files[path] = file;
  return {
    dir: '.',
    lock: { lockVersion: 1, images: { banner: locked(banner, ['b']), variant: locked(variant, ['v1', 'v2'], 'b') } },
    lockHash: 'lock',
    files,
  };
}

describe('planImages', () => {
  it('generates new images in dependency order, a dependant waiting for its source', () => {
    const state: ImageState = {
      dir: '.',
      lock: { lockVersion: 1, images: {} },
      lockHash: null,
      files: { 'banner.webp': { status: 'absent' } },
    };
    const plan = planImages([variant, banner], state, false);
    expect(plan.errors).toEqual([]);
    expect(plan.changes.map((change) => [change.action, change.name])).toEqual([
      ['generate', 'banner'],
      ['generate', 'variant'],
    ]);
    const second = plan.changes[1];
    expect(second?.action === 'generate' && second.after).toEqual({
      request: {
        operation: 'variations',
        params: variant.params,
        inputs: { image: { from: 'banner', file: 'banner.webp', sha256: null } },
      },
      seeds: null,
      outputs: ['variant-1.png', 'variant-2.png'],
    });
  });

  it('plans nothing when the lock and the files agree', () => {
    expect(planImages([banner, variant], generated(), false).changes).toEqual([]);
  });

  it('regenerates a missing or altered file with the locked seeds, without touching what is made from it', () => {
    const missing = planImages([banner, variant], generated({ 'banner.webp': { status: 'absent' } }), false);
    expect(missing.changes).toEqual([
      expect.objectContaining({
        name: 'banner',
        after: expect.objectContaining({ seeds: [100] }),
        display: { reason: 'output-missing', fields: [] },
      }),
    ]);
    const altered = planImages([banner, variant], generated({ 'variant-2.png': present('edited') }), false);
    expect(altered.changes).toEqual([
      expect.objectContaining({
        name: 'variant',
        after: expect.objectContaining({ seeds: [100, 101] }),
        display: { reason: 'output-altered', fields: [] },
      }),
    ]);
  });

  it('regenerates a changed request with new seeds, and what is made from it after it', () => {
    const changed = { ...banner, params: { ...banner.params, prompt: 'a red kite' } };
    const plan = planImages(
      [banner, variant].map((image) => (image.key === 'banner' ? changed : image)),
      generated(),
      false,
    );
    expect(
      plan.changes.map((change) => [
        change.name,
        change.action === 'generate' ? change.display.reason : '',
        change.action === 'generate' ? change.after.seeds : '',
      ]),
    ).toEqual([
      ['banner', 'request-changed', null],
      ['variant', 'input-regenerated', null],
    ]);
    const first = plan.changes[0];
    expect(first?.action === 'generate' && first.display.fields).toEqual([
      { field: 'prompt', before: 'a kite', after: 'a red kite' },
    ]);
  });

  it('sends pinned seeds, and treats pinning other seeds as a changed request', () => {
    const pinned = { ...banner, params: { ...banner.params, seed: [7] } };
    const plan = planImages([pinned], generated(), false);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        after: expect.objectContaining({ seeds: [7] }),
        display: { reason: 'request-changed', fields: [{ field: 'seed', before: null, after: [7] }] },
      }),
    ]);
  });

  it('regenerates when a local input changed, since the request records its content', () => {
    const fromFile: DesiredImage = { ...variant, inputs: { image: { file: 'source.png' } } };
    const state = generated({
      'source.png': { status: 'present', sha256: 'new', format: 'png', width: 10, height: 10 },
    });
    const lockedEntry = state.lock.images['variant'] as LockedImage;
    lockedEntry.request.inputs = { image: { file: 'moved/source.png', sha256: 'new' } };
    expect(planImages([banner, fromFile], state, false).changes).toEqual([]);
    lockedEntry.request.inputs = { image: { file: 'source.png', sha256: 'old' } };
    expect(planImages([banner, fromFile], state, false).changes).toEqual([
      expect.objectContaining({ name: 'variant', display: expect.objectContaining({ reason: 'request-changed' }) }),
    ]);
  });

  it('removes images dropped from the file only with prune', () => {
    expect(planImages([banner], generated(), false).changes).toEqual([]);
    const plan = planImages([banner], generated({ 'variant-1.png': png('v1'), 'variant-2.png': png('v2') }), true);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        action: 'remove',
        kind: 'image',
        name: 'variant',
        after: null,
        deletes: ['variant-1.png', 'variant-2.png'],
      }),
    ]);
    expect(plan.warnings).toEqual([]);
  });

  it('deletes of a removed image only the files the tool wrote, and says why it leaves each other one alone', () => {
    const cases: Array<[LocalFile | undefined, string | undefined]> = [
      [png('v1'), undefined],
      [{ status: 'absent' }, ''],
      [
        { status: 'refused', reason: 'it leads out of the project folder through a link' },
        'it leads out of the project folder through a link',
      ],
      [
        { status: 'present', sha256: 'v1', format: 'png', width: 384, height: 384, link: true },
        'it is a link, and the tool writes files, not links',
      ],
      [png('edited'), 'its bytes are not the ones the lock records for it'],
      [present('v1'), 'it is not an image (by its content), and the tool writes only images'],
      [undefined, 'it was not read'],
    ];
    for (const [file, reason] of cases) {
      const state = generated();
      delete state.files['variant-1.png'];
      if (file) state.files['variant-1.png'] = file;
      state.files['variant-2.png'] = { status: 'absent' };
      const plan = planImages([banner], state, true);
      expect(plan.changes).toEqual([
        expect.objectContaining({ name: 'variant', deletes: reason === undefined ? ['variant-1.png'] : [] }),
      ]);
      expect(plan.warnings).toEqual(
        reason
          ? [
              {
                code: 'IMAGE_LEFT_ALONE',
                name: 'variant',
                message: `image "variant" is removed, but its file variant-1.png is left alone: ${reason}`,
                hint: 'the tool deletes only the files it wrote; delete this one by hand if it should go',
              },
            ]
          : [],
      );
    }
  });

  it('leaves alone a file of a removed image that a declared image writes or reads, whatever its bytes', () => {
    const renamed: DesiredImage = { ...variant, key: 'renamed', outputs: ['variant-1.png', 'renamed-2.png'] };
    const reader: DesiredImage = {
      ...variant,
      key: 'reader',
      inputs: { image: { file: 'variant-2.png' } },
      outputs: ['reader.png'],
    };
    const plan = planImages(
      [banner, renamed, reader],
      generated({ 'variant-1.png': png('v1'), 'variant-2.png': png('v2') }),
      true,
    );
    expect(plan.changes.find((change) => change.action === 'remove')).toEqual(
      expect.objectContaining({ name: 'variant', deletes: [] }),
    );
    expect(plan.warnings.map((warning) => warning.message)).toEqual([
      'image "variant" is removed, but its file variant-1.png is left alone: the declared image "renamed" writes it',
      'image "variant" is removed, but its file variant-2.png is left alone: the declared image "reader" reads it',
    ]);
  });

  it('moves an image whose output moved: copied from where the lock records it while those are the locked bytes, nothing generated', () => {
    const moved: DesiredImage = { ...banner, outputs: ['art/banner.webp'] };
    const plan = planImages([moved, variant], generated({ 'art/banner.webp': { status: 'absent' } }), false);
    expect(plan.changes).toEqual([
      {
        action: 'move',
        kind: 'image',
        name: 'banner',
        id: null,
        before: locked(banner, ['b']),
        after: { outputs: ['art/banner.webp'] },
        copies: [{ from: 'banner.webp', to: 'art/banner.webp' }],
        deletes: [],
      },
    ]);
    // Already at its new path (moved by hand): only the lock follows.
    const byHand = planImages(
      [moved, variant],
      generated({ 'banner.webp': { status: 'absent' }, 'art/banner.webp': present('b') }),
      true,
    );
    expect(byHand.changes).toMatchObject([{ action: 'move', copies: [], deletes: [] }]);
    // Neither holds the locked bytes: generated again with the locked seeds.
    const lost = planImages(
      [moved, variant],
      generated({ 'banner.webp': present('edited'), 'art/banner.webp': { status: 'absent' } }),
      true,
    );
    expect(lost.changes).toMatchObject([
      { action: 'generate', name: 'banner', after: { seeds: [100] }, display: { reason: 'output-missing' } },
    ]);
  });

  it('deletes the old file of a move only with prune, as a removal would, and never the file a new path names by another name', () => {
    const moved: DesiredImage = { ...banner, outputs: ['art/banner.webp'] };
    const deleted = planImages(
      [moved, variant],
      generated({ 'banner.webp': png('b'), 'art/banner.webp': { status: 'absent' } }),
      true,
    );
    expect(deleted.changes).toMatchObject([{ action: 'move', deletes: ['banner.webp'] }]);
    expect(deleted.warnings).toEqual([]);

    const linkedOld: LocalFile = {
      status: 'present',
      sha256: 'b',
      format: 'webp',
      width: null,
      height: null,
      link: true,
    };
    const sameFile: LocalFile = {
      status: 'present',
      sha256: 'b',
      format: 'webp',
      width: null,
      height: null,
      identity: '1:7',
    };
    const cases: Array<[Record<string, LocalFile>, string]> = [
      [{ 'banner.webp': linkedOld }, 'it is a link, and the tool writes files, not links'],
      [
        { 'banner.webp': sameFile, 'art/banner.webp': sameFile },
        'it is the file art/banner.webp names, by another name on this disk',
      ],
    ];
    for (const [files, reason] of cases) {
      const plan = planImages([moved, variant], generated({ 'art/banner.webp': { status: 'absent' }, ...files }), true);
      expect(plan.changes).toMatchObject([{ action: 'move', deletes: [] }]);
      expect(plan.warnings.map((warning) => warning.message)).toEqual([
        `image "banner" is moved, but its old file banner.webp is left alone: ${reason}`,
      ]);
    }
  });

  it("moves two images trading their paths, each copying the other's old file and deleting neither", () => {
    const a: DesiredImage = { ...banner, key: 'a', outputs: ['b.webp'] };
    const b: DesiredImage = {
      ...banner,
      key: 'b',
      params: { ...banner.params, prompt: 'a boat' },
      outputs: ['a.webp'],
    };
    const state: ImageState = {
      dir: '.',
      lock: {
        lockVersion: 1,
        images: { a: locked({ ...a, outputs: ['a.webp'] }, ['ha']), b: locked({ ...b, outputs: ['b.webp'] }, ['hb']) },
      },
      lockHash: 'lock',
      files: { 'a.webp': present('ha'), 'b.webp': present('hb') },
    };
    expect(planImages([a, b], state, true).changes).toMatchObject([
      { action: 'move', name: 'a', copies: [{ from: 'a.webp', to: 'b.webp' }], deletes: [] },
      { action: 'move', name: 'b', copies: [{ from: 'b.webp', to: 'a.webp' }], deletes: [] },
    ]);
  });

  it('checks inputs before any call: present, of a format the operation takes, and within 1024 pixels for inpainting', () => {
    const inpaint: DesiredImage = {
      key: 'fix',
      operation: 'inpainting',
      params: { version: 'v2.0', prompt: 'a kite', image_format: 'png', samples: 1 },
      inputs: { image: { file: 'big.png' }, mask: { file: 'mask.gif' }, reference_image: { file: 'gone.png' } },
      outputs: ['out/fix.png'],
    };
    const state: ImageState = {
      dir: '.',
      lock: { lockVersion: 1, images: {} },
      lockHash: null,
      files: {
        'big.png': { status: 'present', sha256: 'x', format: 'png', width: 1025, height: 800 },
        'mask.gif': { status: 'present', sha256: 'y', format: null, width: null, height: null },
        'gone.png': { status: 'absent' },
        'out/fix.png': { status: 'refused', reason: 'it leads out of the project folder through a link' },
      },
    };
    expect(planImages([inpaint], state, false).errors.map((error) => `${error.code} ${error.message}`)).toEqual([
      'IMAGE_PATH image "fix": cannot write out/fix.png: it leads out of the project folder through a link',
      'IMAGE_INPUT image "fix": image big.png is 1025×800 pixels; inpainting takes at most 1024 a side',
      'IMAGE_INPUT image "fix": mask mask.gif is not an image the service reads (by its content)',
      'IMAGE_INPUT image "fix": reference_image gone.png does not exist',
    ]);
    const heicVariation: DesiredImage = { ...variant, inputs: { image: { file: 'photo.heic' } } };
    const heic: ImageState = {
      ...state,
      files: { 'photo.heic': { status: 'present', sha256: 'z', format: 'heic', width: 10, height: 10 } },
    };
    expect(planImages([heicVariation], heic, false).errors.map((error) => error.message)).toEqual([
      'image "variant": image photo.heic is a heic file (by its content)',
    ]);
  });

  it('refuses to plan from a lock it cannot read', () => {
    const plan = planImages([banner], { ...generated(), lockProblem: 'it is not JSON' }, true);
    expect(plan.changes).toEqual([]);
    expect(plan.errors.map((error) => error.code)).toEqual(['IMAGE_LOCK']);
  });

  it('fingerprints the lock and every file it read', () => {
    expect(planImages([banner], generated({ 'banner.webp': { status: 'absent' } }), false).fingerprint).toEqual({
      lockHash: 'lock',
      files: [
        { path: 'banner.webp', sha256: null },
        { path: 'variant-1.png', sha256: 'v1' },
        { path: 'variant-2.png', sha256: 'v2' },
      ],
    });
  });
});
