import { describe, expect, it } from 'vitest';
import type { AudiencesFile } from '../config/index.js';
import { desiredFromFile } from '../../test/helpers/live-account.js';
import { accountFileClashes, mergeAccountFiles, type AccountFile } from './account-files.js';

function account(...files: Array<[string, Omit<AudiencesFile, 'adAccountId'>]>): AccountFile[] {
  return files.map(([file, content]) => ({ file, desired: desiredFromFile({ adAccountId: 1234, ...content }, file) }));
}

const BUSINESS = { registrationNumber: '120-81-47521' };

describe('the files of one ad account', () => {
  it('combine ignore and protect, and hold the strictest guard of any file, part by part', () => {
    const { desired, home } = mergeAccountFiles(
      account(
        ['a.yaml', { ignore: ['legacy-*'], massDelete: { percent: 50, minimum: 4 }, audiences: [] }],
        ['b.yaml', { protect: ['brand-*'], ignore: ['legacy-*', 'tmp-*'], audiences: [] }],
      ),
    );
    expect(home).toBe('a.yaml');
    expect(desired.ignore).toEqual(['legacy-*', 'tmp-*']);
    expect(desired.protect).toEqual(['brand-*']);
    // b.yaml sets no guard, so the default share (30%) holds; a.yaml's smaller minimum holds too.
    expect(desired.massDelete).toEqual({ ratio: 0.3, minManaged: 4 });
    expect(desired.source.files).toEqual(['a.yaml', 'b.yaml']);
  });

  it('take the business from the file that declares it, and refuse another one, but not the same again', () => {
    const files = account(['a.yaml', { audiences: [] }], ['b.yaml', { business: BUSINESS, audiences: [] }]);
    expect(accountFileClashes(files)).toEqual([]);
    expect(mergeAccountFiles(files).desired.business).toEqual({ registrationNumber: '120-81-47521', expected: {} });
    const same = account(
      ['a.yaml', { business: BUSINESS, audiences: [] }],
      ['b.yaml', { business: BUSINESS, audiences: [] }],
    );
    expect(accountFileClashes(same)).toEqual([]);
    const other = account(
      ['a.yaml', { business: BUSINESS, audiences: [] }],
      ['b.yaml', { business: { registrationNumber: '220-81-62517' }, audiences: [] }],
    );
    expect(accountFileClashes(other).map((clash) => [clash.file, clash.path, clash.message('a.yaml:3:3')])).toEqual([
      ['b.yaml', ['business'], 'business differs from the one a.yaml:3:3 declares for the same ad account'],
    ]);
  });
});
