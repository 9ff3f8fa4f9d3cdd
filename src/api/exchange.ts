/**
 * Building what is sent: a request's URL under the service's base URL, its headers (the
 * service's credentials only to the service's origin, every credential registered as a
 * secret) and its JSON body, and what errors and logs show of it.
 */
import { AppError } from '../errors.js';
import { redact, registerSecret } from '../secrets.js';
import type { HttpMethod } from './api-error.js';
import type { WireTypeName } from './wire-schemas.js';
import { writeBody } from './long-json.js';

/**
 * How one attempt of a request ended, for a caller that changes the account and must say how
 * it knows the outcome:
 * - `answered`: a 2xx came back;
 * - `lost`: the service may have acted, but no usable answer came back (the connection broke
 *   or went silent once the request was sent, a 5xx, an answer cut off as too large);
 * - `not-acted`: the service did not act on it (any other answer, or no connection at all).
 */
export type AttemptEnd = { kind: 'answered' } | { kind: 'lost'; reason: string } | { kind: 'not-acted' };

export interface HttpRequest {
  method: HttpMethod;
  /** Appended to the base URL's path. */
  path: string;
  /** Undefined values are left out; commas stay literal (audienceIds=1,2,3). */
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  headers?: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  body?: unknown;
  /** Safe to repeat? Default: every method but POST. */
  idempotent?: boolean;
  /**
   * Part of a change already sent (the list that settles a lost answer, the download of a
   * generated image): sent even after an interrupt, which stops only what has not begun.
   */
  continuation?: boolean;
  /**
   * The schema title (see wire-schemas.ts) the 2xx body must match; the answer is then that
   * type. Without it the answer is expected to be empty, and any body is ignored.
   */
  response?: WireTypeName;
  /**
   * Told how each attempt ends, in order: a request that changes the account learns from it
   * that an answer was lost on the way (and a retry's answer settled it), or that its last
   * attempt was such a one (the outcome is then unknown).
   */
  onAttempt?: (end: AttemptEnd) => void;
}

/** One request as it is sent, each attempt alike. */
export interface Exchange {
  method: HttpMethod;
  /** Where it goes: the URL's origin, and its path and query as sent. */
  origin: string;
  pathAndQuery: string;
  /** What errors and logs show: the path and query, or the whole URL for another origin. */
  shown: string;
  headers: Record<string, string>;
  body: string | undefined;
  idempotent: boolean;
  /** Sent even once the client stops starting requests (see HttpRequest.continuation). */
  continuation: boolean;
  /** Where the service's URL was set (an environment variable), for the hints of errors. */
  urlSetting: string;
  /** See HttpRequest.onAttempt. */
  onAttempt?: ((end: AttemptEnd) => void) | undefined;
}

/** Where a client's requests go and what each carries. */
export interface ServiceTarget {
  base: URL;
  /** The base URL's path without a trailing slash: request paths are appended to it. */
  basePath: string;
  /** Sent to the base URL's origin only. */
  headers: Readonly<Record<string, string>>;
  userAgent: string;
  urlSetting: string;
  /** The headers of every request to the service: the user agent, the JSON it accepts and `headers`. */
  requestHeaders: Readonly<Record<string, string>>;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * A URL as the user wrote it, without the user name and password it may carry: everything
 * before an @ of the authority, with or without a scheme in front (`user:pw@host` parses as
 * the scheme `user:`).
 */
function withoutUserInfo(text: string): string {
  return redact(text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i, '$1…@'));
}

/**
 * Parses a service URL, refusing plain http except on loopback: credentials travel with every
 * request. `setting` names where the URL came from (an environment variable), for messages.
 */
export function parseServiceUrl(text: string, setting?: string): URL {
  const named = (summary: string) => (setting === undefined ? summary : `${setting}: ${summary}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw new AppError({
      code: 'INVALID_URL',
      summary: named(`not a valid URL: ${withoutUserInfo(text)}`),
      hint: 'Give the full address, e.g. https://api.example.com.',
      source: 'user',
      cause: error,
    });
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) return url;
  if (url.protocol === 'http:') {
    throw new AppError({
      code: 'INSECURE_URL',
      summary: named(`refusing to send credentials over plain http to ${url.protocol}//${url.host}`),
      hint: 'Use an https:// URL; plain http:// is accepted only for loopback (localhost, 127.0.0.0/8, ::1).',
      source: 'user',
    });
  }
  throw new AppError({
    code: 'INVALID_URL',
    summary: named(`not an https:// URL: ${withoutUserInfo(text)}`),
    hint: 'Give the full address with its scheme, e.g. https://api.example.com (http:// only for loopback).',
    source: 'user',
  });
}

/** The headers whose credentials are registered: a client sends the same headers object with each of its requests. */
const registered = new WeakSet<object>();

function registerHeaderSecrets(headers: Readonly<Record<string, string>>): void {
  if (registered.has(headers)) return;
  registered.add(headers);
  for (const [name, value] of Object.entries(headers)) {
    if (/^authorization$/i.test(name)) {
      const space = value.indexOf(' ');
      registerSecret(space > 0 ? value.slice(space + 1).trim() : value);
      registerSecret(value);
    } else if (/key|token|secret/i.test(name)) {
      registerSecret(value);
    }
  }
}

function queryString(query: HttpRequest['query'], shorten: (value: string) => string = (value) => value): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    parts.push(`${encodeURIComponent(name)}=${shorten(encodeURIComponent(String(value)).replace(/%2C/gi, ','))}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

const SHOWN_LIST_ITEMS = 3;

/**
 * A query value as errors and progress lines show it: a list of more than a few items (the
 * ids of a batch delete) as its first ones and how many there are, so that the result line of
 * each change in a batch stays one short line.
 */
function shortList(value: string): string {
  const items = value.split(',');
  return items.length <= SHOWN_LIST_ITEMS + 1
    ? value
    : `${items.slice(0, SHOWN_LIST_ITEMS).join(',')},…(${items.length} in all)`;
}

/**
 * The target of a client: the base URL (checked, `urlSetting` naming where it came from) and
 * the headers of every request, whose credentials are registered as secrets.
 */
export function serviceTarget(
  baseUrl: string,
  urlSetting: string,
  headers: Readonly<Record<string, string>> | undefined,
  userAgent: string,
): ServiceTarget {
  const base = parseServiceUrl(baseUrl, urlSetting);
  const own = { ...headers };
  registerHeaderSecrets(own);
  return {
    base,
    basePath: base.pathname.replace(/\/+$/, ''),
    headers: own,
    userAgent,
    urlSetting,
    requestHeaders: { 'user-agent': userAgent, accept: 'application/json', ...own },
  };
}

/**
 * A path and query the URL parser would leave as they are: segments of unreserved characters, none of them `.` or `..`,
 * and a query of unreserved characters, `=`, `&`, `,` and percent escapes (what queryString writes of ids and codes).
 * Every request path of the services is one; any other is taken apart by the parser.
 */
const PLAIN_PATH = /^(?:\/(?!\.\.?(?:[/?]|$))[\w\-.~]*)+(?:\?[\w\-.~=&,%]*)?$/;

/** The exchange of a request to the service: its path under the base URL, its body as JSON. */
export function requestExchange(target: ServiceTarget, request: HttpRequest): Exchange {
  const path = `${request.path.startsWith('/') ? '' : '/'}${request.path}`;
  const query = queryString(request.query);
  const body = request.body === undefined ? undefined : writeBody(request.body);
  if (request.headers !== undefined) registerHeaderSecrets(request.headers);
  const sent = `${target.basePath}${path}${query}`;
  const url = PLAIN_PATH.test(sent) ? undefined : new URL(`${target.base.origin}${sent}`);
  const headers = { ...target.requestHeaders, ...request.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return {
    method: request.method,
    origin: url?.origin ?? target.base.origin,
    pathAndQuery: url === undefined ? sent : `${url.pathname}${url.search}`,
    shown: `${path}${queryString(request.query, shortList)}`,
    headers,
    body,
    idempotent: request.idempotent ?? request.method !== 'POST',
    continuation: request.continuation ?? false,
    urlSetting: target.urlSetting,
    onAttempt: request.onAttempt,
  };
}

/** The exchange of a file download: `link` resolved against the base URL as a page resolves a link. */
export function downloadExchange(target: ServiceTarget, link: string): Exchange {
  const url = parseServiceUrl(new URL(link, `${target.base.origin}${target.basePath}/`).href);
  const sameOrigin = url.origin === target.base.origin;
  return {
    method: 'GET',
    origin: url.origin,
    pathAndQuery: `${url.pathname}${url.search}`,
    shown: sameOrigin ? `${url.pathname}${url.search}` : url.href,
    // The service's credentials stay with the service: a file on another host gets none.
    headers: { 'user-agent': target.userAgent, accept: '*/*', ...(sameOrigin ? target.headers : {}) },
    body: undefined,
    idempotent: true,
    // A download fetches what a generation already made.
    continuation: true,
    urlSetting: target.urlSetting,
  };
}
