/**
 * The test-only routes under /_emulator/ (SPEC.md §12): reset, the request log, fault settings,
 * links and pinned statuses. No auth, never delayed or faulted; bodies are JSON whatever their type.
 */
import { linkAdGroup, parseId, setAudienceStatus } from './audiences.js';
import { persisted } from './context.js';
import type { EmulatorContext } from './context.js';
import { parseFaultPatch } from './faults.js';
import { detailCodes as codes, failure, invalid } from './http-error.js';
import { errorReply, lenientJson, ok } from './http-plumbing.js';
import type { Call, Handler, Reply } from './http-plumbing.js';
import { seedState } from './seed.js';

/** Whether a path belongs to the test-only routes rather than a service. */
export function isControlPath(path: string): boolean {
  return path === '/_emulator' || path.startsWith('/_emulator/');
}

/** One handler for every test-only route; an unknown one is 404 (1007), any failure its error answer. */
export function controlRoutes(emulator: EmulatorContext): Handler {
  const { store, faults, log } = emulator;
  const exact = new Map<string, Handler>([
    [
      'POST /_emulator/reset',
      async () => {
        await store.replace(seedState());
        faults.reset();
        log.clear();
        return ok({ reset: true });
      },
    ],
    ['GET /_emulator/requests', async (call) => ok({ requests: log.entries(afterSeq(call)) })],
    [
      'DELETE /_emulator/requests',
      async () => {
        log.clear();
        return ok({ cleared: true });
      },
    ],
    ['GET /_emulator/faults', async () => ok(faults.settings)],
    [
      'PUT /_emulator/faults',
      async (call) => {
        const patch = parseFaultPatch(lenientJson(call));
        if (typeof patch === 'string') throw invalid(codes.wrongType, patch);
        faults.update(patch);
        return ok(faults.settings);
      },
    ],
    ['POST /_emulator/links', async (call) => persisted(store, ok(linkAdGroup(store.state, lenientJson(call))))],
    ['GET /_emulator/state', async () => ok(store.state)],
  ]);
  return async (call) => {
    const key = `${call.method} ${call.url.pathname}`;
    try {
      const handler = exact.get(key);
      if (handler) return await handler(call);
      const status = /^\/_emulator\/audiences\/([^/]+)\/status$/.exec(call.url.pathname);
      if (status && call.method === 'PUT') return await pinStatus(emulator, status[1] ?? '', call);
      throw failure(404, codes.noRoute, `no test route ${key}`);
    } catch (error) {
      return errorReply(error);
    }
  };
}

/** PUT /_emulator/audiences/<id>/status: pins (or, with null, unpins) an audience's status. */
async function pinStatus(emulator: EmulatorContext, idText: string, call: Call): Promise<Reply> {
  const id = parseId(idText);
  if (id === undefined) throw invalid(codes.badPathId, `'${idText}' is not an audience id`);
  return persisted(emulator.store, ok(setAudienceStatus(emulator.store.state, id, lenientJson(call))));
}

/** `?after=SEQ` of GET /_emulator/requests: only the entries logged after that one (a poll that reads what is new). */
function afterSeq(call: Call): number | undefined {
  const text = call.url.searchParams.get('after');
  if (text === null) return undefined;
  if (!/^\d+$/.test(text)) throw invalid(codes.wrongType, `after must be a sequence number (a whole number), not '${text}'`);
  return Number(text);
}
