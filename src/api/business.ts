import { dashedBizNum, type Company } from '../model/index.js';
import { hasServiceErrorBody, isApiError, type ApiError } from './api-error.js';
import type { Company as CompanyWire } from './generated/wire.js';
import type { HttpClient } from './http.js';
import { PATH_SETTINGS } from './path-settings.js';

/** The business-information lookup for one ad account (the service wants the account in a header). */
export interface BusinessClient {
  readonly adAccountId: number;
  /**
   * The business registered under this number, or null when the service says it knows none: its
   * detail code 5001, or a 404 with its error body. A 404 from whatever else answers (a wrong
   * address) and an answer about another number are errors.
   */
  lookup(bizNum: string): Promise<Company | null>;
}

/** The service's detail code for "no business is registered under that number" (존재하지 않는 사업자입니다). */
const NO_SUCH_BUSINESS = 5001;

/** Whether the service's answer says no business has the number (rather than that the request went wrong). */
function isNoSuchBusiness(error: ApiError): boolean {
  if (error.kind !== 'http') return false;
  return error.detailCode === NO_SUCH_BUSINESS || (error.status === 404 && hasServiceErrorBody(error));
}

/** The ten digits of a registration number, however it is written. */
function digitsOf(bizNum: string): string {
  return bizNum.replace(/\D/g, '');
}

/**
 * The service expects the number with its separators (XXX-XX-XXXXX); ten bare digits, as
 * people often copy them, are given the separators rather than sent to be refused.
 */
export function formatBizNum(bizNum: string): string {
  return dashedBizNum(bizNum) ?? bizNum.trim();
}

/** The one place where the wire's company becomes the model: optional and null fields read as null. */
export function companyFromWire(wire: CompanyWire): Company {
  const address = wire.address ?? {};
  return {
    id: wire.id === undefined ? null : String(wire.id),
    businessRegistrationNumber: wire.businessRegistrationNumber,
    name: wire.name,
    representationName: wire.representationName ?? null,
    businessCategory: wire.businessCategory ?? null,
    businessItem: wire.businessItem ?? null,
    address: {
      zipCode: address.zipCode ?? null,
      baseAddress: address.baseAddress ?? null,
      detailAddress: address.detailAddress ?? null,
    },
  };
}

/** `path` is the lookup's path under the service's URL (ADS_COMPANY_PATH; the spec's by default). */
export function createBusinessClient(
  http: HttpClient,
  adAccountId: number,
  path: string = PATH_SETTINGS.ADS_COMPANY_PATH,
): BusinessClient {
  const headers = { adAccountId: String(adAccountId) };
  return {
    adAccountId,
    lookup: async (bizNum) => {
      const asked = formatBizNum(bizNum);
      // An answer about another business is no answer to this lookup: taking it would check the file against the wrong
      // company.
      const check = (answer: CompanyWire): string | undefined =>
        digitsOf(answer.businessRegistrationNumber) === digitsOf(asked)
          ? undefined
          : `it describes the business registered under ${JSON.stringify(answer.businessRegistrationNumber)}, not ${asked}`;
      try {
        return companyFromWire(
          await http.request({ method: 'GET', path, query: { bizNum: asked }, headers, response: 'Company', check }),
        );
      } catch (error) {
        // "No such business" is an answer, not a failure; every other error stays one.
        if (isApiError(error) && isNoSuchBusiness(error)) return null;
        throw error;
      }
    },
  };
}
