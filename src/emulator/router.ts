/** Routing of service requests: the first route whose pattern matches the path handles the call. */
import { detailCodes as codes, failure } from './http-error.js';
import { errorReply } from './http-plumbing.js';
import type { Handler, Reply } from './http-plumbing.js';

/** A path pattern (its groups become the call's params) and a handler per method. */
export interface Route {
  pattern: RegExp;
  methods: Record<string, Handler>;
}

/** `text` matched literally inside a RegExp. */
export function escapePattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A pattern matching exactly this path. */
export function exactPath(path: string): RegExp {
  return new RegExp(`^${escapePattern(path)}$`);
}

/**
 * A path no service has, answered as the web server in front of a service answers it: 404 with
 * a body that is not the service's error shape, so a client can tell a wrong address (a path
 * or model family set otherwise than the service's) from the service's own 404 (SPEC.md, Routes).
 */
function noService(path: string): Reply {
  return { status: 404, json: { status: 404, error: 'Not Found', path } };
}

/**
 * One handler for all `routes`: 404 when no path matches, 405 with Allow for another method; every failure becomes its
 * error answer.
 */
export function createRouter(routes: Route[]): Handler {
  return async (call) => {
    try {
      for (const route of routes) {
        const match = route.pattern.exec(call.url.pathname);
        if (!match) continue;
        const handler = route.methods[call.method];
        if (!handler) {
          const allow = Object.keys(route.methods).join(', ');
          const reply = errorReply(
            failure(405, codes.methodNotAllowed, `${call.method} is not allowed here; use ${allow}`),
          );
          return { ...reply, headers: { Allow: allow } };
        }
        return await handler({ ...call, params: match.slice(1) });
      }
      return noService(call.url.pathname);
    } catch (error) {
      return errorReply(error);
    }
  };
}
