/**
 * The one HTTP transport of the three service clients: an undici agent with keep-alive
 * connections, a bounded number of requests in flight and a start rate, both adapted to the quota the service enforces
 * (limiter.ts; one per lane, that is per ad account, behind a gate shared by all: gate.ts), timeouts for connecting, the response headers and the body, retries with backoff that honour
 * Retry-After, response validation against the wire schemas, and errors that name the request but never a secret.
 *
 * Creates are never retried blindly: a non-idempotent request is tried again only when the
 * service provably did not act on it (a quota answer, 429 or 400 with code -10, or no
 * connection at all). Otherwise the ApiError
 * says `ambiguous: true` and the caller decides, e.g. by looking for the audience by name.
 *
 * Its parts: exchange.ts builds what is sent, attempt.ts makes one attempt and sorts its
 * outcome, retry.ts decides what follows a failed one; here they are run in a loop.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as wait } from 'node:timers/promises';
import { AppError, NOT_STARTED } from '../errors.js';
import { redact } from '../secrets.js';
import { packageVersion } from '../version.js';
import { ApiError, snippet, URL_VARIABLE, type ApiErrorInit, type ServiceName } from './api-error.js';
import { attemptExchange, decoder, header, limiterOutcome, type Answer, type AttemptResult } from './attempt.js';
import {
  downloadExchange,
  requestExchange,
  serviceTarget,
  type Exchange,
  type HttpRequest,
  type ServiceTarget,
} from './exchange.js';
import type { WireTypes } from './generated/wire.js';
import type { RequestGate } from './gate.js';
import { answerTurn } from './in-turns.js';
import { ConcurrencyLimiter, REQUESTS_PER_SECOND, type Permit } from './limiter.js';
import { DEFAULT_RETRY_POLICY, isAmbiguous, nextStep, type RetryPolicy, type RetryState } from './retry.js';
import { parseAnswer } from './long-json.js';
import { createTransportAgent, type Timeouts, type TransportAgent } from './transport-agent.js';
import { validateWire, type WireTypeName } from './wire-schemas.js';

export type { HttpMethod, ServiceName } from './api-error.js';
export type { HttpRequest } from './exchange.js';
export type { RetryPolicy } from './retry.js';
export type { Timeouts } from './transport-agent.js';

export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = {
  connectMs: 10_000,
  headersMs: 60_000,
  bodyMs: 60_000,
  totalMs: 180_000,
};
/**
 * The largest answer read, by service; anything larger is cut off. The audience and business
 * answers are a few KB; a generation answered in Base64 may hold 8 samples of 2048 pixels a
 * side as PNG (spec: imagegen), some 100 MB once encoded.
 */
export const MAX_ANSWER_BYTES: Readonly<Record<ServiceName, number>> = {
  audience: 8 * 1024 * 1024,
  business: 8 * 1024 * 1024,
  imagegen: 256 * 1024 * 1024,
};
export const DEFAULT_CONCURRENCY = 8;

export interface HttpClientOptions {
  service: ServiceName;
  /** https://, or http:// on a loopback address; a path prefix is kept. */
  baseUrl: string;
  /** Where the base URL was set (an environment variable), for messages; by default the service's own variable. */
  urlSetting?: string;
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
  /** The bound on requests in flight shared with other clients (every account's, every service's); none by default. */
  gate?: RequestGate | undefined;
  timeouts?: Partial<Timeouts>;
  /** The largest answer read (default MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
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

export interface Download {
  bytes: Uint8Array;
  contentType: string | undefined;
}

/**
 * What a caller checks of an answer beyond its schema: why it is not the answer to this request
 * (a business of another number), or undefined. The answer is then an invalid response.
 */
export type AnswerCheck<K extends WireTypeName> = (answer: WireTypes[K]) => string | undefined;

export interface HttpClient {
  request<K extends WireTypeName>(
    request: HttpRequest & { response: K; check?: AnswerCheck<K> },
  ): Promise<WireTypes[K]>;
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
   * From now on no request sends its first attempt: each fails with NOT_STARTED (an interrupt). Those already sent go
   * on.
   */
  stopStarting(): void;
  /**
   * Closes the kept-alive connections (once: a second call answers with the first). Requests
   * made after it, and those waiting to try again, fail at once.
   */
  close(): Promise<void>;
}

/**
 * Clients of one service over shared connections, each with its own slots, adaptive rate and pacing (a lane): one per ad
 * account, whose quota is its own.
 */
export interface HttpLanes {
  /**
   * A new client with its own limiter (the options' concurrency, and `requestsPerSecond` or else the options' rate); its
   * close closes them all.
   */
  lane(requestsPerSecond?: number): HttpLane;
  /** stopStarting of every lane. */
  stopStarting(): void;
  /** Closes the shared connections (once); every lane's requests fail at once from then. */
  close(): Promise<void>;
}

/** A lane's client, whose requests can be paced once it exists (see ConcurrencyLimiter.pace). */
export interface HttpLane extends HttpClient {
  pace(requestsPerSecond: number): void;
}

/** What every exchange of one client runs through: the agent, the limiter, the policy and the clock. */
interface Transport extends SharedTransport {
  limiter: ConcurrencyLimiter;
}

/** What the lanes of one service share: all but the limiter. */
interface SharedTransport {
  service: ServiceName;
  agent: TransportAgent;
  timeouts: Timeouts;
  maxAnswerBytes: number;
  policy: RetryPolicy;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  log: ((line: string) => void) | undefined;
  /** Aborted when the client closes: pauses, pacing and waits to try again end at once. */
  closed: AbortController;
}

/** Turns a 2xx answer, at the given attempt, into the result of the exchange. */
type Accept<T> = (answer: Answer, attempts: number) => T;

function checkLimits(options: HttpClientOptions): void {
  const { concurrency, requestsPerSecond } = options;
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw new AppError({
      code: 'INVALID_OPTION',
      summary: `concurrency must be a whole number of at least 1, not ${String(concurrency)}`,
      source: 'user',
    });
  }
  if (
    requestsPerSecond !== undefined &&
    !(requestsPerSecond >= REQUESTS_PER_SECOND.min && requestsPerSecond <= REQUESTS_PER_SECOND.max)
  ) {
    const { min, max } = REQUESTS_PER_SECOND;
    throw new AppError({
      code: 'INVALID_OPTION',
      summary: `requests per second must be from ${min} to ${max}, not ${String(requestsPerSecond)}`,
      source: 'user',
    });
  }
}

/** What the lanes of a service share, from the options and their defaults. */
function createSharedTransport(options: HttpClientOptions): SharedTransport {
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const now = options.now ?? Date.now;
  const sleep =
    options.sleep ?? ((ms: number, signal?: AbortSignal) => wait(ms, undefined, { signal }).catch(() => undefined));
  const closed = new AbortController();
  // Every request waiting to try again listens for the close: there may be hundreds at once.
  setMaxListeners(0, closed.signal);
  // Behind a gate, the lanes together have at most its capacity in flight, each a connection.
  const connections = options.gate?.capacity ?? options.concurrency ?? DEFAULT_CONCURRENCY;
  return {
    service: options.service,
    agent: createTransportAgent(connections, timeouts),
    timeouts,
    maxAnswerBytes: options.maxAnswerBytes ?? MAX_ANSWER_BYTES[options.service],
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    now,
    sleep,
    random: options.random ?? Math.random,
    log: options.verbose === true && options.log !== undefined ? options.log : undefined,
    closed,
  };
}

/** A lane's limiter: its own bound and rate, behind the shared gate. */
function createLimiter(
  shared: SharedTransport,
  options: HttpClientOptions,
  requestsPerSecond = options.requestsPerSecond,
): ConcurrencyLimiter {
  const { closed, sleep } = shared;
  return new ConcurrencyLimiter({
    maxConcurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    requestsPerSecond,
    gate: options.gate,
    now: shared.now,
    // Pauses and pacing end when the client closes (the command is ending, nothing may hold its exit), and for a first
    // attempt at an interrupt.
    sleep: (ms, stopping) =>
      sleep(ms, stopping === undefined ? closed.signal : AbortSignal.any([closed.signal, stopping])),
  });
}

/** Logs an attempt's outcome, when verbose: the request, the status or failure, its duration and number. */
function logAttempt(transport: Transport, exchange: Exchange, result: AttemptResult, attempt: number, more = ''): void {
  if (transport.log === undefined) return;
  const took = `${String(Math.round(result.tookMs))} ms`;
  transport.log(
    redact(
      `${transport.service} ${exchange.method} ${exchange.shown} -> ${result.shown} (${took}, attempt ${String(attempt)})${more}`,
    ),
  );
}

/** The error of an exchange, naming its request. */
function exchangeError(
  service: ServiceName,
  exchange: Exchange,
  init: Omit<ApiErrorInit, 'service' | 'method' | 'path'>,
): ApiError {
  return new ApiError({
    service,
    urlSetting: exchange.urlSetting,
    method: exchange.method,
    path: exchange.shown,
    ...init,
  });
}

/**
 * Runs one exchange until an attempt succeeds or the retry policy stops: a loop over
 * `nextStep` decisions, its one state the attempt, when the first one began (none before it)
 * and how many were quota answers. A retry takes its turn ahead of the requests not yet started.
 */
async function runExchange<T>(transport: Transport, exchange: Exchange, accept: Accept<T>): Promise<T> {
  let state: RetryState | undefined;
  // After an interrupt, a request that has not left never does, even one already waiting for its turn, and neither
  // does the retry of one whose every attempt was refused before the service acted on it (a quota answer, a connection
  // never made): nothing of it happened. The retry of an attempt that may have acted goes on, to settle it, and so does
  // what a change already sent needs (a continuation).
  let stoppable = !exchange.continuation;
  for (;;) {
    let permit: Permit;
    try {
      permit = await transport.limiter.acquire({ retry: state !== undefined, stoppable });
    } catch (error) {
      if (stoppable && transport.limiter.stopped) throw notStartedError(exchange, state !== undefined);
      throw error;
    }
    // The time budget starts with the first attempt: waiting for a turn is not retrying.
    state ??= { idempotent: exchange.idempotent, startedAt: transport.now(), attempt: 1, quotaAnswersBefore: 0 };
    const result = await attemptExchange(transport.agent, exchange, transport, transport.now);
    permit.release(limiterOutcome(result));
    if (result.ok) {
      logAttempt(transport, exchange, result, state.attempt);
      // The slot is for the network: the request waiting for it goes out now, and this answer
      // is parsed and checked in a turn of its own (see answerTurn).
      await answerTurn();
      return accept(result.answer, state.attempt);
    }
    stoppable &&= result.failure.kind === 'throttled' || result.failure.kind === 'unsent';
    const step = nextStep(state, result, transport.now(), transport.policy, transport.random);
    if (step.kind === 'stop') throw attemptsFailed(transport, exchange, result, state.attempt, step.gaveUp);
    logAttempt(transport, exchange, result, state.attempt, `, retrying in ${String(step.delayMs)} ms`);
    if (step.pauseUntil !== undefined) transport.limiter.pauseUntil(step.pauseUntil);
    // A retry that an interrupt stops ends its wait then, not at the time the service asked for.
    await transport.sleep(
      step.delayMs,
      stoppable ? AbortSignal.any([transport.closed.signal, transport.limiter.stopping]) : transport.closed.signal,
    );
    // Closed while waiting: the command is ending (often because another request failed),
    // and nobody waits for this answer any more.
    if (transport.closed.signal.aborted)
      throw attemptsFailed(
        transport,
        exchange,
        result,
        state.attempt,
        'gave up: the client was closed while it waited to try again',
      );
    state = {
      ...state,
      attempt: state.attempt + 1,
      quotaAnswersBefore: state.quotaAnswersBefore + (result.failure.kind === 'throttled' ? 1 : 0),
    };
  }
}

/**
 * The error of an exchange whose last attempt failed (logged now, when verbose), after `attempts` of them. A function
 * of its own, not a closure in runExchange's loop: every turn of the loop would make one, the ones that succeed too.
 */
function attemptsFailed(
  transport: Transport,
  exchange: Exchange,
  result: AttemptResult & { ok: false },
  attempts: number,
  gaveUp: string | undefined,
): ApiError {
  logAttempt(transport, exchange, result, attempts);
  const ambiguous = isAmbiguous(result.failure, exchange.idempotent);
  return exchangeError(transport.service, exchange, { ...result.error, gaveUp, ambiguous, attempts });
}

/**
 * A request that never left because the command was interrupted before its turn, or (`refused`) one the service refused
 * before acting on it and not sent again after the interrupt: nothing happened, and nothing is unknown (a request that
 * may have acted goes on, its retries included).
 */
function notStartedError(exchange: Exchange, refused: boolean): AppError {
  return new AppError({
    code: NOT_STARTED,
    source: 'user',
    summary: refused
      ? `${exchange.method} ${exchange.shown} was not sent again: the service had refused it before acting on it, and the command was interrupted`
      : `${exchange.method} ${exchange.shown} was not sent: the command was interrupted`,
  });
}

/** A 2xx answer that cannot be used; after a request that may have acted, an ambiguous one. */
function invalidAnswer(
  service: ServiceName,
  exchange: Exchange,
  answer: Answer,
  attempts: number,
  reason: string,
): ApiError {
  return exchangeError(service, exchange, {
    kind: 'invalid-response',
    status: answer.status,
    reason,
    ambiguous: !exchange.idempotent,
    attempts,
  });
}

/**
 * Accepts a 2xx whose body is JSON of the schema titled `name`, and passes `check`: the answer as that schema's type.
 */
function acceptWire<K extends WireTypeName>(
  service: ServiceName,
  exchange: Exchange,
  name: K,
  check: AnswerCheck<K> | undefined,
): Accept<WireTypes[K]> {
  return (answer, attempts) => {
    const text = decoder.decode(answer.bytes);
    if (text.trim() === '') throw invalidAnswer(service, exchange, answer, attempts, 'empty body');
    const parsed = parseJson(text);
    if (!parsed.ok) throw invalidAnswer(service, exchange, answer, attempts, `not JSON: ${snippet(text)}`);
    const result = validateWire(name, parsed.value);
    if (!result.ok)
      throw invalidAnswer(
        service,
        exchange,
        answer,
        attempts,
        `not ${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}: ${result.issues.join('; ')}`,
      );
    const problem = check?.(result.value);
    if (problem !== undefined) throw invalidAnswer(service, exchange, answer, attempts, problem);
    return result.value;
  };
}

/** The answer's JSON (every digit of a Long kept) as a result rather than an exception. */
function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseAnswer(text) };
  } catch {
    return { ok: false };
  }
}

/** Accepts a 2xx with a body as a downloaded file. */
function acceptFile(service: ServiceName, exchange: Exchange): Accept<Download> {
  return (answer, attempts) => {
    if (answer.bytes.length === 0) throw invalidAnswer(service, exchange, answer, attempts, 'empty body');
    return { bytes: answer.bytes, contentType: header(answer.headers, 'content-type') };
  };
}

/** A client of one service: its requests share the transport (connections, limits, retries). */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  return createHttpLanes(options).lane();
}

/** The lanes of one service (see HttpLanes): each lane's requests share its limiter, and all share the connections. */
export function createHttpLanes(options: HttpClientOptions): HttpLanes {
  checkLimits(options);
  const target = serviceTarget(
    options.baseUrl,
    options.urlSetting ?? URL_VARIABLE[options.service],
    options.headers,
    `audiences/${packageVersion()}`,
  );
  const shared = createSharedTransport(options);
  const limiters: ConcurrencyLimiter[] = [];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    shared.closed.abort();
    return (closing ??= shared.agent.close());
  };
  return {
    lane: (requestsPerSecond) => {
      const limiter = createLimiter(shared, options, requestsPerSecond);
      limiters.push(limiter);
      return laneClient(target, { ...shared, limiter }, close);
    },
    stopStarting: () => {
      for (const limiter of limiters) limiter.stop();
    },
    close,
  };
}

/** One lane's client: its requests go through its own limiter. */
function laneClient(target: ServiceTarget, transport: Transport, close: () => Promise<void>): HttpLane {
  const { service } = transport;

  function request<K extends WireTypeName>(
    request: HttpRequest & { response: K; check?: AnswerCheck<K> },
  ): Promise<WireTypes[K]>;
  function request(request: HttpRequest & { response?: undefined }): Promise<void>;
  async function request(request: HttpRequest & { check?: AnswerCheck<WireTypeName> }): Promise<unknown> {
    const exchange = requestExchange(target, request);
    // Without a schema the answer is expected to be empty, and any body is ignored.
    const accept: Accept<unknown> =
      request.response === undefined ? () => undefined : acceptWire(service, exchange, request.response, request.check);
    return runExchange(transport, exchange, accept);
  }

  return {
    request,
    download: async (url) => {
      const exchange = downloadExchange(target, url);
      return runExchange(transport, exchange, acceptFile(service, exchange));
    },
    get concurrency() {
      return transport.limiter.limit;
    },
    stopStarting: () => transport.limiter.stop(),
    pace: (requestsPerSecond) => transport.limiter.pace(requestsPerSecond),
    close,
  };
}
