/**
 * The business lookup's one route (business-api.md): a company by registration number, for an
 * authorized ad account, at the configured path (the spec's `/openapi/v1/companies` by default).
 */
import { authorizeAds } from './auth.js';
import { lookupCompany } from './company.js';
import type { EmulatorContext } from './context.js';
import { ok, queryParam } from './http-plumbing.js';
import { exactPath, type Route } from './router.js';

export function companyRoutes(emulator: EmulatorContext): Route[] {
  return [
    {
      pattern: exactPath(emulator.paths.companyPath),
      methods: {
        GET: async (call) => {
          authorizeAds(emulator, call.headers);
          return ok(lookupCompany(emulator.store.state, queryParam(call, 'bizNum')));
        },
      },
    },
  ];
}
