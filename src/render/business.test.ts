import { describe, expect, it } from 'vitest';
import { desiredState, liveState } from '../../test/helpers/builders.js';
import type { Company } from '../model/index.js';
import { planAccount } from '../plan/index.js';
import { businessLine, renderCompany } from './business.js';
import { renderMarkdown } from './markdown.js';
import { plainStyle } from './style.js';
import { renderText } from './text.js';

const company: Company = {
  id: '1',
  businessRegistrationNumber: '120-81-47521',
  name: 'Demo Commerce Co., Ltd.',
  representationName: 'Kim Minji',
  businessCategory: null,
  businessItem: 'Online shopping mall',
  address: { zipCode: '06236', baseAddress: '152 Teheran-ro', detailAddress: null },
};

describe('the business in plans and in `audiences company`', () => {
  it('heads the text and Markdown plans, and says when the number has no business', () => {
    const desired = desiredState([], { business: { registrationNumber: '120-81-47521', expected: {} } });
    const plan = planAccount(desired, { ...liveState([]), business: company }, { allowMassDelete: false });
    expect(renderText(plan, plainStyle).split('\n').slice(0, 2)).toEqual([
      'audiences plan for ad account 1234',
      'business: 120-81-47521 "Demo Commerce Co., Ltd." (representative Kim Minji)',
    ]);
    expect(renderMarkdown(plan)).toContain(
      '\nbusiness: 120-81-47521 "Demo Commerce Co., Ltd." (representative Kim Minji)\n',
    );
    expect(businessLine({ registrationNumber: '123-45-67891', company: null })).toBe(
      'business: 123-45-67891 (no business is registered under this number)',
    );
  });

  it('shows a company one labelled field a line, leaving out what the service did not say', () => {
    expect(renderCompany(company)).toBe(
      [
        'registration number: 120-81-47521',
        'name:                Demo Commerce Co., Ltd.',
        'representative:      Kim Minji',
        'item:                Online shopping mall',
        'address:             (06236) 152 Teheran-ro',
        'business id:         1',
        '',
      ].join('\n'),
    );
  });
});
