/**
 * The emulator: one node:http server on 127.0.0.1 for the three services of the spec
 * (audiences, company lookup, image generation) plus the test-only routes under /_emulator/.
 * Behaviour is written down in SPEC.md. Each request goes: read body → (test route, or)
 * rate limit → fault draw → route → auth → body checks → operation → persist → latency → answer.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MemberIdSpelling } from './audiences.js';
import { authScheme } from './auth.js';
import type { EmulatorContext } from './context.js';
import { createFaults, defaultFaultSettings } from './faults.js';
import type { FaultDecision, FaultKind, FaultSettings } from './faults.js';
import { detailCodes as codes, failure, quotaExceeded } from './http-error.js';
import type { QuotaStatus } from './http-error.js';
import { errorReply, readCall, send, single } from './http-plumbing.js';
import type { Reply } from './http-plumbing.js';
import { createImagegen } from './imagegen.js';
import { createRequestLog } from './request-log.js';
import { createRouter } from './router.js';
import { audienceRoutes } from './routes-audiences.js';
import { companyRoutes } from './routes-company.js';
import { controlRoutes, isControlPath } from './routes-control.js';
import { imagegenRoutes } from './routes-imagegen.js';
import { seedState } from './seed.js';
import { openStore } from './store.js';
export { MAX_BODY_BYTES } from './http-plumbing.js';
export type { LoggedRequest } from './request-log.js';
export { StateFileError } from './store.js';

export interface EmulatorOptions {
  /** 0 = any free port; the host is always 127.0.0.1. */
  port?: number;
  /** Persist state here (atomic writes); absent = in memory. */
  statePath?: string;
  accessToken?: string;
  appKey?: string;
  latencyMs?: number;
  jitterMs?: number;
  faultRate?: number;
  faultKinds?: FaultKind[];
  faultSeed?: number;
  retryAfterSeconds?: number;
  /** Per ad account; a quota answer beyond it. */
  rateLimitPerSecond?: number;
  /** A quota answer is 429 (code -813) or 400 (code -10). */
  quotaStatus?: QuotaStatus;
  /** Whether a quota answer carries Retry-After. */
  quotaRetryAfter?: boolean;
  /** How answers spell targeting member ids (wire decision §2). */
  memberIds?: MemberIdSpelling;
  /** Answer with the spec examples' quirks (wire decision §5). */
  quirks?: boolean;
  /** Injectable clock: dates, URL expiry, audience status. */
  now?: () => Date;
}

export interface RunningEmulator {
  url: string;
  accessToken: string;
  appKey: string;
  close(): Promise<void>;
}

export const DEFAULT_ACCESS_TOKEN = 'emulator-access-token';
export const DEFAULT_APP_KEY = 'emulator-app-key';
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const accessToken = options.accessToken ?? DEFAULT_ACCESS_TOKEN;
  const appKey = options.appKey ?? DEFAULT_APP_KEY;
  const now = options.now ?? (() => new Date());
  const quirks = options.quirks ?? false;
  const initialFaults: FaultSettings = {
    latencyMs: options.latencyMs ?? defaultFaultSettings.latencyMs,
    jitterMs: options.jitterMs ?? defaultFaultSettings.jitterMs,
    faultRate: options.faultRate ?? defaultFaultSettings.faultRate,
    faultKinds: options.faultKinds ?? defaultFaultSettings.faultKinds,
    seed: options.faultSeed ?? defaultFaultSettings.seed,
    retryAfterSeconds: options.retryAfterSeconds ?? defaultFaultSettings.retryAfterSeconds,
    rateLimitPerSecond: options.rateLimitPerSecond ?? defaultFaultSettings.rateLimitPerSecond,
    quotaStatus: options.quotaStatus ?? defaultFaultSettings.quotaStatus,
    quotaRetryAfter: options.quotaRetryAfter ?? defaultFaultSettings.quotaRetryAfter,
    memberIds: options.memberIds ?? defaultFaultSettings.memberIds,
  };
  const store = await openStore(options.statePath, seedState);
  const faults = createFaults(initialFaults);
  const log = createRequestLog();
  let url = '';
  const imagegen = createImagegen({ baseUrl: () => url, now: () => now().getTime() });
  const emulator: EmulatorContext = { store, faults, log, imagegen, accessToken, appKey, quirks, now };
  const serve = createRouter([...audienceRoutes(emulator), ...companyRoutes(emulator), ...imagegenRoutes(emulator)]);
  const testRoutes = controlRoutes(emulator);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const call = await readCall(req);
    if (isControlPath(call.url.pathname)) {
      send(res, await testRoutes(call));
      return;
    }
    // The answer leaves `delay` ms after the request arrived, the emulator's own work
    // included, so a run's requests can take exactly the latency they were given.
    const answerAt = started + faults.delayMs();
    let reply: Reply;
    let faultName: string | null = null;
    const wait = faults.admit(rateKey(call.headers), performance.now());
    if (wait !== undefined) {
      faultName = 'rate-limit';
      reply = quotaReply(faults.settings, wait, 'the request rate limit of this ad account is exceeded');
    } else {
      const fault = faults.decide();
      faultName = describeFault(fault);
      if (fault.kind === '429') reply = quotaReply(faults.settings, faults.settings.retryAfterSeconds, 'injected fault: too many requests');
      else if (fault.kind !== 'none' && fault.when === 'before') reply = faultReply(fault);
      else {
        reply = await serve(call);
        if (fault.kind !== 'none') reply = faultReply(fault);
      }
    }
    log.record(call, { reply, fault: faultName }, now(), Math.round(Math.max(answerAt, performance.now()) - started));
    // Timers count whole milliseconds from a clock read at the start of the loop's turn, so
    // one may fire a little early: wait again until the answer is due, never answer early.
    for (let remaining = answerAt - performance.now(); remaining > 0; remaining = answerAt - performance.now()) {
      await sleep(Math.ceil(remaining));
    }
    if (reply.reset) {
      req.socket.resetAndDestroy();
      return;
    }
    send(res, reply);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) send(res, errorReply(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    accessToken,
    appKey,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.persist();
    },
  };
}

/** A quota excess, spelled as the settings say; Retry-After only when they ask for it. */
function quotaReply(settings: Pick<FaultSettings, 'quotaStatus' | 'quotaRetryAfter'>, seconds: number, message: string): Reply {
  const reply = errorReply(quotaExceeded(settings.quotaStatus, message));
  return settings.quotaRetryAfter ? { ...reply, headers: { 'Retry-After': String(seconds) } } : reply;
}

function faultReply(fault: Exclude<FaultDecision, { kind: 'none' } | { kind: '429' }>): Reply {
  if (fault.kind === 'reset') return { status: 0, reset: true };
  return errorReply(failure(fault.status, codes.injectedFault, `injected fault (${fault.when} the operation)`));
}

function describeFault(fault: FaultDecision): string | null {
  if (fault.kind === 'none') return null;
  if (fault.kind === '429') return '429';
  return `${fault.kind}-${fault.when}`;
}

/** Rate limits count per ad account (the header as sent); image requests share one bucket. */
function rateKey(headers: IncomingHttpHeaders): string {
  const account = single(headers['adaccountid']);
  if (account !== undefined) return `account:${account.trim()}`;
  return authScheme(headers) === 'AppKey' ? 'imagegen' : 'anonymous';
}
