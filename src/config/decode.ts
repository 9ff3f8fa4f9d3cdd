/** Where the first byte that is not UTF-8 sits, as a 1-based line and column. */
export interface BadByte {
  offset: number;
  line: number;
  column: number;
}

/**
 * Decodes a file as UTF-8, refusing anything else: a stray Latin-1 byte would otherwise
 * become U+FFFD in an audience name and be sent to the service. A leading BOM is dropped.
 */
export function decodeUtf8(bytes: Uint8Array): { ok: true; text: string } | { ok: false; at: BadByte } {
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, at: locateBadByte(bytes) };
  }
}

function locateBadByte(bytes: Uint8Array): BadByte {
  const offset = firstInvalidOffset(bytes);
  // At offset 0 no line break comes before the byte, and lastIndexOf from -1 would search
  // from the end: a bad first byte (a UTF-16 BOM) was put on the file's last line.
  const lineStart = offset === 0 ? 0 : bytes.lastIndexOf(0x0a, offset - 1) + 1;
  let line = 1;
  for (let index = 0; index < lineStart; index += 1) if (bytes[index] === 0x0a) line += 1;
  // Columns count characters of the valid text before the byte, as editors do.
  const column = new TextDecoder('utf-8').decode(bytes.subarray(lineStart, offset)).length + 1;
  return { offset, line, column };
}

/** The offset of the first byte that does not start or continue a well-formed UTF-8 sequence. */
function firstInvalidOffset(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] ?? 0;
    let length: number;
    let min = 0x80;
    let max = 0xbf;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) min = 0xa0;
      if (lead === 0xed) max = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) min = 0x90;
      if (lead === 0xf4) max = 0x8f;
    } else return index;
    for (let next = 1; next < length; next += 1) {
      const byte = bytes[index + next];
      const low = next === 1 ? min : 0x80;
      const high = next === 1 ? max : 0xbf;
      if (byte === undefined || byte < low || byte > high) return index;
    }
    index += length;
  }
  return bytes.length;
}
