import { businessMismatches, type Company, type DesiredBusiness } from '../model/index.js';
import type { PlanBusiness, PlanProblem } from './types.js';

/**
 * The declared business against the lookup's answer: the plan's header, and an error (so
 * nothing is applied) when no business has the number or an expected field differs.
 */
export function planBusiness(desired: DesiredBusiness, company: Company | null): { header: PlanBusiness; errors: PlanProblem[] } {
  const header: PlanBusiness = { registrationNumber: desired.registrationNumber, company };
  if (company === null) {
    return {
      header,
      errors: [
        {
          code: 'BUSINESS_NOT_FOUND',
          message: `no business is registered under ${desired.registrationNumber}`,
          hint: 'check business.registrationNumber against the business registration certificate (`audiences company NUMBER` looks a number up)',
        },
      ],
    };
  }
  const errors = businessMismatches(desired, company).map(
    ({ field, expected, actual }): PlanProblem => ({
      code: 'BUSINESS_MISMATCH',
      message: `the business ${desired.registrationNumber} has ${field} ${JSON.stringify(actual)}, but the file expects ${JSON.stringify(expected)}`,
      hint: `is this the right number for this account? If the business changed its ${field}, update business.${field}`,
    }),
  );
  return { header, errors };
}
