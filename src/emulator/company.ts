/**
 * The business-information lookup (business-api.md): GET /openapi/v1/companies?bizNum=…
 * The number is checked for its form and check digit (wire decision §9) before the lookup.
 */
import { detailCodes as codes, failure, invalid } from './http-error.js';
import type { Company, EmulatorState } from './store.js';

const weights = [1, 3, 7, 1, 3, 7, 1, 3, 5];

/** Whether the ten digits of a registration number (no separators) carry a valid check digit. */
export function hasValidCheckDigit(digits: string): boolean {
  if (!/^[0-9]{10}$/.test(digits)) return false;
  const d = [...digits].map(Number);
  let sum = 0;
  weights.forEach((weight, index) => {
    sum += (d[index] ?? 0) * weight;
  });
  sum += Math.floor(((d[8] ?? 0) * 5) / 10);
  return (10 - (sum % 10)) % 10 === d[9];
}

export function lookupCompany(state: EmulatorState, bizNum: string | null): Company {
  if (bizNum === null) throw invalid(codes.badQuery, "query parameter 'bizNum' is required");
  if (!/^[0-9]{3}-[0-9]{2}-[0-9]{5}$/.test(bizNum)) {
    throw invalid(codes.bizNumFormat, `bizNum must be written as XXX-XX-XXXXX (ten digits), got '${bizNum}'`);
  }
  const digits = bizNum.replaceAll('-', '');
  if (/^0+$/.test(digits)) throw invalid(codes.bizNumFormat, 'bizNum must not be all zeros');
  if (!hasValidCheckDigit(digits)) throw invalid(codes.bizNumCheckDigit, `bizNum ${bizNum} has an invalid check digit`);
  const company = state.companies.find((candidate) => candidate.businessRegistrationNumber === bizNum);
  if (!company) throw failure(404, codes.companyNotFound, `no company is registered under ${bizNum}`);
  return structuredClone(company);
}
