import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { audienceDefinition, audienceName } from '../../test/helpers/arbitraries.js';
import { AGE_BANDS, type AudienceDefinition, type Region } from './audience.js';
import {
  canonicalizeDefinition,
  canonicalizeOwnDefinition,
  canonicalizeRegions,
  compareText,
  uniqueSorted,
} from './canonicalize.js';

/** What a set is sorted to, the plain way: its values once each, by rank, equal ranks in the order they came. */
function reference<T>(values: T[], rank: (value: T) => number | string): T[] {
  return [...new Set(values)].sort((a, b) => {
    const left = rank(a);
    const right = rank(b);
    return typeof left === 'number' && typeof right === 'number'
      ? left - right
      : compareText(String(left), String(right));
  });
}

// Short texts from few letters, so that sets repeat values and ranks tie; lengths on both sides of the small-set path.
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', '2'), maxLength: 3 });
const values = <T>(value: fc.Arbitrary<T>) => fc.array(value, { maxLength: 40 });

describe('sets in their canonical order', () => {
  it('a set of texts or codes: each value once, in order, whatever its length', () => {
    fc.assert(
      fc.property(values(text), (set) => {
        expect(uniqueSorted(set, (value) => value)).toEqual(reference(set, (value) => value));
      }),
    );
  });

  it('a set ranked with ties (age bands, and values no band ranks): equal ranks keep the order they came in', () => {
    const band = fc.oneof(fc.constantFrom(...AGE_BANDS), text);
    const byBand = (value: string) => (AGE_BANDS as readonly string[]).indexOf(value);
    const byLength = (value: string) => value.length;
    fc.assert(
      fc.property(values(band), (set) => {
        expect(uniqueSorted(set, byBand)).toEqual(reference(set, byBand));
        expect(uniqueSorted(set, byLength)).toEqual(reference(set, byLength));
      }),
    );
  });

  it('regions: the first of each code, by code', () => {
    const region = fc.record({ value: text, description: text });
    fc.assert(
      fc.property(values(region), (regions: Region[]) => {
        const byCode = new Map<string, Region>();
        for (const each of regions) if (!byCode.has(each.value)) byCode.set(each.value, each);
        const expected = [...byCode.values()].sort((a, b) => compareText(a.value, b.value));
        const canonical = canonicalizeRegions(regions);
        expect(canonical).toEqual(expected);
        // The same objects, as the Map kept them.
        canonical.forEach((each, index) => expect(each).toBe(expected[index]));
      }),
    );
  });

  it('a definition just built, put in order where it is, equals its canonical copy, keys in the same order', () => {
    fc.assert(
      fc.property(audienceDefinition(audienceName), fc.boolean(), (canonical, repeat) => {
        // Each set out of order, and with its first value again.
        const scrambled = Object.fromEntries(
          Object.entries(canonical).map(([key, value]) => [
            key,
            Array.isArray(value) ? [...value].reverse().concat(repeat ? value.slice(0, 1) : []) : value,
          ]),
        ) as AudienceDefinition;
        const expected = canonicalizeDefinition(scrambled);
        const own = canonicalizeOwnDefinition(structuredClone(scrambled));
        expect(own).toEqual(expected);
        expect(Object.keys(own)).toEqual(Object.keys(expected));
      }),
    );
  });
});
