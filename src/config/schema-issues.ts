import type { ErrorObject } from 'ajv';
import { bizNumFormHint, dashedBizNum, PROVINCES, type Gender } from '../model/index.js';
import type { Finding } from './issues.js';
import { fromPointer, type Path } from './positions.js';
import { didYouMean, suggest } from './suggest.js';

const DISTRICT = /^[A-Z][0-9]{2}$/;
const TOWN = /^[A-Z][0-9]{4}$/;
const PROVINCE_LIST = Object.entries(PROVINCES)
  .map(([code, name]) => `${code} ${name}`)
  .join(', ');

/**
 * Turns ajv's errors into problems people can act on: the offending key or value, a message
 * in the file's terms and a hint where one helps. The spec's cross-field rules are also in
 * the schema (for editors), but rules.ts reports them with better positions, so their ajv
 * errors are left out here.
 */
export function findingsFromSchemaErrors(errors: readonly ErrorObject[]): Finding[] {
  const kept = errors.filter((error) => !error.schemaPath.includes('/dependencies/') && error.keyword !== 'if');
  const choiceOf = alternativesIndex(kept);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const error of kept) {
    const choice = choiceOf(error.instancePath);
    const finding = choice ? fromAlternative(error, choice) : fromError(error);
    if (!finding) continue;
    finding.hint ??= describedHint(error, finding.path);
    const key = `${finding.path.join('/')}\u0000${finding.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(finding);
  }
  return findings;
}

/** The schema's own description of the value, as the hint of a finding that has none. */
function describedHint(error: ErrorObject, path: Path): string | undefined {
  if (error.keyword === 'required' || error.keyword === 'additionalProperties') return undefined;
  const description = error.parentSchema?.['description'];
  if (typeof description !== 'string') return undefined;
  const text = description.replace(/\.$/, '');
  const field = path.findLast((part) => typeof part === 'string');
  return field === undefined
    ? text
    : `${field}: ${/^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text}`;
}

/**
 * The `anyOf` error a value falls under: the first, in ajv's order, at the value's path or at
 * one of its parents. Looked up by path, parent by parent, so that a file with an error under
 * each of 20,000 alternatives costs 20,000 lookups, not 20,000 squared (88 s).
 */
function alternativesIndex(errors: readonly ErrorObject[]): (instancePath: string) => ErrorObject | undefined {
  const byPath = new Map<string, { error: ErrorObject; order: number }>();
  for (const [order, error] of errors.entries()) {
    if (error.keyword === 'anyOf' && !byPath.has(error.instancePath)) byPath.set(error.instancePath, { error, order });
  }
  return (instancePath) => {
    if (byPath.size === 0) return undefined;
    let found: { error: ErrorObject; order: number } | undefined;
    for (let path = instancePath; ; path = path.slice(0, path.lastIndexOf('/'))) {
      const here = byPath.get(path);
      if (here !== undefined && (found === undefined || here.order < found.order)) found = here;
      if (path === '') return found?.error;
    }
  };
}

/**
 * A value that may take one of two forms: a member id (a number or a text) is one message
 * whatever it is; a region (a code or an object) reports the errors of the form its type
 * chose, or one message when it fits neither.
 */
function fromAlternative(error: ErrorObject, anyOf: ErrorObject): Finding | undefined {
  const value = anyOf.data;
  const custom = anyOf.parentSchema?.['errorMessage'];
  if (typeof custom === 'string')
    return error === anyOf
      ? { path: pathOf(error), target: 'value', ...(inexactId(value) ?? { message: `${describe(value)} ${custom}` }) }
      : undefined;
  const atChoice = error.instancePath === anyOf.instancePath;
  if (isPlainObject(value)) {
    return atChoice && ['enum', 'pattern', 'type', 'const', 'anyOf'].includes(error.keyword)
      ? undefined
      : fromError(error);
  }
  if (typeof value === 'string')
    return error.keyword === 'type' || error.keyword === 'anyOf' ? undefined : fromError(error);
  if (error !== anyOf) return undefined;
  return {
    path: pathOf(error),
    target: 'value',
    message: `expected a region code or a map with value:, got ${describe(value)}`,
  };
}

function fromError(error: ErrorObject): Finding | undefined {
  const path = pathOf(error);
  const value = error.data;
  const custom = error.parentSchema?.['errorMessage'];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      const allowed = Object.keys((error.parentSchema?.['properties'] as Record<string, unknown> | undefined) ?? {});
      return {
        path: [...path, field],
        target: 'key',
        message: 'unknown field',
        hint: didYouMean(field, allowed) ?? `the fields here are ${allowed.join(', ')}`,
      };
    }
    case 'required': {
      const field = String(params['missingProperty']);
      return { path, target: 'value', message: `missing required field ${field}`, ...hintFor(REQUIRED_HINTS[field]) };
    }
    case 'type':
      return typeFinding(path, String(params['type']), value);
    case 'enum':
    case 'const':
      return enumFinding(path, error, value);
    case 'pattern':
      return (
        codeFinding(path, error, value) ?? {
          path,
          target: 'value',
          message: `${describe(value)} ${typeof custom === 'string' ? custom : (error.message ?? 'has the wrong form')}`,
          ...(path.at(-1) === 'registrationNumber' ? { hint: registrationNumberHint(value) } : {}),
        }
      );
    case 'minItems':
      return {
        path,
        target: 'value',
        message: params['limit'] === 1 ? 'must not be empty' : `must list at least ${String(params['limit'])} values`,
        ...hintFor(EMPTY_LIST_HINTS[String(path.at(-1))]),
      };
    case 'minLength':
      return { path, target: 'value', message: 'must not be empty' };
    case 'maxLength':
      return {
        path,
        target: 'value',
        message: `is ${typeof value === 'string' ? [...value].length : '?'} characters long, more than the ${String(params['limit'])} allowed`,
      };
    case 'maxItems':
      return { path, target: 'value', message: `lists more than ${String(params['limit'])} values` };
    case 'multipleOf':
      return {
        path,
        target: 'value',
        message: `must be a multiple of ${String(params['multipleOf'])}, got ${describe(value)}`,
        ...multipleHint(value, Number(params['multipleOf'])),
      };
    case 'minimum':
      return { path, target: 'value', message: `must be at least ${String(params['limit'])}, got ${describe(value)}` };
    case 'maximum':
      // Numbers are read as doubles: a larger id would silently become another one, and showing
      // the number read would show another id than the file's.
      if (params['limit'] === Number.MAX_SAFE_INTEGER) {
        return {
          path,
          target: 'value',
          message: `is a number past ${Number.MAX_SAFE_INTEGER}, which cannot be read exactly`,
          hint: 'an id this large cannot be read exactly: check it against the ad manager',
        };
      }
      return { path, target: 'value', message: `must be at most ${String(params['limit'])}, got ${describe(value)}` };
    default:
      return {
        path,
        target: 'value',
        message: typeof custom === 'string' ? custom : (error.message ?? `fails ${error.keyword}`),
      };
  }
}

/**
 * Numbers are read as doubles: past 2^53 an id would silently become another one (its digits
 * are not what the file shows), so such an id is refused, and written in quotes it is read as text.
 */
function inexactId(value: unknown): { message: string; hint: string } | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || Number.isSafeInteger(value)) return undefined;
  return {
    message: `is a number past ${Number.MAX_SAFE_INTEGER}, which cannot be read exactly`,
    hint: 'write the id in quotes, e.g. "9007199254740993": an id past 9007199254740991 is read exactly as text, as `audiences import` writes it',
  };
}

const REQUIRED_HINTS: Readonly<Record<string, string>> = {
  adAccountId: 'the id of the ad account this file describes, e.g. adAccountId: 1234',
  audiences: 'list the audiences of the account (audiences: [] for none)',
  name: "an audience's name is its identity: unique in the file",
  type: 'type: DISPLAY or type: MESSAGE',
  value: "a region's value is its code, e.g. value: I",
  registrationNumber: 'the business registration number, e.g. registrationNumber: 120-81-47521',
  inclusionType: 'a member is sent whole: inclusionType: INCLUDE to target these people, EXCLUDE to leave them out',
  eventCode: 'a member is sent whole: the tracker event, e.g. eventCode: purchase',
  customerFileId: 'the id of the customer file, as the ad manager shows it',
  trackId: 'the id of the pixel or SDK, as the ad manager shows it',
  cohortId: 'the id of the ad-response cohort, as the ad manager shows it',
  profileId: 'the id of the channel or app, as the ad manager shows it',
  groupId: 'the id of the friend group, as the ad manager shows it',
};

const EMPTY_LIST_HINTS: Readonly<Record<string, string>> = {
  ages: 'to target every age, leave out ages (and ageType)',
  genders: 'to target every gender, leave out genders (and genderType)',
};

function multipleHint(value: unknown, step: number): { hint?: string } {
  if (typeof value !== 'number' || !(step > 0)) return {};
  const below = Math.floor(value / step) * step;
  return { hint: `the nearest are ${below} and ${below + step}` };
}

function hintFor(hint: string | undefined): { hint?: string } {
  return hint === undefined ? {} : { hint };
}

const TYPE_NOUNS: Readonly<Record<string, string>> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  object: 'a map',
  array: 'a list',
  null: 'nothing',
};

function typeFinding(path: Path, expected: string, value: unknown): Finding {
  const noun = expected
    .split(',')
    .map((type) => TYPE_NOUNS[type] ?? type)
    .join(' or ');
  if (path.length === 0) {
    return {
      path,
      target: 'value',
      message: `the file must be a map (adAccountId:, audiences: …), not ${describe(value)}`,
    };
  }
  const finding: Finding = { path, target: 'value', message: `expected ${noun}, got ${describe(value)}` };
  if (
    (expected === 'integer' || expected === 'number') &&
    typeof value === 'string' &&
    /^\s*-?\d+(\.\d+)?\s*$/.test(value)
  ) {
    finding.hint = 'write the number without quotes';
  } else if (expected === 'string' && path.at(-1) === 'registrationNumber') {
    finding.hint = registrationNumberHint(value);
  } else if (expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
    finding.hint = `YAML reads ${String(value)} as a ${typeof value}: quote it, "${String(value)}"`;
  } else if (expected === 'boolean' && typeof value === 'string' && /^(yes|no|on|off|y|n)$/i.test(value)) {
    finding.hint = `YAML 1.2 reads ${value} as text: write true or false`;
  } else if (expected === 'array' && value !== null && value !== undefined && !Array.isArray(value)) {
    finding.hint = `write a list: [${typeof value === 'object' ? '…' : String(value)}], or one "- " item per line`;
  } else if (value === null) {
    finding.hint = 'give a value, or leave the field out';
  }
  return finding;
}

/** A registration number of another form: ten bare digits (a number to YAML unless quoted) get their dashed form. */
function registrationNumberHint(value: unknown): string {
  const text =
    typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value : '';
  return dashedBizNum(text) === undefined
    ? 'write it with its hyphens, as on the certificate: NNN-NN-NNNNN, e.g. 120-81-47521'
    : bizNumFormHint(text);
}

function enumFinding(path: Path, error: ErrorObject, value: unknown): Finding {
  const params = error.params as Record<string, unknown>;
  const allowed = (Array.isArray(params['allowedValues']) ? params['allowedValues'] : [params['allowedValue']]).map(
    String,
  );
  const distinct = [...new Set(allowed)];
  const finding: Finding = { path, target: 'value', message: `unknown value ${describe(value)}` };
  if (error.schemaPath.includes('/AgeBand/')) {
    finding.message = `${describe(value)} is not an age band`;
    finding.hint = ageHint(value);
  } else if (error.schemaPath.includes('/ProvinceCode/')) {
    finding.message = `${describe(value)} is not a province code`;
    finding.hint = provinceHint(value);
  } else if (error.schemaPath.includes('/Gender/')) {
    finding.message = `${describe(value)} is not a gender`;
    finding.hint = genderHint(value);
  } else {
    const close = typeof value === 'string' ? didYouMean(value, distinct) : undefined;
    finding.hint = close ?? `one of ${distinct.join(', ')}`;
  }
  return finding;
}

function ageHint(value: unknown): string {
  const bands = 'age bands are 15, 20, 25, … 65, each the start of five years';
  const years = typeof value === 'number' ? value : typeof value === 'string' ? Number.parseInt(value, 10) : Number.NaN;
  if (!Number.isInteger(years) || years < 15 || years > 69) return `${bands} (15 to 19 up to 65 to 69)`;
  const band = String(years - (years % 5));
  return `${bands}: ${years} is in the band ${band} (${band} to ${Number(band) + 4})`;
}

function provinceHint(value: unknown): string {
  const codes = Object.keys(PROVINCES);
  if (typeof value === 'string') {
    const code = value.toUpperCase();
    if (DISTRICT.test(code)) return deeperCode(value, 'district', 'depth2Locations');
    if (TOWN.test(code)) return deeperCode(value, 'town', 'depth3Locations');
    const byName = suggest(value, Object.values(PROVINCES));
    const match = codes.includes(code) ? code : codes.find((candidate) => PROVINCES[candidate] === byName);
    if (match !== undefined) return `did you mean ${match} (${PROVINCES[match] ?? ''})?`;
  }
  return `province codes are ${PROVINCE_LIST}`;
}

const GENDER_WORDS = new Map<string, Gender>([
  ['f', 'F'],
  ['female', 'F'],
  ['woman', 'F'],
  ['women', 'F'],
  ['m', 'M'],
  ['male', 'M'],
  ['man', 'M'],
  ['men', 'M'],
]);

function genderHint(value: unknown): string {
  const text = typeof value === 'string' ? value.toLowerCase() : '';
  const match = GENDER_WORDS.get(text);
  return match === undefined ? 'genders are F (female) and M (male)' : `did you mean ${match}?`;
}

/**
 * The hint for a district or town code in another list. Only the service knows which of them
 * exist (the spec lists the provinces alone), so the hint names the form and the list, never
 * promises that moving the code there makes it right.
 */
function deeperCode(value: string, depth: 'district' | 'town', list: string): string {
  return `${value} has the form of a ${depth} code, which ${list} takes; whether that ${depth} exists only the service can tell, when the plan is applied`;
}

/** A region code in the wrong list, or in the wrong case, says so. */
function codeFinding(path: Path, error: ErrorObject, value: unknown): Finding | undefined {
  if (typeof value !== 'string' || !error.schemaPath.includes('Code/')) return undefined;
  const custom = error.parentSchema?.['errorMessage'];
  const message = `${describe(value)} ${typeof custom === 'string' ? custom : 'is not a valid code'}`;
  const code = value.toUpperCase();
  const wantsTown = error.schemaPath.includes('/TownCode/');
  let hint: string | undefined;
  if (code in PROVINCES) hint = `${value} is a province code: list it under locations`;
  else if (DISTRICT.test(code))
    hint = wantsTown ? deeperCode(value, 'district', 'depth2Locations') : `did you mean ${code}?`;
  else if (TOWN.test(code)) hint = wantsTown ? `did you mean ${code}?` : deeperCode(value, 'town', 'depth3Locations');
  return { path, target: 'value', message, ...hintFor(hint) };
}

function pathOf(error: ErrorObject): Path {
  return fromPointer(error.instancePath).map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A value as it reads in a message: short, quoted when it is text. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 37) + '…' : value);
  return String(value);
}
