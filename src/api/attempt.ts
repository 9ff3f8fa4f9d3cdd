/**
 * One attempt of an exchange: sent through the agent, its answer collected, and the outcome
 * sorted into what the retry policy and the errors need. Nothing here waits or retries.
 */
import { parseErrorBody, type ApiErrorInit } from './api-error.js';
import type { AttemptEnd, Exchange } from './exchange.js';
import type { AttemptOutcome } from './limiter.js';
import { answerFailure, parseRetryAfter, seconds, type FailedAttempt, type Failure } from './retry.js';
import type { Timeouts, TransportAgent } from './transport-agent.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Uint8Array;
}

/** Failure details of one attempt, before the attempt count is known. */
export type AttemptError = Omit<ApiErrorInit, 'service' | 'method' | 'path' | 'ambiguous' | 'attempts'>;

/**
 * What an attempt came to, with what the log shows of it (the status, or why no answer
 * came): a 2xx answer, or a failure as the retry policy sees it and as an error words it.
 */
type Outcome = { shown: string } & (
  { ok: true; answer: Answer } | ({ ok: false; error: AttemptError } & FailedAttempt)
);

/** The outcome of one attempt and how long it took. */
export type AttemptResult = Outcome & { tookMs: number };

export const decoder = new TextDecoder();

/** A response header's value (the first, when it came more than once). */
export function header(headers: Answer['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What ends an attempt early: an answer over the size the tool reads, or an attempt over its time in all. */
class AttemptLimit extends Error {
  constructor(
    readonly code: 'ANSWER_TOO_LARGE' | 'ATTEMPT_TOO_LONG',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Sends the exchange once through the agent's `dispatch`, the whole body collected in memory:
 * the answers are small JSON documents or images, read at once, so no stream is needed. An
 * answer over `maxAnswerBytes`, or an attempt over `timeouts.totalMs`, is aborted.
 */
function send(agent: TransportAgent, exchange: Exchange, limits: AttemptLimits): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: Answer['headers'] = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let abort: ((reason: Error) => void) | undefined;
    const deadline = setTimeout(
      () =>
        abort?.(
          new AttemptLimit('ATTEMPT_TOO_LONG', `the answer took over ${seconds(limits.timeouts.totalMs)} in all`),
        ),
      limits.timeouts.totalMs,
    );
    agent.dispatch(
      {
        origin: exchange.origin,
        path: exchange.pathAndQuery,
        method: exchange.method,
        headers: exchange.headers,
        body: exchange.body ?? null,
      },
      {
        onRequestStart: (controller) => {
          abort = (reason) => controller.abort(reason);
        },
        onResponseStart: (_controller, statusCode, responseHeaders) => {
          status = statusCode;
          headers = responseHeaders;
        },
        onResponseData: (controller, chunk) => {
          size += chunk.length;
          if (size > limits.maxAnswerBytes)
            controller.abort(
              new AttemptLimit(
                'ANSWER_TOO_LARGE',
                `the answer was larger than ${limits.maxAnswerBytes} bytes, and was cut off`,
              ),
            );
          else chunks.push(chunk);
        },
        onResponseEnd: () => {
          clearTimeout(deadline);
          resolve({ status, headers, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
        },
        onResponseError: (_controller, error) => {
          clearTimeout(deadline);
          reject(error);
        },
      },
    );
  });
}

/** The bounds of one attempt: its timeouts, and the largest answer read. */
export interface AttemptLimits {
  timeouts: Timeouts;
  maxAnswerBytes: number;
}

/** Sends the exchange once and sorts the outcome; `now` times it and reads Retry-After dates. */
export async function attemptExchange(
  agent: TransportAgent,
  exchange: Exchange,
  limits: AttemptLimits,
  now: () => number,
): Promise<AttemptResult> {
  const { timeouts } = limits;
  const startedAt = now();
  let answer: Answer | undefined;
  let thrown: unknown;
  try {
    answer = await send(agent, exchange, limits);
  } catch (error) {
    thrown = error;
  }
  const tookMs = now() - startedAt;
  const result: AttemptResult =
    answer === undefined ? { tookMs, ...failed(thrown, timeouts) } : sortAnswer(answer, now(), tookMs);
  exchange.onAttempt?.(attemptEnd(result));
  return result;
}

/** A thrown network error as the outcome of an attempt. */
function failed(thrown: unknown, timeouts: Timeouts): Outcome {
  const { failure, error } = classify(thrown, timeouts);
  return { shown: error.reason ?? 'failed', ok: false, failure, error, retryAfterMs: undefined };
}

/** How an attempt ended, as a caller that changes the account sees it (see AttemptEnd). */
function attemptEnd(result: AttemptResult): AttemptEnd {
  if (result.ok) return { kind: 'answered' };
  const { failure, error } = result;
  if (failure.kind === 'status' && failure.status >= 500)
    return { kind: 'lost', reason: `the service answered ${String(failure.status)}` };
  const tooLarge = error.cause instanceof AttemptLimit && error.cause.code === 'ANSWER_TOO_LARGE';
  if (failure.kind === 'lost' || tooLarge) return { kind: 'lost', reason: error.reason ?? result.shown };
  return { kind: 'not-acted' };
}

/** An answer (after `tookMs`) as a success (2xx) or as a failure with the service's error body and Retry-After. */
function sortAnswer(answer: Answer, nowMs: number, tookMs: number): AttemptResult {
  const shown = String(answer.status);
  if (answer.status >= 200 && answer.status < 300) return { tookMs, shown, ok: true, answer };
  const body = parseErrorBody(decoder.decode(answer.bytes));
  return {
    tookMs,
    shown,
    ok: false,
    failure: answerFailure(answer.status, body.serviceCode),
    error: { kind: 'http', status: answer.status, ...body },
    retryAfterMs: parseRetryAfter(header(answer.headers, 'retry-after'), nowMs),
  };
}

/** What the concurrency limiter learns from an attempt. */
export function limiterOutcome(result: AttemptResult): AttemptOutcome {
  if (result.ok) return 'ok';
  if (result.failure.kind !== 'throttled') return 'failed';
  return result.retryAfterMs === undefined ? 'throttled' : 'paused';
}

/** The code of a network error, or of the first error it wraps. */
function errorCodeOf(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  if ('code' in error && typeof error.code === 'string') return error.code;
  if ('errors' in error && Array.isArray(error.errors) && error.errors.length > 0) return errorCodeOf(error.errors[0]);
  return 'cause' in error ? errorCodeOf(error.cause) : undefined;
}

const UNSENT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);

/** Sorts a thrown network error into retry terms and words it for people. */
function classify(error: unknown, timeouts: Timeouts): { failure: Failure; error: AttemptError } {
  // Cut off by the tool. Too long: as a lost answer (the outcome is unknown, a read is tried
  // again). Too large: the same request would answer as much again, so it is not repeated.
  if (error instanceof AttemptLimit) {
    return error.code === 'ATTEMPT_TOO_LONG'
      ? { failure: { kind: 'lost' }, error: { kind: 'timeout', reason: error.message, cause: error } }
      : // The service was reached, and answered more than any answer of its API holds.
        { failure: { kind: 'permanent' }, error: { kind: 'invalid-response', reason: error.message, cause: error } };
  }
  const code = errorCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const timeout = (failure: Failure, reason: string) => ({
    failure,
    error: { kind: 'timeout' as const, reason, cause: error },
  });
  const network = (failure: Failure, reason: string) => ({
    failure,
    error: { kind: 'network' as const, reason, cause: error },
  });
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
