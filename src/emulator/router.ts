/** Routing of service requests: the first route whose pattern matches the path handles the call. */
import { detailCodes as codes, failure } from './http-error.js';
import { errorReply } from './http-plumbing.js';
import type { Handler } from './http-plumbing.js';

/** A path pattern (its groups become the call's params) and a handler per method. */
export interface Route {
  pattern: RegExp;
  methods: Record<string, Handler>;
}

/** One handler for all `routes`: 404 when no path matches, 405 with Allow for another method; every failure becomes its error answer. */
export function createRouter(routes: Route[]): Handler {
  return async (call) => {
    try {
      for (const route of routes) {
        const match = route.pattern.exec(call.url.pathname);
        if (!match) continue;
        const handler = route.methods[call.method];
        if (!handler) {
          const allow = Object.keys(route.methods).join(', ');
          const reply = errorReply(failure(405, codes.methodNotAllowed, `${call.method} is not allowed here; use ${allow}`));
          return { ...reply, headers: { Allow: allow } };
        }
        return await handler({ ...call, params: match.slice(1) });
      }
      throw failure(404, codes.noRoute, `no route ${call.method} ${call.url.pathname}`);
    } catch (error) {
      return errorReply(error);
    }
  };
}
