/**
 * The one error the transport throws for anything the remote side did (or failed to do):
 * an AppError with source 'remote' that also carries the request, the status and the
 * service's own codes, so callers can branch on them and people can act on the message.
 */
import { AppError, type ErrorCode } from '../errors.js';
import { visible } from '../model/visible.js';
import { redact } from '../secrets.js';
import type { ErrorBody, ErrorExtras } from './generated/wire.js';
import { isQuotaAnswer } from './retry.js';

export type ServiceName = 'audience' | 'business' | 'imagegen';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * - `http`: the service answered with a non-2xx status;
 * - `network`: no answer (connection refused, reset, DNS, TLS);
 * - `timeout`: connecting, the response headers or the body took too long;
 * - `invalid-response`: a 2xx whose body is empty, not JSON or not the documented shape.
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'invalid-response';

export interface ApiErrorInit {
  service: ServiceName;
  /** Where the service's URL was set, when not its own variable (the business service at ADS_API_URL). */
  urlSetting?: string | undefined;
  method: HttpMethod;
  /** Path and query as requested, without the base URL. */
  path: string;
  kind: ApiErrorKind;
  status?: number | undefined;
  serviceCode?: number | undefined;
  serviceMsg?: string | undefined;
  detailCode?: number | undefined;
  detailMsg?: string | undefined;
  /** What went wrong when the service gave no message of its own. */
  reason?: string | undefined;
  ambiguous: boolean;
  attempts: number;
  /** Why the retries stopped early, when they did. */
  gaveUp?: string | undefined;
  cause?: unknown;
}

const SERVICE_LABEL: Record<ServiceName, string> = {
  audience: 'audience API',
  business: 'business-information API',
  imagegen: 'image-generation API',
};

/** The environment variable that holds each service's address. */
export const URL_VARIABLE: Record<ServiceName, string> = {
  audience: 'ADS_API_URL',
  business: 'ADS_COMPANY_URL',
  imagegen: 'IMAGEGEN_API_URL',
};

const CREDENTIAL_VARIABLE: Record<ServiceName, string> = {
  audience: 'ADS_ACCESS_TOKEN',
  business: 'ADS_ACCESS_TOKEN',
  imagegen: 'IMAGEGEN_API_KEY',
};

/**
 * The setting that shapes a service's paths beyond its URL, with its default and the real service's value
 * (docs/real-service.md).
 */
const PATH_VARIABLE: Partial<Record<ServiceName, string>> = {
  business:
    'ADS_COMPANY_PATH (unset: /openapi/v1/companies, as the spec writes it; the real service documents /openapi/v4/companies)',
  imagegen: 'IMAGEGEN_MODEL_FAMILY (unset: imagegen, as the spec writes the paths; the real service has karlo)',
};

/**
 * What the ads platform's detail codes that name the ad account or a permission mean, from its
 * error list (21006 and 6003 "the ad account does not exist", 20023 "the ad account's serving
 * state is not allowed") and, for 9004 "no permission", from what users of the service report:
 * said as the service says it, with where to look.
 */
const ACCOUNT_DETAIL_HINTS: Readonly<Record<number, string>> = {
  21006: 'The service says this ad account does not exist: check adAccountId in the file (or --ad-account).',
  6003: 'The service says this ad account does not exist: check adAccountId in the file (or --ad-account).',
  20023:
    "The service says the ad account's state does not allow this (it may be turned off, suspended or deleted): check the account in the ad platform.",
  9004: "The service says there is no permission: the user of ADS_ACCESS_TOKEN may not be a member of this ad account (or not in a role that may do this), or the app may lack this API's permission; check the account's members and the app's permissions.",
};

/** The codes of the service's errors: the remote side's, as the list says of each. */
type ApiErrorCode = Extract<ErrorCode, `API_${string}`>;

function errorCode(init: ApiErrorInit): ApiErrorCode {
  switch (init.kind) {
    case 'network':
      return 'API_UNREACHABLE';
    case 'timeout':
      return 'API_TIMEOUT';
    case 'invalid-response':
      return 'API_INVALID_RESPONSE';
    case 'http':
      break;
  }
  const status = init.status ?? 0;
  if (isQuotaAnswer(status, init.serviceCode)) return 'API_RATE_LIMITED';
  if (status === 401) return 'API_UNAUTHORIZED';
  if (status === 403) return 'API_FORBIDDEN';
  if (status === 404) return 'API_NOT_FOUND';
  if (status >= 500) return 'API_SERVER_ERROR';
  return 'API_REJECTED';
}

/**
 * The one source of a remote error's hint, wherever the error shows (a plan's error, an apply's
 * FAILED line): what the service's answer says of the settings, the account or the request.
 */
function hintFor(init: ApiErrorInit): string | undefined {
  const label = SERVICE_LABEL[init.service];
  const urlSetting = init.urlSetting ?? URL_VARIABLE[init.service];
  const pathSetting = PATH_VARIABLE[init.service];
  const address = pathSetting === undefined ? urlSetting : `${urlSetting} and ${pathSetting}`;
  if (init.kind === 'network') {
    return `Is the ${label} reachable, and is the URL right (${urlSetting})?`;
  }
  if (init.kind === 'timeout') {
    return `The ${label} is slow or unreachable: try again later, and check the URL (${urlSetting}).`;
  }
  if (init.kind === 'invalid-response') {
    return `Check that ${address} point${pathSetting === undefined ? 's' : ''} at the ${label} itself, not at a proxy or another service.`;
  }
  if (isQuotaAnswer(init.status ?? 0, init.serviceCode)) {
    // The file's requestsPerSecond paces the audience API alone (the business lookup and the images are the key's).
    const setting = init.service === 'audience' ? ' or requestsPerSecond: N in the file of the account' : '';
    return `The service's request quota is used up: run again later, or pace the requests with --requests-per-second N${setting} (below the rate the service allows), and a lower --concurrency.`;
  }
  const account =
    init.service === 'imagegen' || init.detailCode === undefined ? undefined : ACCOUNT_DETAIL_HINTS[init.detailCode];
  if (account !== undefined) return account;
  // The service's own 404 (an audience or a business it does not know) has its error body; any other is an address it
  // does not serve. A generated image's file (the one GET of image generation) lives at the URL the service gave, which
  // no setting shapes.
  const download = init.service === 'imagegen' && init.method === 'GET';
  if (init.status === 404 && !hasServiceErrorBody(init) && !download) {
    return `Nothing of the ${label} is at this address (the answer is not the service's error): check ${address}.`;
  }
  switch (init.status) {
    case 401:
      return init.service === 'imagegen'
        ? 'Check the key in IMAGEGEN_API_KEY (missing, malformed or expired) and the scheme word sent before it, IMAGEGEN_AUTH_SCHEME (unset: AppKey, as the spec writes it; the real service has KakaoAK).'
        : `Check the credential in ${CREDENTIAL_VARIABLE[init.service]}: it is missing, malformed or expired.`;
    case 403:
      return init.service === 'imagegen'
        ? `Check that the key in ${CREDENTIAL_VARIABLE[init.service]} may use the image-generation API.`
        : `Check the token in ${CREDENTIAL_VARIABLE[init.service]} and that it may act on this ad account (adAccountId).`;
    default:
      return (init.status ?? 0) >= 500 ? `The ${label} failed on its side: try again later.` : undefined;
  }
}

function summaryOf(init: ApiErrorInit): string {
  const label = SERVICE_LABEL[init.service];
  const request = `${init.method} ${init.path}`;
  const message = init.detailMsg ?? init.serviceMsg ?? init.reason;
  const suffix = message === undefined || message === '' ? '' : `: ${message}`;
  switch (init.kind) {
    case 'http':
      return `the ${label} answered ${String(init.status)} to ${request}${suffix}`;
    case 'network':
      return `could not reach the ${label} for ${request}${suffix}`;
    case 'timeout':
      return `the ${label} timed out on ${request}${suffix}`;
    case 'invalid-response':
      return `the ${label} answered ${request} with an unexpected body${suffix}`;
  }
}

function detailOf(init: ApiErrorInit): string | undefined {
  const lines: string[] = [];
  if (init.serviceCode !== undefined || init.detailCode !== undefined) {
    const codes = [
      init.serviceCode === undefined ? undefined : `service code ${String(init.serviceCode)}`,
      init.detailCode === undefined ? undefined : `detail code ${String(init.detailCode)}`,
    ].filter((part) => part !== undefined);
    // The detail is a few lines of the tool's own: a line break of the service's message would make one more.
    const message =
      init.detailMsg !== undefined && init.serviceMsg !== undefined ? ` (${visible(init.serviceMsg)})` : '';
    lines.push(`${codes.join(', ')}${message}`);
  }
  if (init.attempts > 1) lines.push(`tried ${String(init.attempts)} times`);
  if (init.gaveUp !== undefined) lines.push(init.gaveUp);
  if (init.ambiguous) {
    lines.push(
      'The request may have been carried out although no usable answer came back: check the live state before sending it again.',
    );
  }
  return lines.length === 0 ? undefined : lines.join('\n');
}

export class ApiError extends AppError {
  readonly service: ServiceName;
  readonly method: HttpMethod;
  readonly path: string;
  readonly kind: ApiErrorKind;
  readonly status: number | undefined;
  readonly serviceCode: number | undefined;
  readonly detailCode: number | undefined;
  readonly detailMsg: string | undefined;
  /** A non-idempotent request (a create) may have taken effect: reconcile before retrying. */
  readonly ambiguous: boolean;
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    const detail = detailOf(init);
    const hint = hintFor(init);
    super({
      code: errorCode(init),
      summary: redact(summaryOf(init)),
      ...(detail === undefined ? {} : { detail: redact(detail) }),
      ...(hint === undefined ? {} : { hint }),
      source: 'remote',
      cause: init.cause,
    });
    this.name = 'ApiError';
    this.service = init.service;
    this.method = init.method;
    this.path = redact(init.path);
    this.kind = init.kind;
    this.status = init.status;
    this.serviceCode = init.serviceCode;
    this.detailCode = init.detailCode;
    this.detailMsg = init.detailMsg === undefined ? undefined : redact(init.detailMsg);
    this.ambiguous = init.ambiguous;
    this.attempts = init.attempts;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/**
 * Whether an answer's body was the service's error (it carries the service's codes), not a page from whatever else
 * answered.
 */
export function hasServiceErrorBody(error: Pick<ApiErrorInit, 'serviceCode' | 'detailCode'>): boolean {
  return error.serviceCode !== undefined || error.detailCode !== undefined;
}

/**
 * A message that names only the service's exception class (the real service sends
 * "KakaoMomentException" with every error): it says nothing the codes do not, so it is not
 * shown. Only a Java class name of an exception, alone, bare or with its package
 * (`com.kakao.moment.KakaoMomentException`); any other message, `ValidationError` say, is the
 * service's words and is shown.
 */
function isExceptionName(message: string): boolean {
  return /^(?:[a-z][a-z0-9_]*\.)*[A-Z][A-Za-z0-9]*[a-z0-9]Exception$/.test(message.trim());
}

/** What an error body says, read tolerantly: any field may be missing, null or mistyped. */
export interface ErrorFields {
  serviceCode?: number;
  serviceMsg?: string;
  detailCode?: number;
  detailMsg?: string;
  /** The start of a body that is not the service's error shape (an HTML page from a proxy). */
  reason?: string;
}

const SNIPPET_LENGTH = 200;

export function snippet(text: string): string {
  const flat = redact(text).replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET_LENGTH ? `${flat.slice(0, SNIPPET_LENGTH)}…` : flat;
}

const MESSAGE_LENGTH = 1000;

/**
 * A service's message as an error shows it: whole up to 1000 characters, then its start and
 * how much was cut (the codes are kept whole). Secrets are masked first: a cut through one
 * would leave its start unrecognised.
 */
function cut(message: string): string {
  const masked = redact(message);
  return masked.length > MESSAGE_LENGTH
    ? `${masked.slice(0, MESSAGE_LENGTH)}… (${masked.length - MESSAGE_LENGTH} more characters)`
    : masked;
}

/** True for a JSON object (not an array): each of its fields is then read for what it is. */
function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function parseErrorBody(text: string): ErrorFields {
  if (text.trim() === '') return { reason: 'empty body' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { reason: `body: ${snippet(text)}` };
  }
  if (!isRecord(parsed)) return { reason: `body: ${snippet(text)}` };
  const body: Partial<Record<keyof ErrorBody, unknown>> = parsed;
  const fields: ErrorFields = {};
  if (typeof body.code === 'number') fields.serviceCode = body.code;
  if (typeof body.msg === 'string' && body.msg !== '' && !isExceptionName(body.msg)) fields.serviceMsg = cut(body.msg);
  if (isRecord(body.extras)) {
    const extras: Partial<Record<keyof ErrorExtras, unknown>> = body.extras;
    if (typeof extras.detailCode === 'number') fields.detailCode = extras.detailCode;
    if (typeof extras.detailMsg === 'string' && extras.detailMsg !== '') fields.detailMsg = cut(extras.detailMsg);
  }
  if (Object.keys(fields).length === 0) fields.reason = `body: ${snippet(text)}`;
  return fields;
}
