import { AppError } from '../../errors.js';
import type { KindOperations } from './kind.js';

/** The business: looked up once per plan, beside the account's list, and again to check a saved plan. */
export const businessSource: KindOperations<'business'> = {
  kind: 'business',
  read: async (desired, { services }) => {
    if (!desired.business) return {};
    // Opened only for a file that declares a business.
    const business = services?.business?.(desired.adAccountId);
    if (!business)
      throw new AppError({
        code: 'NO_SERVICE',
        source: 'internal',
        summary: 'the file declares a business, but no business lookup was given',
      });
    return { business: await business.lookup(desired.business.registrationNumber) };
  },
  readCurrent: async (plan, { services }) => {
    const business = plan.business ? services?.business?.(plan.adAccountId) : undefined;
    return plan.business && business ? { business: await business.lookup(plan.business.registrationNumber) } : {};
  },
};
