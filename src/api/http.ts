/**
 * The one HTTP transport of the three service clients: an undici agent with keep-alive
 * connections, a bounded and self-adjusting number of requests in flight, timeouts for
 * connecting, the response headers and the body, retries with backoff that honour
 * Retry-After, response validation against the wire schemas, and errors that name the
 * request but never a secret.
 *
 * Creates are never retried blindly: a non-idempotent request is tried again only when the
 * service provably did not act on it (a quota answer, 429 or 400 with code -10, or no
 * connection at all). Otherwise the ApiError
 * says `ambiguous: true` and the caller decides, e.g. by looking for the audience by name.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as wait } from 'node:timers/promises';
import { AppError } from '../errors.js';
import { redact, registerSecret } from '../secrets.js';
import { packageVersion } from '../version.js';
import { ApiError, parseErrorBody, snippet, URL_VARIABLE, type ApiErrorInit, type HttpMethod, type ServiceName } from './api-error.js';
import type { WireTypes } from './generated/wire.js';
import { ConcurrencyLimiter } from './limiter.js';
import { answerFailure, backoffDelay, DEFAULT_RETRY_POLICY, isAmbiguous, isRetryable, parseRetryAfter, type Failure, type RetryPolicy } from './retry.js';
import { createTransportAgent, type Timeouts } from './transport-agent.js';
import { validateWire, type WireTypeName } from './wire-schemas.js';

export type { HttpMethod, ServiceName } from './api-error.js';
export type { RetryPolicy } from './retry.js';
export type { Timeouts } from './transport-agent.js';

export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = { connectMs: 10_000, headersMs: 60_000, bodyMs: 60_000 };
export const DEFAULT_CONCURRENCY = 8;

export interface HttpClientOptions {
  service: ServiceName;
  /** https://, or http:// on a loopback address; a path prefix is kept. */
  baseUrl: string;
  /**
   * Sent with every request to the base URL's origin (never to another origin). The
   * credential of an Authorization header, and any header whose name mentions a key, token
   * or secret, is registered as a secret so it is masked everywhere.
   */
  headers?: Readonly<Record<string, string>>;
  /** Most requests in flight at once (default 8); lowered on quota answers and won back slowly. */
  concurrency?: number;
  /** Spaces request starts to stay under a known quota. */
  requestsPerSecond?: number;
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryPolicy>;
  /** Log each attempt (method, path, status, duration, attempt) through `log`. */
  verbose?: boolean;
  log?: (line: string) => void;
  /** Waits `ms`; with `signal`, ends early (without failing) when it is aborted. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** In [0, 1), for the backoff jitter. */
  random?: () => number;
  /** Wall-clock milliseconds (durations, the retry budget and Retry-After dates). */
  now?: () => number;
}

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
   * The schema title (see wire-schemas.ts) the 2xx body must match; the answer is then that
   * type. Without it the answer is expected to be empty, and any body is ignored.
   */
  response?: WireTypeName;
}

export interface Download {
  bytes: Uint8Array;
  contentType: string | undefined;
}

export interface HttpClient {
  request<K extends WireTypeName>(request: HttpRequest & { response: K }): Promise<WireTypes[K]>;
  request(request: HttpRequest & { response?: undefined }): Promise<void>;
  /**
   * GET a file (a generated image's URL). Resolved like a link against the base URL, so an
   * absolute URL (https, or loopback) is taken as is; the credentials go to the base URL's
   * origin only.
   */
  download(url: string): Promise<Download>;
  /** The current bound on requests in flight. */
  readonly concurrency: number;
  /**
   * Closes the kept-alive connections (once: a second call answers with the first). Requests
   * made after it, and those waiting to try again, fail at once.
   */
  close(): Promise<void>;
}

interface Exchange {
  method: HttpMethod;
  url: URL;
  /** What errors and logs show: the path and query, or the whole URL for another origin. */
  shown: string;
  headers: Record<string, string>;
  body: string | undefined;
  idempotent: boolean;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Uint8Array;
}

/** Failure details of one attempt, before the attempt count is known. */
type AttemptError = Omit<ApiErrorInit, 'service' | 'method' | 'path' | 'ambiguous' | 'attempts'>;

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

function registerHeaderSecrets(headers: Readonly<Record<string, string>>): void {
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

function queryString(query: HttpRequest['query']): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value)).replace(/%2C/gi, ',')}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function errorCodeOf(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const record = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof record.code === 'string') return record.code;
  if (Array.isArray(record.errors) && record.errors.length > 0) return errorCodeOf(record.errors[0]);
  return record.cause === undefined ? undefined : errorCodeOf(record.cause);
}

const UNSENT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);

/** Sorts a thrown network error into retry terms and words it for people. */
function classify(error: unknown, timeouts: Timeouts): { failure: Failure; error: AttemptError } {
  const code = errorCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const timeout = (failure: Failure, reason: string) => ({ failure, error: { kind: 'timeout' as const, reason, cause: error } });
  const network = (failure: Failure, reason: string) => ({ failure, error: { kind: 'network' as const, reason, cause: error } });
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return timeout({ kind: 'unsent' }, `no connection within ${String(timeouts.connectMs)} ms`);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return timeout({ kind: 'lost' }, `no response headers within ${String(timeouts.headersMs)} ms`);
    case 'UND_ERR_BODY_TIMEOUT':
      return timeout({ kind: 'lost' }, `the response body stalled for ${String(timeouts.bodyMs)} ms`);
    case 'ENOTFOUND':
      return network({ kind: 'permanent' }, `unknown host (${code})`);
    // This client was closed (the command is ending, often because another request failed):
    // nothing can be sent any more, so trying again would only delay the end.
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
      return network({ kind: 'permanent' }, `the client was closed before the request could be sent (${code})`);
    // The request itself cannot be made (a header value with a line break, say): sending it
    // again would fail the same way.
    case 'UND_ERR_INVALID_ARG':
      return network({ kind: 'permanent' }, `the request could not be made: ${message} (${code})`);
    default:
      break;
  }
  if (code !== undefined && UNSENT_CODES.has(code)) return network({ kind: 'unsent' }, `connection failed (${code})`);
  if (code !== undefined && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return network({ kind: 'permanent' }, `TLS failed: ${message} (${code})`);
  }
  return network({ kind: 'lost' }, code === undefined ? message : `${message} (${code})`);
}

function header(headers: Answer['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const decoder = new TextDecoder();

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

function checkLimits(options: HttpClientOptions): void {
  const { concurrency, requestsPerSecond } = options;
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw new AppError({ code: 'INVALID_OPTION', summary: `concurrency must be a whole number of at least 1, not ${String(concurrency)}`, source: 'user' });
  }
  if (requestsPerSecond !== undefined && !(requestsPerSecond > 0)) {
    throw new AppError({ code: 'INVALID_OPTION', summary: `requests per second must be above 0, not ${String(requestsPerSecond)}`, source: 'user' });
  }
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const { service } = options;
  checkLimits(options);
  const base = parseServiceUrl(options.baseUrl, URL_VARIABLE[service]);
  const basePath = base.pathname.replace(/\/+$/, '');
  const defaultHeaders = { ...options.headers };
  const userAgent = `audiences/${packageVersion()}`;
  registerHeaderSecrets(defaultHeaders);
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => wait(ms, undefined, { signal }).catch(() => undefined));
  const random = options.random ?? Math.random;
  const log = options.verbose === true && options.log !== undefined ? options.log : undefined;
  const closed = new AbortController();
  // Every request waiting to try again listens for the close: there may be hundreds at once.
  setMaxListeners(0, closed.signal);
  const limiter = new ConcurrencyLimiter({
    maxConcurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    requestsPerSecond: options.requestsPerSecond,
    now,
    // Pauses and pacing end when the client closes: the command is ending, nothing may hold its exit.
    sleep: (ms) => sleep(ms, closed.signal),
  });
  const agent = createTransportAgent(limiter.maxConcurrency, timeouts);

  let closing: Promise<void> | undefined;

  const apiError = (exchange: Exchange, init: AttemptError & { ambiguous: boolean; attempts: number }) =>
    new ApiError({ service, method: exchange.method, path: exchange.shown, ...init });

  /**
   * One attempt through the agent's `dispatch`, the whole body collected in memory: the
   * answers are small JSON documents or images, read at once, so no stream is needed.
   */
  function send(exchange: Exchange): Promise<Answer> {
    return new Promise((resolve, reject) => {
      let status = 0;
      let headers: Answer['headers'] = {};
      const chunks: Buffer[] = [];
      agent.dispatch(
        {
          origin: exchange.url.origin,
          path: `${exchange.url.pathname}${exchange.url.search}`,
          method: exchange.method,
          headers: exchange.headers,
          body: exchange.body ?? null,
        },
        {
          onRequestStart: () => undefined,
          onResponseStart: (_controller, statusCode, responseHeaders) => {
            status = statusCode;
            headers = responseHeaders;
          },
          onResponseData: (_controller, chunk) => {
            chunks.push(chunk);
          },
          onResponseEnd: () => resolve({ status, headers, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }),
          onResponseError: (_controller, error) => reject(error),
        },
      );
    });
  }

  /** Runs one exchange with retries; `accept` turns a 2xx into the result. */
  async function run<T>(exchange: Exchange, accept: (answer: Answer, attempts: number) => T): Promise<T> {
    const startedAt = now();
    for (let attempt = 1; ; attempt += 1) {
      const permit = await limiter.acquire();
      const attemptStart = now();
      let answer: Answer | undefined;
      let thrown: unknown;
      try {
        answer = await send(exchange);
      } catch (error) {
        thrown = error;
      }
      const took = `${String(Math.round(now() - attemptStart))} ms`;
      const note = (outcome: string, more = '') =>
        log?.(redact(`${service} ${exchange.method} ${exchange.shown} -> ${outcome} (${took}, attempt ${String(attempt)})${more}`));

      if (answer !== undefined && answer.status >= 200 && answer.status < 300) {
        permit.release('ok');
        note(String(answer.status));
        // Let the request waiting for the slot go out before this answer is parsed and checked:
        // the slot is for the network, and answers often arrive several at once.
        await Promise.resolve();
        return accept(answer, attempt);
      }
      let failure: Failure;
      let error: AttemptError;
      let retryAfterMs: number | undefined;
      if (answer !== undefined) {
        const body = parseErrorBody(decoder.decode(answer.bytes));
        failure = answerFailure(answer.status, body.serviceCode);
        permit.release(failure.kind === 'throttled' ? 'throttled' : 'failed');
        error = { kind: 'http', status: answer.status, ...body };
        retryAfterMs = parseRetryAfter(header(answer.headers, 'retry-after'), now());
      } else {
        permit.release('failed');
        ({ failure, error } = classify(thrown, timeouts));
      }
      const outcome = answer === undefined ? (error.reason ?? 'failed') : String(answer.status);
      const fail = (gaveUp?: string) => {
        note(outcome);
        return apiError(exchange, { ...error, gaveUp, ambiguous: isAmbiguous(failure, exchange.idempotent), attempts: attempt });
      };
      if (!isRetryable(failure, exchange.idempotent)) throw fail();
      const throttled = failure.kind === 'throttled';
      // A quota answer was refused before any work: it is tried again for as long as the time
      // budget allows, not a number of times (a busy account answers many of them in a row).
      if (attempt >= policy.maxAttempts && !throttled) throw fail();
      // A quota answer waits at least the backoff too: a Retry-After of 0 must not make a tight loop.
      const delay = throttled ? Math.max(retryAfterMs ?? 0, backoffDelay(attempt, policy, random)) : (retryAfterMs ?? backoffDelay(attempt, policy, random));
      if (now() + delay - startedAt > policy.budgetMs) {
        throw fail(`gave up: waiting ${seconds(delay)} more would pass the retry budget of ${seconds(policy.budgetMs)}`);
      }
      note(outcome, `, retrying in ${String(delay)} ms`);
      // The service asked everyone to wait, not only this request.
      if (throttled && retryAfterMs !== undefined) limiter.pauseUntil(now() + retryAfterMs);
      await sleep(delay, closed.signal);
      // Closed while waiting: the command is ending (often because another request failed),
      // and nobody waits for this answer any more.
      if (closed.signal.aborted) throw fail('gave up: the client was closed while it waited to try again');
    }
  }

  function acceptWire(exchange: Exchange, name: WireTypeName | undefined) {
    return (answer: Answer, attempts: number): unknown => {
      if (name === undefined) return undefined;
      const invalid = (reason: string) =>
        apiError(exchange, { kind: 'invalid-response', status: answer.status, reason, ambiguous: !exchange.idempotent, attempts });
      const text = decoder.decode(answer.bytes);
      if (text.trim() === '') throw invalid('empty body');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw invalid(`not JSON: ${snippet(text)}`);
      }
      const result = validateWire(name, parsed);
      if (!result.ok) throw invalid(`not ${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}: ${result.issues.join('; ')}`);
      return result.value;
    };
  }

  async function request(request: HttpRequest): Promise<unknown> {
    const path = `${request.path.startsWith('/') ? '' : '/'}${request.path}`;
    const query = queryString(request.query);
    const url = new URL(`${base.origin}${basePath}${path}${query}`);
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    if (request.headers !== undefined) registerHeaderSecrets(request.headers);
    const exchange: Exchange = {
      method: request.method,
      url,
      shown: `${path}${query}`,
      headers: {
        'user-agent': userAgent,
        accept: 'application/json',
        ...defaultHeaders,
        ...request.headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body,
      idempotent: request.idempotent ?? request.method !== 'POST',
    };
    return run(exchange, acceptWire(exchange, request.response));
  }

  async function download(target: string): Promise<Download> {
    const url = parseServiceUrl(new URL(target, `${base.origin}${basePath}/`).href);
    const sameOrigin = url.origin === base.origin;
    const exchange: Exchange = {
      method: 'GET',
      url,
      shown: sameOrigin ? `${url.pathname}${url.search}` : url.href,
      // The service's credentials stay with the service: a file on another host gets none.
      headers: { 'user-agent': userAgent, accept: '*/*', ...(sameOrigin ? defaultHeaders : {}) },
      body: undefined,
      idempotent: true,
    };
    return run(exchange, (answer, attempts) => {
      if (answer.bytes.length === 0) {
        throw apiError(exchange, { kind: 'invalid-response', status: answer.status, reason: 'empty body', ambiguous: false, attempts });
      }
      return { bytes: answer.bytes, contentType: header(answer.headers, 'content-type') };
    });
  }

  return {
    request: request as HttpClient['request'],
    download,
    get concurrency() {
      return limiter.limit;
    },
    close: () => {
      closed.abort();
      return (closing ??= agent.close());
    },
  };
}
