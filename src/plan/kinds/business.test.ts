import { describe, expect, it } from 'vitest';
import { planBusiness } from './business.js';

describe('planBusiness', () => {
  const company = {
    id: '1',
    businessRegistrationNumber: '120-81-47521',
    name: 'Demo Commerce Co., Ltd.',
    representationName: 'Kim Minji',
    businessCategory: 'Retail',
    businessItem: null,
    address: { zipCode: null, baseAddress: null, detailAddress: null },
  };

  it('is an error when no business has the number, or an expected field differs', () => {
    expect(
      planBusiness({ registrationNumber: '120-81-47521', expected: {} }, null).errors.map((error) => error.code),
    ).toEqual(['BUSINESS_NOT_FOUND']);
    const mismatch = planBusiness(
      { registrationNumber: '120-81-47521', expected: { name: 'Other Ltd.', representationName: 'Kim Minji' } },
      company,
    );
    expect(mismatch.errors.map((error) => error.message)).toEqual([
      'the business 120-81-47521 has name "Demo Commerce Co., Ltd.", but the file expects "Other Ltd."',
    ]);
    expect(mismatch.header).toEqual({ registrationNumber: '120-81-47521', company });
  });
});
