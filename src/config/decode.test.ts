import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from './decode.js';

const bytes = (...parts: Array<string | number[]>): Uint8Array =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

describe('decodeUtf8', () => {
  it('decodes UTF-8 and drops a leading BOM', () => {
    expect(decodeUtf8(bytes([0xef, 0xbb, 0xbf], 'name: café'))).toEqual({ ok: true, text: 'name: café' });
  });

  it('points at a Latin-1 byte, counting characters (not bytes) before it on its line', () => {
    expect(decodeUtf8(bytes('a: 1\nname: é', [0xe9], '\n'))).toEqual({
      ok: false,
      at: { offset: 13, line: 2, column: 8 },
    });
  });

  it('refuses a lone continuation byte, an overlong form, a surrogate and a sequence cut short', () => {
    expect(decodeUtf8(bytes('ab', [0x80]))).toMatchObject({ ok: false, at: { line: 1, column: 3 } });
    expect(decodeUtf8(bytes('x', [0xc0, 0x80]))).toMatchObject({ ok: false, at: { offset: 1 } });
    expect(decodeUtf8(bytes([0xed, 0xa0, 0x80]))).toMatchObject({ ok: false, at: { offset: 0 } });
    expect(decodeUtf8(bytes('\n\nok', [0xe2, 0x82]))).toMatchObject({
      ok: false,
      at: { offset: 4, line: 3, column: 3 },
    });
  });

  it('points at a bad byte at the start of the file, in the middle of a line and just after a line break', () => {
    // At offset 0 there is no line break before the byte to look for: the file's last one is not it.
    expect(decodeUtf8(bytes([0xff], 'adAccountId: 1234\naudiences: []\n'))).toEqual({
      ok: false,
      at: { offset: 0, line: 1, column: 1 },
    });
    expect(decodeUtf8(bytes('adAccountId: 1\nname: ab', [0xff], 'c\naudiences: []\n'))).toEqual({
      ok: false,
      at: { offset: 23, line: 2, column: 9 },
    });
    expect(decodeUtf8(bytes('adAccountId: 1\n', [0xff], 'audiences: []\n'))).toEqual({
      ok: false,
      at: { offset: 15, line: 2, column: 1 },
    });
  });

  it('points at the first byte of a UTF-16 file with a BOM', () => {
    expect(decodeUtf8(Buffer.from('\ufeffadAccountId: 1234\naudiences: []\n', 'utf16le'))).toEqual({
      ok: false,
      at: { offset: 0, line: 1, column: 1 },
    });
    expect(decodeUtf8(Buffer.from('\ufeffadAccountId: 1234\naudiences: []\n', 'utf16le').swap16())).toEqual({
      ok: false,
      at: { offset: 0, line: 1, column: 1 },
    });
  });
});
