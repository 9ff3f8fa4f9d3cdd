/**
 * Who may call (SPEC.md, Authentication): a Bearer token and an accessible ad account for the
 * audience and company services, the app key under its scheme (AppKey unless configured) for
 * image generation.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { parseAccountId } from './audiences.js';
import { detailCodes as codes, failure } from './http-error.js';
import { single } from './http-plumbing.js';
import type { Account, Store } from './store.js';

/**
 * The ad account a Bearer request may act for: 401 for a bad token, 403 for a missing, unknown or forbidden account.
 */
export function authorizeAds(
  emulator: { readonly accessToken: string; readonly store: Store },
  headers: IncomingHttpHeaders,
): Account {
  const token = credential(headers, 'Bearer');
  if (token !== emulator.accessToken) throw failure(401, codes.authUnknown, 'the access token is not valid');
  const header = single(headers['adaccountid']);
  const id = header === undefined ? undefined : parseAccountId(header.trim());
  if (id === undefined)
    throw failure(403, codes.accountHeader, 'the adAccountId header is required and must be an ad account id');
  const account = emulator.store.state.accounts.find((candidate) => candidate.id === id);
  if (!account?.accessible)
    throw failure(403, codes.accountForbidden, `ad account ${id} is not accessible with this access token`);
  return account;
}

/** Passes when the request carries the emulator's app key under `scheme`; 401 otherwise. */
export function authorizeImages(
  emulator: { readonly appKey: string; readonly paths: { readonly imageAuthScheme: string } },
  headers: IncomingHttpHeaders,
): void {
  if (credential(headers, emulator.paths.imageAuthScheme) !== emulator.appKey)
    throw failure(401, codes.authUnknown, 'the REST API key is not valid');
}

/** The credential after `scheme` (case-insensitive, as HTTP schemes are); 401 when absent or another scheme. */
function credential(headers: IncomingHttpHeaders, scheme: string): string {
  const value = headers.authorization;
  if (value === undefined || value.trim() === '')
    throw failure(401, codes.authMissing, `the Authorization header is required (${scheme} …)`);
  const match = /^(\S+)\s+(\S+)\s*$/.exec(value);
  if (!match || match[1]?.toLowerCase() !== scheme.toLowerCase()) {
    throw failure(401, codes.authScheme, `the Authorization header must be '${scheme} <credential>'`);
  }
  return match[2] ?? '';
}

/**
 * The Authorization scheme as the request log records it, never the credential: `Bearer`, the
 * image-generation scheme as configured (`AppKey` by default), `other` or `none`.
 */
export function authScheme(headers: IncomingHttpHeaders, imageScheme: string): string {
  const scheme = headers.authorization?.trim().split(/\s+/)[0]?.toLowerCase();
  if (scheme === undefined || scheme === '') return 'none';
  if (scheme === 'bearer') return 'Bearer';
  if (scheme === imageScheme.toLowerCase()) return imageScheme;
  return 'other';
}
