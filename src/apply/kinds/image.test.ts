import { describe, expect, it } from 'vitest';
import type { ImageClient } from '../../api/imagegen.js';
import type { ImageGeneration, LockedImage } from '../../model/index.js';
import type { ImageGenerate, ImageMove } from '../../plan/index.js';
import { applyImages, sha256, type ImageStore } from './image.js';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function generate(name: string, from?: string): ImageGenerate {
  return {
    action: 'generate',
    kind: 'image',
    name,
    id: null,
    before: null,
    after: {
      request: {
        operation: from ? 'variations' : 't2i',
        params: { version: 'v2.0', width: 384, height: 384, image_format: 'png', samples: 1 },
        inputs: from ? { image: { from, file: `${from}.png`, sha256: null } } : {},
      },
      seeds: null,
      outputs: [`${name}.png`],
    },
    display: { reason: 'new', fields: [] },
  };
}

function memoryStore(): ImageStore & { files: Map<string, Uint8Array>; lock: Map<string, LockedImage> } {
  const files = new Map<string, Uint8Array>();
  const lock = new Map<string, LockedImage>();
  return {
    files,
    lock,
    read: async (path) => files.get(path) ?? Promise.reject(new Error(`no ${path}`)),
    write: async (written) => void written.forEach((file) => files.set(file.path, file.bytes)),
    remove: async (removed) => void removed.forEach((file) => files.delete(file.path)),
    record: async (name, entry) => void (entry ? lock.set(name, entry) : lock.delete(name)),
  };
}

/** A service that answers after a tick, counting how many requests overlap, and fails the prompts it is told to. */
function fakeService(
  fail: (body: Record<string, unknown>) => boolean = () => false,
): ImageClient & { peak: number; order: string[] } {
  let active = 0;
  const service = {
    peak: 0,
    order: [] as string[],
    async answer(operation: string, body: Record<string, unknown>): Promise<ImageGeneration> {
      active += 1;
      service.peak = Math.max(service.peak, active);
      service.order.push(`${operation}:${typeof body['image'] === 'string' ? 'with-image' : 'text'}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      active -= 1;
      if (fail(body)) throw new Error('the service refused');
      const bytes = new Uint8Array([...PNG, service.order.length]);
      return {
        jobId: 'j',
        modelVersion: 'v2.0',
        images: [{ id: 'i', seed: 42, bytes, format: 'png', nsfwContentDetected: null, nsfwScore: null }],
      };
    },
    textToImage: (body: unknown) => service.answer('t2i', body as Record<string, unknown>),
    variations: (body: unknown) => service.answer('variations', body as Record<string, unknown>),
    inpainting: (body: unknown) => service.answer('inpainting', body as Record<string, unknown>),
  };
  return service as unknown as ImageClient & { peak: number; order: string[] };
}

describe('applyImages', () => {
  it('runs at most `concurrency` generations at once, and locks each with its seeds and hashes', async () => {
    const service = fakeService();
    const store = memoryStore();
    const changes = ['a', 'b', 'c', 'd', 'e'].map((name) => generate(name));
    const results = await applyImages(changes, service, store, { concurrency: 2 });
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(service.peak).toBe(2);
    const entry = store.lock.get('c');
    expect(entry).toMatchObject({
      seeds: [42],
      modelVersion: 'v2.0',
      outputs: [{ path: 'c.png', sha256: sha256(store.files.get('c.png') as Uint8Array) }],
    });
  });

  it('starts a variation only after its source, with the bytes the source got, and records their hash', async () => {
    const service = fakeService();
    const store = memoryStore();
    await applyImages([generate('variant', 'banner'), generate('banner')], service, store, { concurrency: 4 });
    expect(service.order).toEqual(['t2i:text', 'variations:with-image']);
    expect(store.lock.get('variant')?.request.inputs.image).toEqual({
      from: 'banner',
      file: 'banner.png',
      sha256: sha256(store.files.get('banner.png') as Uint8Array),
    });
  });

  it('skips what is made from a failed image, and writes and locks neither', async () => {
    const service = fakeService((body) => body['image'] === undefined);
    const store = memoryStore();
    const reported: string[] = [];
    const results = await applyImages(
      [generate('banner'), generate('variant', 'banner')],
      service,
      store,
      { concurrency: 4 },
      { finished: (_change, result) => reported.push(`${result.name} ${result.status}`) },
    );
    expect(results).toEqual([
      { action: 'generate', name: 'banner', id: null, status: 'failed', cause: 'the service refused' },
      {
        action: 'generate',
        name: 'variant',
        id: null,
        status: 'skipped',
        cause: 'its image comes from image "banner", which was not generated',
      },
    ]);
    expect(reported).toEqual(['banner failed', 'variant skipped']);
    expect(store.files.size + store.lock.size).toBe(0);
  });

  it('refuses an input file that changed since the plan', async () => {
    const store = memoryStore();
    store.files.set('source.png', new Uint8Array([1, 2, 3]));
    const change = generate('variant');
    change.after.request = {
      ...change.after.request,
      operation: 'variations',
      inputs: { image: { file: 'source.png', sha256: 'planned-hash' } },
    };
    const [result] = await applyImages([change], fakeService(), store, { concurrency: 1 });
    expect(result).toMatchObject({ status: 'skipped', cause: 'image source.png changed since the plan was made' });
  });

  it('moves two images trading their paths: every old file read before any is written, and the locks follow', async () => {
    const store = memoryStore();
    const [a, b] = [new Uint8Array([...PNG, 1]), new Uint8Array([...PNG, 2])];
    store.files.set('a.png', a);
    store.files.set('b.png', b);
    const entry = (path: string, bytes: Uint8Array): LockedImage => ({
      request: {
        operation: 't2i',
        params: { version: 'v2.0', prompt: path, width: 384, height: 384, image_format: 'png', samples: 1 },
        inputs: {},
      },
      requestHash: 'h',
      seeds: [1],
      modelVersion: 'v2.0',
      outputs: [{ path, sha256: sha256(bytes) }],
    });
    const move = (name: string, from: string, to: string, bytes: Uint8Array): ImageMove => ({
      action: 'move',
      kind: 'image',
      name,
      id: null,
      before: entry(from, bytes),
      after: { outputs: [to] },
      copies: [{ from, to }],
      deletes: [],
    });
    const results = await applyImages(
      [move('first', 'a.png', 'b.png', a), move('second', 'b.png', 'a.png', b)],
      undefined,
      store,
      { concurrency: 1 },
    );
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok']);
    expect([store.files.get('a.png'), store.files.get('b.png')]).toEqual([b, a]);
    expect(store.lock.get('first')?.outputs).toEqual([{ path: 'b.png', sha256: sha256(a) }]);
  });

  it('skips a move whose old file changed since the plan, and leaves its files and lock entry as they were', async () => {
    const store = memoryStore();
    store.files.set('a.png', new Uint8Array([...PNG, 9]));
    const change: ImageMove = {
      action: 'move',
      kind: 'image',
      name: 'first',
      id: null,
      before: {
        request: {
          operation: 't2i',
          params: { version: 'v2.0', width: 384, height: 384, image_format: 'png', samples: 1 },
          inputs: {},
        },
        requestHash: 'h',
        seeds: [1],
        modelVersion: 'v2.0',
        outputs: [{ path: 'a.png', sha256: 'planned' }],
      },
      after: { outputs: ['b.png'] },
      copies: [{ from: 'a.png', to: 'b.png' }],
      deletes: ['a.png'],
    };
    const [result] = await applyImages([change], undefined, store, { concurrency: 1 });
    expect(result).toMatchObject({
      status: 'skipped',
      cause: 'a.png changed since the plan was made; nothing was moved',
    });
    expect([...store.files.keys()]).toEqual(['a.png']);
    expect(store.lock.size).toBe(0);
  });
});
