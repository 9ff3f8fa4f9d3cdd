import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { AppError } from '../errors.js';
import { bizNumProblem, type Company } from '../model/index.js';
import type { BusinessLookup } from './kinds/kind.js';

/**
 * `audiences company`: the number is checked offline first (form and check digit), so a typo
 * costs no request; then it is looked up. A number no business has is an error too.
 */
export async function lookupCompany(bizNum: string, lookup: BusinessLookup): Promise<Company> {
  const number = checkBizNum(bizNum);
  const company = await lookup.lookup(number);
  if (!company) {
    throw new AppError({
      code: 'COMPANY_NOT_FOUND',
      source: 'user',
      summary: `no business is registered under ${number}`,
      hint: 'check the number against the business registration certificate',
    });
  }
  return company;
}

/** The number without surrounding spaces, or an error saying what is wrong with it. */
export function checkBizNum(bizNum: string): string {
  const number = bizNum.trim();
  const problem = bizNumProblem(number);
  if (problem)
    throw new AppError({ code: 'BIZNUM_INVALID', source: 'user', summary: problem.message, hint: problem.hint });
  return number;
}

/**
 * The ad account a lookup is made for: --ad-account, else the desired-state file's
 * `adAccountId`. Only that field is read, so a file with other problems still serves.
 */
export async function resolveAdAccount(explicit: number | undefined, file: string, cwd: string): Promise<number> {
  if (explicit !== undefined) return explicit;
  const noAccount = (why: string): AppError =>
    new AppError({
      code: 'NO_AD_ACCOUNT',
      source: 'user',
      summary: `no ad account to look the business up for: ${why}`,
      hint: 'pass --ad-account ID (the service wants the ad account with each lookup)',
    });
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch {
    throw noAccount(`${file} cannot be read`);
  }
  let data: unknown;
  try {
    data = parse(text);
  } catch {
    throw noAccount(`${file} is not valid YAML`);
  }
  const id = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)['adAccountId'] : undefined;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) throw noAccount(`${file} has no adAccountId`);
  return id;
}
