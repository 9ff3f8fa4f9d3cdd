// Reading a zip archive (a GitHub Actions artifact) with Node's zlib alone: the central
// directory gives each entry's name, method and sizes, whatever the local headers say
// (artifact zips are written with data descriptors).
import { inflateRawSync } from 'node:zlib';

/**
 * The files of a zip archive, by name.
 * @param {Buffer} zip
 * @returns {Map<string, Buffer>}
 */
export function readZip(zip) {
  const end = findEndOfCentralDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('not a zip archive: broken central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (zip.readUInt32LE(localHeader) !== 0x04034b50) throw new Error(`not a zip archive: broken entry ${name}`);
    const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    if (method === 0) files.set(name, Buffer.from(data));
    else if (method === 8) files.set(name, inflateRawSync(data));
    else throw new Error(`zip entry ${name} uses compression method ${method}, which this reader does not know`);
  }
  return files;
}

/** @param {Buffer} zip */
function findEndOfCentralDirectory(zip) {
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === 0x06054b50) return at;
  }
  throw new Error('not a zip archive: no end of central directory');
}
