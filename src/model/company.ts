import type { Long } from './long.js';

/** A registered business, as the business-information lookup describes it. */
export interface Company {
  /** The service's id of the business; null when the answer left it out. */
  id: Long | null;
  /** Written with separators, e.g. 120-81-47521. */
  businessRegistrationNumber: string;
  name: string;
  representationName: string | null;
  businessCategory: string | null;
  businessItem: string | null;
  /** Always an object, so callers need no second null check; a part the service left out is null. */
  address: CompanyAddress;
}

export interface CompanyAddress {
  zipCode: string | null;
  baseAddress: string | null;
  detailAddress: string | null;
}
