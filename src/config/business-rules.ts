import { BIZNUM_PATTERN, bizNumProblem } from '../model/index.js';
import type { Finding } from './issues.js';
import { isRecord } from './rules.js';

/**
 * The business's registration number, checked offline: its form is in the schema, its
 * check digit (and the all-zero number) here, so `validate` catches a mistyped digit.
 */
export function checkBusinessRules(file: unknown): Finding[] {
  if (!isRecord(file) || !isRecord(file['business'])) return [];
  const number = file['business']['registrationNumber'];
  // A number of the wrong form is the schema's to report; only a well-formed one gets here.
  if (typeof number !== 'string' || !BIZNUM_PATTERN.test(number)) return [];
  const problem = bizNumProblem(number);
  return problem ? [{ path: ['business', 'registrationNumber'], target: 'value', ...problem }] : [];
}
