/**
 * The audience service's routes (operations 1–8 of audience-api.md): each authorizes the ad account first; a change is
 * answered once written.
 */
import {
  createAudience,
  deleteAudience,
  deleteAudiences,
  listAudienceAdGroups,
  listAudiences,
  readAudience,
  unlinkAdGroup,
  updateAudience,
  vanishAudience,
} from './audiences.js';
import { parseId, type Long } from './ids.js';
import type { AudienceContext } from './audiences.js';
import { authorizeAds } from './auth.js';
import { persisted } from './context.js';
import type { EmulatorContext } from './context.js';
import { detailCodes as codes, invalid } from './http-error.js';
import { jsonBody, ok, queryParam } from './http-plumbing.js';
import type { Call, Handler, Reply } from './http-plumbing.js';
import { shapeList } from './list-shapes.js';
import type { Route } from './router.js';

/** The routes, list before read so `/targetings/audiences` is never taken for an id. */
export function audienceRoutes(emulator: EmulatorContext): Route[] {
  /** A handler running `run` for the ad account the call is authorized for. */
  const forAccount =
    (run: (ctx: AudienceContext, call: Call) => Reply | Promise<Reply>): Handler =>
    async (call) =>
      run(audienceContext(emulator, call), call);
  /** The reply to a change, once it is written. */
  const changed = (reply: Reply): Promise<Reply> => persisted(emulator.store, reply);
  /** A list's items in the shape the settings choose (`audienceListShape`, `adGroupListShape`). */
  const listed = (items: unknown[], list: 'audienceListShape' | 'adGroupListShape', call: Call): Reply => {
    const { settings } = emulator.faults;
    return ok(
      shapeList(items, settings[list], settings.pageSize, () => ({
        page: queryParam(call, 'page'),
        size: queryParam(call, 'size'),
      })),
    );
  };
  /** An audience `vanishOnRead` names is deleted (and stored) before it is read, so the read answers 404. */
  const vanishing = async (ctx: AudienceContext, id: Long): Promise<Long> => {
    if (emulator.faults.settings.vanishOnRead.includes(id) && vanishAudience(ctx, id)) await changed({ status: 200 });
    return id;
  };
  return [
    {
      pattern: /^\/openapi\/v4\/targetings\/audiences$/,
      methods: { GET: forAccount((ctx, call) => listed(listAudiences(ctx).content, 'audienceListShape', call)) },
    },
    {
      pattern: /^\/openapi\/v4\/targetings$/,
      methods: {
        POST: forAccount((ctx, call) => changed(ok(createAudience(ctx, jsonBody(call))))),
        PUT: forAccount((ctx, call) => changed(ok(updateAudience(ctx, jsonBody(call))))),
        DELETE: forAccount((ctx, call) => changed(ok(deleteAudiences(ctx, queryParam(call, 'audienceIds'))))),
      },
    },
    {
      pattern: /^\/openapi\/v4\/targetings\/([^/]+)$/,
      methods: {
        GET: forAccount(async (ctx, call) => ok(readAudience(ctx, await vanishing(ctx, audienceId(call))))),
        DELETE: forAccount((ctx, call) => {
          deleteAudience(ctx, audienceId(call));
          return changed({ status: 200 });
        }),
      },
    },
    {
      pattern: /^\/openapi\/v4\/targetings\/([^/]+)\/adGroups$/,
      methods: {
        GET: forAccount(async (ctx, call) =>
          listed(listAudienceAdGroups(ctx, await vanishing(ctx, audienceId(call))).content, 'adGroupListShape', call),
        ),
      },
    },
    {
      pattern: /^\/openapi\/v4\/targetings\/([^/]+)\/unlink$/,
      methods: {
        PUT: forAccount((ctx, call) => {
          unlinkAdGroup(ctx, audienceId(call), queryParam(call, 'adGroupId'));
          return changed({ status: 200 });
        }),
      },
    },
  ];
}

/** What an audience operation needs, for the ad account the call is authorized for (401/403 otherwise). */
function audienceContext(emulator: EmulatorContext, call: Call): AudienceContext {
  const account = authorizeAds(emulator, call.headers);
  return {
    state: emulator.store.state,
    account,
    now: emulator.now(),
    quirks: emulator.quirks,
    memberIds: emulator.faults.settings.memberIds,
    trackerShape: emulator.faults.settings.trackerShape,
  };
}

/** The audience id of the path: 400 (1005) unless a positive integer. */
function audienceId(call: Call): Long {
  const text = call.params[0] ?? '';
  const id = parseId(text);
  if (id === undefined) throw invalid(codes.badPathId, `'${text}' is not an audience id (a positive integer)`);
  return id;
}
