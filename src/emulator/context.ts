/**
 * What the parts of one running emulator share, built once at start: its state, clock,
 * credentials, fault settings, request log and image service.
 */
import type { Faults } from './faults.js';
import type { Reply } from './http-plumbing.js';
import type { Imagegen } from './imagegen.js';
import type { RequestLog } from './request-log.js';
import type { Store } from './store.js';

/** The shared context every route and the request pipeline read; its members are never replaced. */
export interface EmulatorContext {
  readonly store: Store;
  readonly faults: Faults;
  readonly log: RequestLog;
  readonly imagegen: Imagegen;
  readonly accessToken: string;
  readonly appKey: string;
  /** Answer with the spec examples' quirks (wire decision §5). */
  readonly quirks: boolean;
  readonly now: () => Date;
}

/** The reply to a change, given only once the change is on disk (SPEC.md, State file). */
export async function persisted(store: Store, reply: Reply): Promise<Reply> {
  await store.persist();
  return reply;
}
