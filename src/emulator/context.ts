/**
 * What the parts of one running emulator share, built once at start: its state, clock,
 * credentials, fault settings, request log and image service.
 */
import type { Faults } from './faults.js';
import { detailCodes as codes, failure } from './http-error.js';
import type { Reply } from './http-plumbing.js';
import type { Imagegen } from './imagegen.js';
import type { RequestLog } from './request-log.js';
import { StateWriteError, type Store } from './store.js';

/**
 * Where the real services differ from the spec's literal paths and scheme (DESIGN.md, Where to
 * reach the services): the emulator serves what it is given, the spec's values by default.
 */
export interface ServicePaths {
  /** The path segment the spec writes as `imagegen` (`/v2/inference/<modelFamily>/t2i`). */
  readonly modelFamily: string;
  /** The scheme word of the image-generation key (`Authorization: <imageAuthScheme> <key>`). */
  readonly imageAuthScheme: string;
  /** The business lookup's path. */
  readonly companyPath: string;
}

/** The shared context every route and the request pipeline read; its members are never replaced. */
export interface EmulatorContext {
  readonly store: Store;
  readonly faults: Faults;
  readonly log: RequestLog;
  readonly imagegen: Imagegen;
  /** Its own base URL (`http://127.0.0.1:<port>`), known once it listens. */
  readonly url: () => string;
  readonly accessToken: string;
  readonly appKey: string;
  readonly paths: ServicePaths;
  /** Answer with the spec examples' quirks (wire decision §5). */
  readonly quirks: boolean;
  readonly now: () => Date;
}

/**
 * The reply to a change, given only once the change is on disk (SPEC.md, State file); when it
 * cannot be stored, the change is undone and the request fails with 500 (8004) saying why.
 */
export async function persisted(store: Store, reply: Reply): Promise<Reply> {
  try {
    await store.persist();
  } catch (error) {
    if (error instanceof StateWriteError)
      throw failure(500, codes.stateNotStored, `${error.message}; the change was not made`);
    throw error;
  }
  return reply;
}
