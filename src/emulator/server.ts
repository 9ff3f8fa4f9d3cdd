/**
 * The emulator: one node:http server on 127.0.0.1 for the three services of the spec
 * (audiences, company lookup, image generation) plus the test-only routes under /_emulator/.
 * Behaviour is written down in SPEC.md. This file starts and stops it; pipeline.ts takes each
 * request from the socket to its answer: read body → (test route, or) rate limit → fault draw →
 * route → auth → body checks → operation → persist → latency → answer. Along the way:
 * http-plumbing.ts (Call, Reply, the capped body, JSON bodies), http-faults.ts (rate limit and
 * injected faults), router.ts and routes-*.ts (one file per service, routes-control.ts for
 * /_emulator/), auth.ts, request-log.ts, and context.ts for what they all share.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MemberIdSpelling, TrackerShape } from './audiences.js';
import type { EmulatorContext, ServicePaths } from './context.js';
import { createFaults, defaultFaultSettings } from './faults.js';
import type { FaultKind, FaultSettings, RateLimitScope } from './faults.js';
import type { QuotaStatus } from './http-error.js';
import type { ListShape } from './list-shapes.js';
import { createImagegen } from './imagegen.js';
import { requestListener } from './pipeline.js';
import { createRequestLog } from './request-log.js';
import { seedState } from './seed.js';
import { openStore } from './store.js';
import type { Store } from './store.js';
export { MAX_BODY_BYTES } from './http-plumbing.js';
export type { LoggedRequest } from './request-log.js';
export { StateFileBusyError, StateFileError } from './store.js';

export interface EmulatorOptions {
  /** 0 = any free port; the host is always 127.0.0.1. */
  port?: number;
  /** Persist state here (atomic writes, the file locked while running); absent = in memory. */
  statePath?: string;
  /** How long to wait for the state file's lock while another emulator holds it (default 60 s). */
  stateWaitMs?: number;
  /** Called once when that wait begins, with its length. */
  onStateWait?: (waitMs: number) => void;
  accessToken?: string;
  appKey?: string;
  /** The image-generation paths' model family (default `imagegen`, as the spec writes the paths). */
  modelFamily?: string;
  /** The scheme word of the image-generation key (default `AppKey`). */
  imageAuthScheme?: string;
  /** The business lookup's path (default `/openapi/v1/companies`). */
  companyPath?: string;
  latencyMs?: number;
  jitterMs?: number;
  faultRate?: number;
  faultKinds?: FaultKind[];
  /** The ad accounts whose requests are faulted (default: every request). */
  faultAccounts?: number[];
  faultSeed?: number;
  retryAfterSeconds?: number;
  /** Per ad account; a quota answer beyond it. */
  rateLimitPerSecond?: number;
  /** Whether the rate limit counts every request or only writes. */
  rateLimitScope?: RateLimitScope;
  /** A quota answer is 429 (code -813) or 400 (code -10). */
  quotaStatus?: QuotaStatus;
  /** Whether a quota answer carries Retry-After. */
  quotaRetryAfter?: boolean;
  /** How answers spell targeting member ids (wire decision §2). */
  memberIds?: MemberIdSpelling;
  /** How tracker members are taken and answered (wire decision §14). */
  trackerShape?: TrackerShape;
  /** How the list of audiences and the lists of an audience's ad groups answer (SPEC.md, Lists). */
  audienceListShape?: ListShape;
  adGroupListShape?: ListShape;
  /** The page size of a paged list when the request asks for none. */
  pageSize?: number;
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
/** The spec's paths and scheme, served unless the options name the real service's. */
export const SPEC_PATHS: ServicePaths = {
  modelFamily: 'imagegen',
  imageAuthScheme: 'AppKey',
  companyPath: '/openapi/v1/companies',
};

/**
 * Opens (or seeds) the state, then serves on 127.0.0.1 until closed; a state file it cannot use throws before
 * listening.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const store = await openStore(options.statePath, seedState, {
    waitMs: options.stateWaitMs,
    onWait: options.onStateWait,
  });
  // Image URLs name the port, which is known only once the server listens.
  let url = '';
  const emulator = createContext(options, store, () => url);
  const server = createServer(requestListener(emulator));
  url = await listen(server, options.port ?? 0).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  return { url, accessToken: emulator.accessToken, appKey: emulator.appKey, close: () => stop(server, store) };
}

/** The context of an emulator started with `options`: settings from the options, else the defaults. */
function createContext(options: EmulatorOptions, store: Store, baseUrl: () => string): EmulatorContext {
  const now = options.now ?? (() => new Date());
  const paths: ServicePaths = {
    modelFamily: options.modelFamily ?? SPEC_PATHS.modelFamily,
    imageAuthScheme: options.imageAuthScheme ?? SPEC_PATHS.imageAuthScheme,
    companyPath: options.companyPath ?? SPEC_PATHS.companyPath,
  };
  return {
    store,
    faults: createFaults(startFaultSettings(options)),
    log: createRequestLog(paths.imageAuthScheme),
    imagegen: createImagegen({ baseUrl, now: () => now().getTime() }),
    url: baseUrl,
    accessToken: options.accessToken ?? DEFAULT_ACCESS_TOKEN,
    appKey: options.appKey ?? DEFAULT_APP_KEY,
    paths,
    quirks: options.quirks ?? false,
    now,
  };
}

/** The fault settings the emulator starts with, and returns to on POST /_emulator/reset. */
function startFaultSettings(options: EmulatorOptions): FaultSettings {
  return {
    latencyMs: options.latencyMs ?? defaultFaultSettings.latencyMs,
    jitterMs: options.jitterMs ?? defaultFaultSettings.jitterMs,
    faultRate: options.faultRate ?? defaultFaultSettings.faultRate,
    faultKinds: options.faultKinds ?? defaultFaultSettings.faultKinds,
    faultAccounts: options.faultAccounts ?? defaultFaultSettings.faultAccounts,
    seed: options.faultSeed ?? defaultFaultSettings.seed,
    retryAfterSeconds: options.retryAfterSeconds ?? defaultFaultSettings.retryAfterSeconds,
    rateLimitPerSecond: options.rateLimitPerSecond ?? defaultFaultSettings.rateLimitPerSecond,
    rateLimitScope: options.rateLimitScope ?? defaultFaultSettings.rateLimitScope,
    quotaStatus: options.quotaStatus ?? defaultFaultSettings.quotaStatus,
    quotaRetryAfter: options.quotaRetryAfter ?? defaultFaultSettings.quotaRetryAfter,
    memberIds: options.memberIds ?? defaultFaultSettings.memberIds,
    trackerShape: options.trackerShape ?? defaultFaultSettings.trackerShape,
    audienceListShape: options.audienceListShape ?? defaultFaultSettings.audienceListShape,
    adGroupListShape: options.adGroupListShape ?? defaultFaultSettings.adGroupListShape,
    pageSize: options.pageSize ?? defaultFaultSettings.pageSize,
    vanishOnRead: [],
  };
}

/** Listens on 127.0.0.1:`port` (0 = any free port) and gives the base URL. */
async function listen(server: Server, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stops serving (open connections are cut), then waits for the last state write and lets the state file go. */
async function stop(server: Server, store: Store): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await store.close();
}
