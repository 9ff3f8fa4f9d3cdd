import { describe, expect, it } from 'vitest';
import { suggest } from './suggest.js';

describe('suggest', () => {
  const fields = ['ages', 'ageType', 'genders', 'depth2Locations', 'locationType'];

  it('prefers the same word in another case', () => {
    expect(suggest('depth2locations', fields)).toBe('depth2Locations');
    expect(suggest('LOCATIONTYPE', fields)).toBe('locationType');
  });

  it('takes the nearest word within about one edit in three letters', () => {
    expect(suggest('agess', fields)).toBe('ages');
    expect(suggest('DISPLY', ['DISPLAY', 'MESSAGE'])).toBe('DISPLAY');
    expect(suggest('gendrs', fields)).toBe('genders');
  });

  it('counts two neighbouring letters swapped as one edit', () => {
    expect(suggest('tpye', ['type', 'name', 'ages'])).toBe('type');
    expect(suggest('aegs', fields)).toBe('ages');
    expect(suggest('widht', ['width', 'height'])).toBe('width');
    expect(suggest('nmae', ['name', 'registrationNumber'])).toBe('name');
    expect(suggest('prnue', ['prune', 'ignore'])).toBe('prune');
    expect(suggest('tpey', ['type'])).toBeUndefined();
  });

  it('suggests nothing when no word is close', () => {
    expect(suggest('banner', ['DISPLAY', 'MESSAGE'])).toBeUndefined();
    expect(suggest('X', ['A', 'B'])).toBeUndefined();
  });
});
