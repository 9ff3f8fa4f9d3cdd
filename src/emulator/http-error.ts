/**
 * The emulator's error answers: a 4xx/5xx status and the service's error body
 * `{code, msg, extras: {detailCode, detailMsg}}`.
 */
import { stringify } from 'lossless-json';
export interface ErrorBody {
  code: number;
  msg: string;
  extras?: { detailCode?: number; detailMsg?: string };
}

export class EmulatorError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.extras?.detailMsg ?? body.msg);
  }
}

/**
 * A value of a request as an error message quotes it, as JSON: a bigint (an integer past 2^53,
 * read exactly from a body) is written as the number it is, where JSON.stringify would throw.
 */
export function shown(value: unknown): string {
  return stringify(value) ?? String(value);
}

/** A rule broken by the request: 400 with a specific detail code and message. */
export function invalid(detailCode: number, detailMsg: string): EmulatorError {
  return new EmulatorError(400, { code: -400, msg: 'invalid request', extras: { detailCode, detailMsg } });
}

/**
 * Every detail code the emulator answers with, grouped by hundreds: 1xxx request form,
 * 2xxx authentication, 3xxx not found, 4xxx body rules (4N0x = rule N of the spec),
 * 5xxx deletion, 6xxx registration numbers, 8xxx load and faults (7xxx belongs to image
 * generation, imagegen-rules.ts). SPEC.md lists them all.
 */
export const detailCodes = {
  malformedJson: 1001,
  bodyNotObject: 1002,
  unsupportedMediaType: 1003,
  bodyTooLarge: 1004,
  badPathId: 1005,
  badQuery: 1006,
  noRoute: 1007,
  methodNotAllowed: 1008,
  authMissing: 2001,
  authScheme: 2002,
  authUnknown: 2003,
  accountHeader: 2004,
  accountForbidden: 2005,
  crossOrigin: 2006,
  audienceNotFound: 3001,
  companyNotFound: 3002,
  notLinked: 3003,
  adGroupNotFound: 3004,
  imageNotFound: 3005,
  required: 4001,
  forbiddenField: 4002,
  unknownField: 4003,
  wrongType: 4004,
  badEnum: 4005,
  accountMismatch: 4006,
  badName: 4007,
  rule1Forbidden: 4101,
  rule1Required: 4102,
  badAge: 4103,
  rule2Forbidden: 4201,
  rule2Required: 4202,
  badGender: 4203,
  rule3Bands: 4301,
  rule3AgeType: 4302,
  rule4: 4401,
  rule5: 4501,
  badRegion: 4502,
  rule6: 4601,
  rule7Type: 4701,
  rule7Campaign: 4702,
  rule8: 4801,
  rule9: 4901,
  badMember: 4902,
  badUfoCode: 4903,
  inUse: 5001,
  badIdList: 5002,
  bizNumFormat: 6001,
  bizNumCheckDigit: 6002,
  rateLimited: 8001,
  injectedFault: 8002,
  internal: 8003,
  stateNotStored: 8004,
} as const;

const statusMessages: Record<number, string> = {
  400: 'invalid request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  405: 'method not allowed',
  413: 'payload too large',
  415: 'unsupported media type',
  429: 'too many requests',
  500: 'internal server error',
  503: 'service unavailable',
};

/** Any failure other than a 400 rule violation, with the same body shape. */
export function failure(status: number, detailCode: number, detailMsg: string): EmulatorError {
  return new EmulatorError(status, {
    code: -status,
    msg: statusMessages[status] ?? 'error',
    extras: { detailCode, detailMsg },
  });
}

/** The two statuses the real service answers a quota excess with. */
export const quotaStatuses = [429, 400] as const;
export type QuotaStatus = (typeof quotaStatuses)[number];

/**
 * A quota excess (rate limit or injected 429) as the real service spells it: 429 with code
 * -813, or 400 with code -10 "allowed request count exceeded" (wire decision §1). Both carry
 * detail code 8001, so a test can tell them from any other 400.
 */
export function quotaExceeded(status: QuotaStatus, detailMsg: string): EmulatorError {
  const head =
    status === 429 ? { code: -813, msg: 'too many requests' } : { code: -10, msg: 'allowed request count exceeded' };
  return new EmulatorError(status, { ...head, extras: { detailCode: detailCodes.rateLimited, detailMsg } });
}
