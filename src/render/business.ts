import type { Company } from '../model/index.js';
import type { PlanBusiness } from '../plan/index.js';
import { quoted, visible } from '../model/index.js';

/** The plan's header line for the account's business: who it is, or that the number has none. */
export function businessLine(business: PlanBusiness): string {
  const { company } = business;
  if (!company)
    return `business: ${visible(business.registrationNumber)} (no business is registered under this number)`;
  const details = [
    company.representationName === null ? undefined : `representative ${company.representationName}`,
    company.businessCategory === null ? undefined : `category ${company.businessCategory}`,
  ].filter((part) => part !== undefined);
  return visible(
    `business: ${company.businessRegistrationNumber} ${quoted(company.name)}${details.length > 0 ? ` (${details.join(', ')})` : ''}`,
  );
}

/** A company as `audiences company` shows it: one labelled line per field, missing ones left out. */
export function renderCompany(company: Company): string {
  const address = [
    company.address.zipCode === null ? undefined : `(${company.address.zipCode})`,
    company.address.baseAddress,
    company.address.detailAddress,
  ]
    .filter((part) => part !== undefined && part !== null)
    .join(' ');
  const rows: Array<[string, string | number | null]> = [
    ['registration number', company.businessRegistrationNumber],
    ['name', company.name],
    ['representative', company.representationName],
    ['category', company.businessCategory],
    ['item', company.businessItem],
    ['address', address === '' ? null : address],
    ['business id', company.id],
  ];
  const shown = rows.filter((row): row is [string, string | number] => row[1] !== null);
  const width = Math.max(...shown.map(([label]) => label.length));
  return `${shown.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${visible(String(value))}`).join('\n')}\n`;
}
