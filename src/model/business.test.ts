import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bizNumProblem, businessMismatches } from './business.js';
import type { Company } from './company.js';

describe('bizNumProblem', () => {
  it('accepts registered numbers (their check digits are right)', () => {
    for (const number of ['120-81-47521', '220-81-62458', '104-86-09326'])
      expect(bizNumProblem(number)).toBeUndefined();
  });

  it('names the right check digit of a mistyped number', () => {
    expect(bizNumProblem('120-81-47522')?.message).toBe(
      '120-81-47522 has a wrong check digit (the last digit would be 1)',
    );
  });

  it('refuses other forms, with the separated form as the hint for ten bare digits', () => {
    expect(bizNumProblem('1208147521')?.hint).toBe('write it with its hyphens: 120-81-47521');
    expect(bizNumProblem('1208147522')?.hint).toBe(
      'with its hyphens it would be 120-81-47522, but it has a wrong check digit (the last digit would be 1); a digit is mistyped: compare the number with the business registration certificate',
    );
    expect(bizNumProblem('120-8147521')?.hint).toBe('three, two and five digits with hyphens, e.g. 120-81-47521');
    for (const number of ['120-8147521', '120-81-4752', 'abc-de-fghij', ''])
      expect(bizNumProblem(number)?.message).toContain('is not a business registration number');
  });

  it('refuses the all-zero number, whose check digit would otherwise pass', () => {
    expect(bizNumProblem('000-00-00000')?.message).toContain('all zeros');
  });

  it('accepts exactly one last digit for any nine first digits (the spec formula, computed independently)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 }), (nine) => {
        fc.pre(nine.some((digit) => digit !== 0));
        const weights = [1, 3, 7, 1, 3, 7, 1, 3, 5];
        let sum = 0;
        for (let index = 0; index < 9; index += 1) sum += (nine[index] as number) * (weights[index] as number);
        sum += Math.floor(((nine[8] as number) * 5) / 10);
        const check = (10 - (sum % 10)) % 10;
        const text = nine.join('');
        const valid = [...Array(10).keys()].filter(
          (last) => bizNumProblem(`${text.slice(0, 3)}-${text.slice(3, 5)}-${text.slice(5)}${last}`) === undefined,
        );
        expect(valid).toEqual([check]);
      }),
    );
  });
});

describe('businessMismatches', () => {
  const company: Company = {
    id: '1',
    businessRegistrationNumber: '120-81-47521',
    name: 'Demo Commerce Co., Ltd.',
    representationName: 'Kim Minji',
    businessCategory: null,
    businessItem: 'Online shopping mall',
    address: { zipCode: null, baseAddress: null, detailAddress: null },
  };

  it('compares only the fields the file expects', () => {
    expect(businessMismatches({ registrationNumber: '120-81-47521', expected: {} }, company)).toEqual([]);
    expect(
      businessMismatches(
        {
          registrationNumber: '120-81-47521',
          expected: { name: 'Demo Commerce Co., Ltd.', businessCategory: 'Retail' },
        },
        company,
      ),
    ).toEqual([{ field: 'businessCategory', expected: 'Retail', actual: null }]);
  });
});
