import {
  businessMismatches,
  jsonEqual,
  type Company,
  type DesiredBusiness,
  type JsonValue,
} from '../../model/index.js';
import type { PlanKind } from '../kind.js';
import { requireRead } from '../reads.js';
import type { PlanBusiness, PlanProblem } from '../types.js';

/**
 * The business precondition: a file may declare the account's business, which is looked up
 * and compared before anything else, and changes nothing itself. A plan whose business is
 * missing or different has an error, so none of its changes is applied.
 */
export const businessKind: PlanKind<'business'> = {
  kind: 'business',
  plan: ({ desired, live }) => {
    if (!desired.business) return { changes: [], errors: [], warnings: [] };
    const { header, errors } = planBusiness(desired.business, requireRead(live.business, 'the business lookup'));
    return { changes: [], errors, warnings: [], header: { business: header } };
  },
  staleReasons: (plan, current) => {
    if (!plan.business || current.business === undefined) return [];
    const same = jsonEqual(current.business as unknown as JsonValue, plan.business.company as unknown as JsonValue);
    return same
      ? []
      : [`the business registered under ${plan.business.registrationNumber} changed since the plan was made`];
  },
};

/**
 * The declared business against the lookup's answer: the plan's header, and an error (so
 * nothing is applied) when no business has the number or an expected field differs.
 */
export function planBusiness(
  desired: DesiredBusiness,
  company: Company | null,
): { header: PlanBusiness; errors: PlanProblem[] } {
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
  const errors = businessMismatches(desired, company).map(({ field, expected, actual }): PlanProblem => ({
    code: 'BUSINESS_MISMATCH',
    message: `the business ${desired.registrationNumber} has ${field} ${JSON.stringify(actual)}, but the file expects ${JSON.stringify(expected)}`,
    hint: `is this the right number for this account? If the business changed its ${field}, update business.${field}`,
  }));
  return { header, errors };
}
