/**
 * The request log behind GET /_emulator/requests: the last service requests as answered, with
 * the fault that struck each. No header is stored, so no secret can be.
 */
import { authScheme } from './auth.js';
import type { Answered } from './http-faults.js';
import { single } from './http-plumbing.js';
import type { Call } from './http-plumbing.js';

const MAX_LOG_ENTRIES = 2000;
/** Request bodies larger than this are not kept in the request log. */
const MAX_LOGGED_BODY_BYTES = 64 * 1024;

/** One entry of GET /_emulator/requests. */
export interface LoggedRequest {
  seq: number;
  at: string;
  method: string;
  path: string;
  adAccountId: string | null;
  /**
   * The Authorization scheme only, never the credential: Bearer, the image-generation scheme (AppKey unless
   * configured), other or none.
   */
  auth: string;
  body?: unknown;
  status: number | 'reset';
  /** e.g. "5xx-after", "reset-before", "429", "rate-limit"; null when none. */
  fault: string | null;
  durationMs: number;
}

export interface RequestLog {
  /** Appends a request at `at`; `seq` keeps counting across clears, so an entry is never renumbered. */
  record(call: Call, answered: Answered, at: Date, durationMs: number): void;
  /** The entries kept, or only those after sequence number `after`. */
  entries(after?: number): LoggedRequest[];
  clear(): void;
}

/** An empty log keeping the last MAX_LOG_ENTRIES requests; `imageScheme` is the image-generation key's scheme word. */
export function createRequestLog(imageScheme: string): RequestLog {
  let entries: LoggedRequest[] = [];
  let seq = 0;
  return {
    record(call, { reply, fault }, at, durationMs) {
      entries.push({
        seq: ++seq,
        at: at.toISOString(),
        method: call.method,
        path: call.url.pathname + call.url.search,
        adAccountId: single(call.headers['adaccountid']) ?? null,
        auth: authScheme(call.headers, imageScheme),
        ...loggedBody(call),
        status: reply.reset ? 'reset' : reply.status,
        fault,
        durationMs,
      });
      if (entries.length > MAX_LOG_ENTRIES) entries.splice(0, entries.length - MAX_LOG_ENTRIES);
    },
    // Entries are in sequence order: the ones after `after` are a tail, found from the end.
    entries: (after = 0) => {
      let first = entries.length;
      while (first > 0 && (entries[first - 1] as LoggedRequest).seq > after) first -= 1;
      return first === 0 ? entries : entries.slice(first);
    },
    clear() {
      entries = [];
    },
  };
}

/** The body as logged: parsed JSON, else the text; left out when empty or too large. */
function loggedBody(call: Call): { body?: unknown } {
  if (call.body === 'too-large' || call.body.length === 0 || call.body.length > MAX_LOGGED_BODY_BYTES) return {};
  try {
    return { body: JSON.parse(call.body.toString('utf8')) as unknown };
  } catch {
    return { body: call.body.toString('utf8') };
  }
}
