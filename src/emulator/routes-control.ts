/**
 * The test-only routes under /_emulator/ (SPEC.md §12): reset, the request log, fault settings,
 * links and pinned statuses. No auth, never delayed or faulted; bodies are JSON whatever their type.
 */
import { linkAdGroup, setAudienceStatus, setServiceFields } from './audiences.js';
import { parseId } from './ids.js';
import { persisted } from './context.js';
import type { EmulatorContext } from './context.js';
import type { EmulatorState } from './store.js';
import { parseFaultPatch } from './faults.js';
import { detailCodes as codes, failure, invalid } from './http-error.js';
import { errorReply, lenientJson, ok, single } from './http-plumbing.js';
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
      async (call) => {
        store.state = seedState(idBase(call));
        const reply = await persisted(store, ok({ reset: true }));
        faults.reset();
        log.clear();
        return reply;
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
    ['POST /_emulator/accounts', async (call) => persisted(store, ok(addAccount(store.state, lenientJson(call))))],
    ['GET /_emulator/state', async () => ok(store.state)],
  ]);
  return async (call) => {
    const key = `${call.method} ${call.url.pathname}`;
    try {
      refuseCrossOrigin(call, emulator.url());
      const handler = exact.get(key);
      if (handler) return await handler(call);
      const status = /^\/_emulator\/audiences\/([^/]+)\/status$/.exec(call.url.pathname);
      if (status && call.method === 'PUT') return await pinStatus(emulator, status[1] ?? '', call);
      const fields = /^\/_emulator\/audiences\/([^/]+)\/fields$/.exec(call.url.pathname);
      if (fields && call.method === 'PUT') return await putServiceFields(emulator, fields[1] ?? '', call);
      throw failure(404, codes.noRoute, `no test route ${key}`);
    } catch (error) {
      return errorReply(error);
    }
  };
}

/**
 * A test route resets, rewires and reads the whole state, with no credential: a web page the
 * user visits must not reach it. A browser says where a request comes from (`Origin` on a
 * cross-origin request and on any POST, PUT or DELETE; `Sec-Fetch-Site` on every request), so
 * one from another site, or another port, is 403 (2006). A page whose name was rebound to
 * 127.0.0.1 (DNS rebinding) sends its own same-origin requests, but with its own name in
 * `Host`: a Host other than the emulator's own address (127.0.0.1 or localhost, its port) is
 * refused too. Tools that send none of this but their Host (curl, the tests, the CLI) are
 * served as before.
 */
function refuseCrossOrigin(call: Call, ownUrl: string): void {
  const site = single(call.headers['sec-fetch-site']);
  const origin = single(call.headers['origin']);
  const host = single(call.headers['host']);
  const own = new URL(ownUrl);
  const ownHosts = [own.host, `localhost:${own.port}`];
  const ownOrigins = ownHosts.map((ownHost) => `${own.protocol}//${ownHost}`);
  if (host === undefined || !ownHosts.includes(host.toLowerCase())) {
    throw failure(
      403,
      codes.crossOrigin,
      `the test-only routes refuse a request for another host (Host: ${host ?? 'none'}), as a page whose name leads here would send`,
    );
  }
  if (site === 'cross-site' || site === 'same-site') {
    throw failure(
      403,
      codes.crossOrigin,
      `the test-only routes refuse a request a web page sent from another site (Sec-Fetch-Site: ${site})`,
    );
  }
  if (origin !== undefined && !ownOrigins.includes(origin)) {
    throw failure(
      403,
      codes.crossOrigin,
      `the test-only routes refuse a request a web page sent from another origin (Origin: ${origin})`,
    );
  }
}

/** PUT /_emulator/audiences/<id>/status: pins (or, with null, unpins) an audience's status. */
async function pinStatus(emulator: EmulatorContext, idText: string, call: Call): Promise<Reply> {
  const id = parseId(idText);
  if (id === undefined) throw invalid(codes.badPathId, `'${idText}' is not an audience id`);
  return persisted(emulator.store, ok(setAudienceStatus(emulator.store.state, id, lenientJson(call))));
}

/**
 * PUT /_emulator/audiences/<id>/fields: gives the audience fields of the service beyond the spec (SPEC.md, Test-only
 * routes).
 */
async function putServiceFields(emulator: EmulatorContext, idText: string, call: Call): Promise<Reply> {
  const id = parseId(idText);
  if (id === undefined) throw invalid(codes.badPathId, `'${idText}' is not an audience id`);
  return persisted(emulator.store, ok(setServiceFields(emulator.store.state, id, lenientJson(call))));
}

/**
 * POST /_emulator/accounts `{"id": N}`: one more accessible ad account, with no campaigns and no targetable items, until
 * the next reset; for runs over many accounts (the benchmark's). An id already taken is 400, not a second account.
 */
function addAccount(state: EmulatorState, body: unknown): { id: number; name: string } {
  const id = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['id'] : undefined;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw invalid(codes.wrongType, 'id must be a positive whole number (an ad account id)');
  if (state.accounts.some((account) => account.id === id))
    throw invalid(codes.wrongType, `ad account ${id} already exists`);
  const account = { id, name: `Account ${id}`, accessible: true, adultTargeting: false };
  state.accounts.push(account);
  return { id, name: account.name };
}

/**
 * The optional body of POST /_emulator/reset: `{"idBase": "9007199254740992"}` adds the base to
 * every id the seed gives out, so that ids past 2^53 are served (an empty body: the usual ids).
 */
function idBase(call: Call): bigint {
  if (call.body === 'too-large' || call.body.length === 0) return 0n;
  const record = lenientJson(call);
  const base =
    typeof record === 'object' && record !== null ? (record as Record<string, unknown>)['idBase'] : undefined;
  if (base === undefined) return 0n;
  if (
    (typeof base !== 'string' && typeof base !== 'number' && typeof base !== 'bigint') ||
    !/^(0|[1-9][0-9]{0,17})$/.test(String(base))
  ) {
    throw invalid(
      codes.wrongType,
      'idBase must be a whole number from 0, below 10^18 (digits in a string, or a number)',
    );
  }
  return BigInt(base);
}

/** `?after=SEQ` of GET /_emulator/requests: only the entries logged after that one (a poll that reads what is new). */
function afterSeq(call: Call): number | undefined {
  const text = call.url.searchParams.get('after');
  if (text === null) return undefined;
  if (!/^\d+$/.test(text))
    throw invalid(codes.wrongType, `after must be a sequence number (a whole number), not '${text}'`);
  return Number(text);
}
