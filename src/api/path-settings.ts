/**
 * The settings of where the real services differ from the spec's literal paths and scheme, read
 * from the environment and checked as the other settings are: a clear error naming the variable,
 * never a secret it may quote.
 */
import { AppError } from '../errors.js';
import { redact } from '../secrets.js';

/**
 * Where the real services differ from the spec's literal paths and scheme (DESIGN.md), each with
 * the spec's value, its default: docs/real-service.md gives the real ones.
 */
export const PATH_SETTINGS = {
  /** The path segment the spec writes as `imagegen` ("imagegen stands for the model family name"). */
  IMAGEGEN_MODEL_FAMILY: 'imagegen',
  /** The scheme word before the image-generation key in the Authorization header. */
  IMAGEGEN_AUTH_SCHEME: 'AppKey',
  /** The business lookup's path under ADS_COMPANY_URL. */
  ADS_COMPANY_PATH: '/openapi/v1/companies',
} as const;

/**
 * The three path settings of an environment, each checked (see PATH_SETTINGS): for an emulator, which serves them all
 * at once.
 */
export function pathSettings(env: Readonly<Record<string, string | undefined>>): {
  modelFamily: string;
  imageAuthScheme: string;
  companyPath: string;
} {
  return {
    modelFamily: modelFamilySetting(env.IMAGEGEN_MODEL_FAMILY),
    imageAuthScheme: authSchemeSetting(env.IMAGEGEN_AUTH_SCHEME),
    companyPath: companyPathSetting(env.ADS_COMPANY_PATH),
  };
}

/** The model family: one path segment of plain characters, as the path holds it. */
export function modelFamilySetting(value: string | undefined): string {
  if (!value) return PATH_SETTINGS.IMAGEGEN_MODEL_FAMILY;
  if (/^[A-Za-z0-9._~-]+$/.test(value) && value !== '.' && value !== '..') return value;
  throw invalidSetting(
    'IMAGEGEN_MODEL_FAMILY',
    `is not one path segment: ${shown(value)}`,
    "set it to the model family's name alone (letters, digits, '-', '.', '_', '~'), e.g. karlo for /v2/inference/karlo/t2i; unset, it is imagegen, as the spec writes the paths",
  );
}

/**
 * The scheme word: an HTTP token. Its value is never shown: with a space in it, it may well be the
 * whole header, key included, pasted in.
 */
export function authSchemeSetting(value: string | undefined): string {
  if (!value) return PATH_SETTINGS.IMAGEGEN_AUTH_SCHEME;
  if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) return value;
  throw invalidSetting(
    'IMAGEGEN_AUTH_SCHEME',
    'is not one word: it has a space, a line break or another character the scheme of an Authorization header cannot hold',
    'set it to the scheme word alone, e.g. KakaoAK: audiences sends "Authorization: <IMAGEGEN_AUTH_SCHEME> <IMAGEGEN_API_KEY>" itself; unset, it is AppKey, as the spec writes it',
  );
}

/** The business lookup's path: from the root, without a query, spaces or control characters. */
export function companyPathSetting(value: string | undefined): string {
  if (!value) return PATH_SETTINGS.ADS_COMPANY_PATH;
  if (/^\/[!-~]*$/.test(value) && !/[?#]/.test(value)) return value;
  throw invalidSetting(
    'ADS_COMPANY_PATH',
    `is not a path starting with "/" (without a query, spaces or control characters): ${shown(value)}`,
    "set it to the lookup's path alone, e.g. /openapi/v4/companies; the address goes in ADS_COMPANY_URL, and unset, the path is /openapi/v1/companies, as the spec writes it",
  );
}

/** A setting's value in a message: quoted, every character visible, any secret it quotes masked. */
function shown(value: string): string {
  return JSON.stringify(redact(value));
}

function invalidSetting(variable: string, problem: string, hint: string): AppError {
  return new AppError({ code: 'INVALID_SETTING', source: 'user', summary: `${variable} ${problem}`, hint });
}
