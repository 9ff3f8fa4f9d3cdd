import type { Company } from '../model/index.js';
import { isApiError } from './api-error.js';
import type { Company as CompanyWire } from './generated/wire.js';
import type { HttpClient } from './http.js';
import { PATH_SETTINGS } from './path-settings.js';

/** The business-information lookup for one ad account (the service wants the account in a header). */
export interface BusinessClient {
  readonly adAccountId: number;
  /** The business registered under this number, or null when the service knows none (404). */
  lookup(bizNum: string): Promise<Company | null>;
}

/**
 * The service expects the number with its separators (XXX-XX-XXXXX); ten bare digits, as
 * people often copy them, are given the separators rather than sent to be refused.
 */
export function formatBizNum(bizNum: string): string {
  const text = bizNum.trim();
  return /^\d{10}$/.test(text) ? `${text.slice(0, 3)}-${text.slice(3, 5)}-${text.slice(5)}` : text;
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
export function createBusinessClient(http: HttpClient, adAccountId: number, path: string = PATH_SETTINGS.ADS_COMPANY_PATH): BusinessClient {
  const headers = { adAccountId: String(adAccountId) };
  return {
    adAccountId,
    lookup: async (bizNum) => {
      try {
        const body = await http.request({ method: 'GET', path, query: { bizNum: formatBizNum(bizNum) }, headers, response: 'Company' });
        return companyFromWire(body);
      } catch (error) {
        // "No such business" is an answer, not a failure; every other error stays one.
        if (isApiError(error) && error.kind === 'http' && error.status === 404) return null;
        throw error;
      }
    },
  };
}
