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

  it('suggests nothing when no word is close', () => {
    expect(suggest('banner', ['DISPLAY', 'MESSAGE'])).toBeUndefined();
    expect(suggest('X', ['A', 'B'])).toBeUndefined();
  });
});
