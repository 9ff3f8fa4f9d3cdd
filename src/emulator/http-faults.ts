/**
 * Load and faults as they strike a service request (SPEC.md, Faults and load): the per-account
 * rate limit first, then the seeded fault draw around the route, quota answers spelled as the
 * settings say.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { authScheme } from './auth.js';
import type { FaultDecision, FaultSettings, Faults } from './faults.js';
import { detailCodes as codes, failure, quotaExceeded } from './http-error.js';
import { errorReply, single } from './http-plumbing.js';
import type { Call, Handler, Reply } from './http-plumbing.js';

/** A service request's reply and the fault that struck it ("5xx-after", "rate-limit", …; null when none). */
export interface Answered {
  reply: Reply;
  fault: string | null;
}

/**
 * Serves the call unless load or a fault stops it: over the rate limit or an injected 429, nothing
 * is served; a fault "before" replaces serving, one "after" replaces the answer of what was served.
 */
export async function serveUnderFaults(
  faults: Faults,
  call: Call,
  serve: Handler,
  imageScheme: string,
): Promise<Answered> {
  const counted = faults.settings.rateLimitScope === 'all' || call.method !== 'GET';
  const wait = counted ? faults.admit(rateKey(call.headers, imageScheme), performance.now()) : undefined;
  if (wait !== undefined)
    return {
      reply: quotaReply(faults.settings, wait, 'the request rate limit of this ad account is exceeded'),
      fault: 'rate-limit',
    };
  // Another account's request draws nothing, so the struck accounts see the same faults however the others interleave.
  const fault = struck(faults.settings, call.headers) ? faults.decide() : NO_FAULT;
  const name = describeFault(fault);
  if (fault.kind === '429')
    return {
      reply: quotaReply(faults.settings, faults.settings.retryAfterSeconds, 'injected fault: too many requests'),
      fault: name,
    };
  if (fault.kind !== 'none' && fault.when === 'before') return { reply: faultReply(fault), fault: name };
  const reply = await serve(call);
  return { reply: fault.kind === 'none' ? reply : faultReply(fault), fault: name };
}

const NO_FAULT: FaultDecision = { kind: 'none' };

/** Whether the fault draw is for this request: every one, or those of the accounts named in `faultAccounts`. */
function struck(settings: Pick<FaultSettings, 'faultAccounts'>, headers: IncomingHttpHeaders): boolean {
  if (settings.faultAccounts.length === 0) return true;
  const account = Number(single(headers['adaccountid'])?.trim());
  return settings.faultAccounts.includes(account);
}

/** Rate limits count per ad account (the header as sent); image requests share one bucket. */
function rateKey(headers: IncomingHttpHeaders, imageScheme: string): string {
  const account = single(headers['adaccountid']);
  if (account !== undefined) return `account:${account.trim()}`;
  return authScheme(headers, imageScheme) === imageScheme ? 'imagegen' : 'anonymous';
}

/** A quota excess, spelled as the settings say; Retry-After only when they ask for it. */
function quotaReply(
  settings: Pick<FaultSettings, 'quotaStatus' | 'quotaRetryAfter'>,
  seconds: number,
  message: string,
): Reply {
  const reply = errorReply(quotaExceeded(settings.quotaStatus, message));
  return settings.quotaRetryAfter ? { ...reply, headers: { 'Retry-After': String(seconds) } } : reply;
}

/** An injected 5xx (8002), or a connection reset. */
function faultReply(fault: Exclude<FaultDecision, { kind: 'none' } | { kind: '429' }>): Reply {
  if (fault.kind === 'reset') return { status: 0, reset: true };
  return errorReply(failure(fault.status, codes.injectedFault, `injected fault (${fault.when} the operation)`));
}

/** The fault's name in the request log. */
function describeFault(fault: FaultDecision): string | null {
  if (fault.kind === 'none') return null;
  if (fault.kind === '429') return '429';
  return `${fault.kind}-${fault.when}`;
}
