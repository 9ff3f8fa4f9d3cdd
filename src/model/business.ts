import type { Company } from './company.js';

/** The registration number's form, with its separators: three, two and five digits. */
export const BIZNUM_PATTERN = /^[0-9]{3}-[0-9]{2}-[0-9]{5}$/;

const CHECK_WEIGHTS = [1, 3, 7, 1, 3, 7, 1, 3, 5] as const;

/**
 * Why a business registration number cannot exist, or undefined when it can: the form
 * XXX-XX-XXXXX, not all zeros, and the check digit (weights 1,3,7,1,3,7,1,3,5 over the
 * first nine digits, plus floor(ninth × 5 / 10); the tenth is (10 − sum mod 10) mod 10).
 * Checked offline, so a typo never costs a request.
 */
export function bizNumProblem(bizNum: string): { message: string; hint: string } | undefined {
  if (!BIZNUM_PATTERN.test(bizNum)) {
    return {
      message: `${JSON.stringify(bizNum)} is not a business registration number of the form XXX-XX-XXXXX`,
      hint: bizNumFormHint(bizNum),
    };
  }
  const digits = [...bizNum.replaceAll('-', '')].map(Number);
  if (digits.every((digit) => digit === 0))
    return {
      message: `${bizNum} is all zeros, which is no business registration number`,
      hint: 'copy the number from the business registration certificate',
    };
  const expected = checkDigit(digits);
  if (digits[9] !== expected) {
    return {
      message: `${bizNum} has a wrong check digit (the last digit would be ${expected})`,
      hint: 'a digit is mistyped: compare the number with the business registration certificate',
    };
  }
  return undefined;
}

/** Ten bare digits, as people often copy a registration number, in the form XXX-XX-XXXXX; anything else: undefined. */
export function dashedBizNum(bizNum: string): string | undefined {
  const text = bizNum.trim();
  return /^\d{10}$/.test(text) ? `${text.slice(0, 3)}-${text.slice(3, 5)}-${text.slice(5)}` : undefined;
}

/**
 * The hint for a number not of the form XXX-XX-XXXXX: ten bare digits get their dashed form,
 * and, if that form cannot exist either, why (so the suggestion is never a number to copy in vain).
 */
export function bizNumFormHint(bizNum: string): string {
  const dashed = dashedBizNum(bizNum);
  if (dashed === undefined) return 'three, two and five digits with hyphens, e.g. 120-81-47521';
  const problem = bizNumProblem(dashed);
  if (problem === undefined) return `write it with its hyphens: ${dashed}`;
  return `with its hyphens it would be ${dashed}, but it ${problem.message.slice(dashed.length + 1)}; ${problem.hint}`;
}

function checkDigit(digits: number[]): number {
  const weighted = CHECK_WEIGHTS.reduce((sum, weight, index) => sum + weight * (digits[index] ?? 0), 0);
  const sum = weighted + Math.floor(((digits[8] ?? 0) * 5) / 10);
  return (10 - (sum % 10)) % 10;
}

/** The company fields a file may expect, in the order they are shown. */
export const EXPECTED_BUSINESS_FIELDS = ['name', 'representationName', 'businessCategory', 'businessItem'] as const;
export type ExpectedBusinessField = (typeof EXPECTED_BUSINESS_FIELDS)[number];

/** The account's business as the file declares it: the number and any fields it expects. */
export interface DesiredBusiness {
  registrationNumber: string;
  expected: Partial<Record<ExpectedBusinessField, string>>;
}

/** Each expected field the company does not have as declared. */
export function businessMismatches(
  desired: DesiredBusiness,
  company: Company,
): Array<{ field: ExpectedBusinessField; expected: string; actual: string | null }> {
  return EXPECTED_BUSINESS_FIELDS.flatMap((field) => {
    const expected = desired.expected[field];
    const actual = company[field];
    return expected === undefined || expected === actual ? [] : [{ field, expected, actual }];
  });
}
