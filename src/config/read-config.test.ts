import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS, readDesiredStates } from './index.js';

const fixtures = fileURLToPath(new URL('../../test/fixtures/config/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'audiences-read-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readDesiredStates', () => {
  it('reads several files relative to cwd, in the order given, named as given', async () => {
    const results = await readDesiredStates(['valid.yaml', 'other-account.yaml', 'invalid.yaml'], fixtures);
    expect(results.map(({ file, result }) => [file, result.ok])).toEqual([
      ['valid.yaml', true],
      ['other-account.yaml', true],
      ['invalid.yaml', false],
    ]);
    const [valid] = results;
    if (!valid?.result.ok) throw new Error('valid.yaml should be valid');
    expect(valid.result.value.adAccountId).toBe(1234);
    expect(valid.result.value.audiences.map((audience) => audience.key)).toEqual([
      'seoul-women-20s',
      'gyeonggi-shoppers',
      'channel-friends',
    ]);
    expect(valid.result.value.source).toEqual({
      files: ['valid.yaml'],
      hash: createHash('sha256')
        .update(readFileSync(join(fixtures, 'valid.yaml')))
        .digest('hex'),
    });
  });

  it('hashes the bytes of the file, BOM included', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('adAccountId: 1\naudiences: []\n')]);
    writeFileSync(join(dir, 'bom.yaml'), bytes);
    const [read] = await readDesiredStates(['bom.yaml'], dir);
    expect(read?.result).toMatchObject({
      ok: true,
      value: { source: { hash: createHash('sha256').update(bytes).digest('hex') } },
    });
  });

  it('a missing file is a problem of that file, with a hint', async () => {
    const [read] = await readDesiredStates(['nope.yaml'], dir);
    expect(read?.result).toEqual({
      ok: false,
      issues: [
        {
          file: 'nope.yaml',
          line: 0,
          column: 0,
          pointer: '',
          message: 'file not found',
          hint: expect.stringContaining('audiences import'),
        },
      ],
    });
  });

  it('a directory is not a file', async () => {
    mkdirSync(join(dir, 'folder.yaml'));
    const [read] = await readDesiredStates(['folder.yaml'], dir);
    expect(read?.result).toMatchObject({ ok: false, issues: [{ message: 'is a directory, not a file' }] });
  });

  it('bytes that are not UTF-8, at the line and column of the bad byte', async () => {
    const [read] = await readDesiredStates(['latin1.yaml'], fixtures);
    expect(read?.result).toEqual({
      ok: false,
      issues: [
        {
          file: 'latin1.yaml',
          line: 3,
          column: 14,
          pointer: '',
          message: 'the file is not UTF-8 (byte 0xe9)',
          hint: 'save the file as UTF-8',
        },
      ],
    });
  });

  it('a byte that is not UTF-8 at the start of the file is at 1:1, not at the end of the file', async () => {
    writeFileSync(
      join(dir, 'first-byte.yaml'),
      Buffer.concat([Buffer.from([0xff]), Buffer.from('adAccountId: 1234\naudiences: []\n')]),
    );
    writeFileSync(join(dir, 'utf16.yaml'), Buffer.from('\ufeffadAccountId: 1234\naudiences: []\n', 'utf16le'));
    const read = await readDesiredStates(['first-byte.yaml', 'utf16.yaml'], dir);
    expect(read.map(({ result }) => result)).toEqual([
      {
        ok: false,
        issues: [
          {
            file: 'first-byte.yaml',
            line: 1,
            column: 1,
            pointer: '',
            message: 'the file is not UTF-8 (byte 0xff)',
            hint: 'save the file as UTF-8',
          },
        ],
      },
      {
        ok: false,
        issues: [
          {
            file: 'utf16.yaml',
            line: 1,
            column: 1,
            pointer: '',
            message: 'the file is not UTF-8 (byte 0xff)',
            hint: 'save the file as UTF-8',
          },
        ],
      },
    ]);
  });

  it('a file past the size limit stops the reading of every file before any is read, naming it with its size', async () => {
    // Sparse: 12 MB of nothing, which a parser would take for one long key.
    writeFileSync(join(dir, 'huge.yaml'), '');
    truncateSync(join(dir, 'huge.yaml'), 12 * 1024 * 1024);
    const refused = readDesiredStates([join(fixtures, 'valid.yaml'), 'huge.yaml', 'nope.yaml'], dir);
    await expect(refused).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      source: 'user',
      summary: 'huge.yaml is 12.0 MB, more than 8 MB, the limit of an audiences file',
      hint: expect.stringContaining('is this the right file?'),
    });
  });

  it('a file one byte past the limit is refused; one at the limit is read', async () => {
    writeFileSync(join(dir, 'limit.yaml'), Buffer.alloc(LIMITS.bytes + 1, 0x23));
    await expect(readDesiredStates(['limit.yaml'], dir)).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    truncateSync(join(dir, 'limit.yaml'), LIMITS.bytes);
    const [read] = await readDesiredStates(['limit.yaml'], dir);
    expect(read?.result).toMatchObject({ ok: false, issues: [{ message: 'the file is empty' }] });
  });

  it('a file whose size its stat does not tell is read no further than the limit', async () => {
    await expect(readDesiredStates(['/dev/zero'], dir)).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      summary: '/dev/zero is larger than 8 MB, the limit of an audiences file',
    });
  });
});
