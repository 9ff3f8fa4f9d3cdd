import {
  ignoreMatcher,
  longOf,
  parseNameGlob,
  REGION_FIELDS,
  stableStringify,
  TARGETING_FIELDS,
  type JsonValue,
  type Long,
} from '../model/index.js';
import type { Finding } from './issues.js';
import { toLabel, type Path } from './positions.js';

/** The longest name the service takes, in UTF-16 code units. */
const MAX_NAME_LENGTH = 255;

/** Where a path was written, to say "also at line N". */
export type LineOf = (path: Path) => number;

/**
 * The spec's rules that need no server (create-body rules 1, 2, 4, 5 and 8) and the rules of
 * the file itself (unique names and pinned ids, no declared audience hidden by `ignore`).
 * They run on the loaded value even when the schema found problems, so every problem shows
 * at once: each check looks only at values of the shape it understands.
 *
 * Rules 3 (adult targeting, an account flag), 6 and 7 (campaign types) need the server and
 * are checked when planning.
 */
export function checkRules(file: unknown, lineOf: LineOf): { errors: Finding[]; warnings: Finding[] } {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  if (!isRecord(file) || !Array.isArray(file['audiences'])) return { errors, warnings };
  const audiences: unknown[] = file['audiences'];
  const names = new Map<string, Path>();
  const ids = new Map<Long, Path>();
  const ignoreMatchers = nameGlobs(file, 'ignore', errors);
  nameGlobs(file, 'protect', errors);
  const renamed: number[] = [];

  // Indexed loops here and below: a file is checked once per run, by code that has not warmed
  // up, where destructuring an iterator's entries costs several times the check itself.
  for (let index = 0; index < audiences.length; index += 1) {
    const audience = audiences[index];
    if (!isRecord(audience)) continue;
    const at: Path = ['audiences', index];
    errors.push(
      ...selectionRules(audience, at),
      ...locationRules(audience, at),
      ...typeRules(audience, at),
      ...trackerRetention(audience, at),
    );
    warnings.push(...repeatedMembers(audience, at));

    const name = audience['name'];
    if (typeof name === 'string' && name.length > MAX_NAME_LENGTH) {
      // Counted as the service counts (UTF-16 code units, as Java's String does): an emoji is two.
      errors.push({
        path: [...at, 'name'],
        target: 'value',
        message: `is ${name.length} characters long as the service counts them, more than the ${MAX_NAME_LENGTH} allowed`,
        hint: 'shorten the name: the service takes at most 255 characters, and counts an emoji or another character outside the basic plane as two',
      });
    }
    if (typeof name === 'string' && name !== '') {
      const first = names.get(name);
      if (first) {
        errors.push({
          path: [...at, 'name'],
          target: 'value',
          message: `${JSON.stringify(name)} is already the name of ${toLabel(first)} (line ${lineOf([...first, 'name'])})`,
          hint: 'the name is the identity of an audience: make each unique',
        });
      } else {
        names.set(name, at);
      }
      const hidden = ignoreMatchers.find(({ matches }) => matches(name));
      if (hidden) {
        errors.push({
          path: [...at, 'name'],
          target: 'value',
          message: `${JSON.stringify(name)} matches the ignore pattern ${JSON.stringify(hidden.pattern)}, so it would never be changed`,
          hint: 'rename the audience or narrow the ignore pattern',
        });
      }
    }
    if (audience['renamedFrom'] !== undefined) renamed.push(index);
    // 5001 and "5001" pin one audience.
    const id = longOf(audience['id']);
    if (id !== undefined) {
      const first = ids.get(id);
      if (first) {
        errors.push({
          path: [...at, 'id'],
          target: 'value',
          message: `${id} is already pinned by ${toLabel(first)} (line ${lineOf([...first, 'id'])})`,
          hint: 'an id names one audience of the service: pin it once',
        });
      } else {
        ids.set(id, at);
      }
    }
  }
  if (renamed.length > 0) errors.push(...renameRules(audiences, renamed, ignoreMatchers, lineOf));
  return { errors, warnings };
}

/** The globs of `ignore` or `protect` that are globs, each with its matcher; each one that is not is an error. */
function nameGlobs(
  file: Record<string, unknown>,
  field: 'ignore' | 'protect',
  errors: Finding[],
): Array<{ pattern: string; matches: (name: string) => boolean }> {
  const list = file[field];
  if (!Array.isArray(list)) return [];
  const globs: Array<{ pattern: string; matches: (name: string) => boolean }> = [];
  for (let index = 0; index < list.length; index += 1) {
    const pattern: unknown = list[index];
    if (typeof pattern !== 'string' || pattern === '') continue;
    const parsed = parseNameGlob(pattern);
    if (parsed.ok) {
      globs.push({ pattern, matches: ignoreMatcher([pattern]) });
    } else {
      const suggestion = parsed.suggestion === pattern ? '' : ` (${JSON.stringify(parsed.suggestion)})`;
      errors.push({
        path: [field, index],
        target: 'value',
        message: `${JSON.stringify(pattern)} is not a name glob: ${parsed.problem}`,
        hint: `${parsed.hint}${suggestion}`,
      });
    }
  }
  return globs;
}

/**
 * Each old name of `renamedFrom` must say which live audience the entry is, unmistakably: not
 * the entry's own name, not a name another entry declares or gives as its old name, not an
 * ignored name. Names are compared as they print (after NFC), as the plan matches them.
 */
function renameRules(
  audiences: unknown[],
  renamed: number[],
  ignored: Array<{ pattern: string; matches: (name: string) => boolean }>,
  lineOf: LineOf,
): Finding[] {
  const findings: Finding[] = [];
  const declared = new Map<string, number>();
  for (let index = 0; index < audiences.length; index += 1) {
    const name = nameOf(audiences[index]);
    if (name !== undefined && !declared.has(name.normalize('NFC'))) declared.set(name.normalize('NFC'), index);
  }
  const given = new Map<string, { index: number; path: Path }>();
  for (const index of renamed) {
    const audience = audiences[index] as Record<string, unknown>;
    const value = audience['renamedFrom'];
    const at: Path = ['audiences', index, 'renamedFrom'];
    const olds: Array<[unknown, Path]> = Array.isArray(value)
      ? value.map((old, position) => [old, [...at, position]])
      : [[value, at]];
    for (const [old, path] of olds) {
      if (typeof old !== 'string' || old === '') continue;
      const look = old.normalize('NFC');
      const owner = declared.get(look);
      const other = given.get(look);
      // A repeat within one entry is harmless, and warned about as any repeat in a list.
      const elsewhere = other !== undefined && other.index !== index ? other.path : undefined;
      const hidden = ignored.find(({ matches }) => matches(old));
      const problem =
        owner === index
          ? {
              message: `${JSON.stringify(old)} is the audience's own name`,
              hint: '`renamedFrom` gives the names the audience had before: remove this one',
            }
          : owner !== undefined
            ? {
                message: `${JSON.stringify(old)} is the name of ${toLabel(['audiences', owner])} (line ${lineOf(['audiences', owner, 'name'])}): an entry cannot be renamed from a name the file declares`,
                hint: 'if the rename is applied, remove `renamedFrom`; for a new audience that takes the old name, apply the rename first, then declare it',
              }
            : elsewhere !== undefined
              ? {
                  message: `${JSON.stringify(old)} is also given by ${toLabel(elsewhere)} (line ${lineOf(elsewhere)})`,
                  hint: 'one audience is renamed to one name: keep the old name in one entry',
                }
              : hidden !== undefined
                ? {
                    message: `${JSON.stringify(old)} matches the ignore pattern ${JSON.stringify(hidden.pattern)}: an ignored audience is never touched, so it cannot be renamed`,
                    hint: `to rename it, narrow the ignore pattern so it leaves ${JSON.stringify(old)} out; otherwise remove it from \`renamedFrom\``,
                  }
                : undefined;
      if (problem) findings.push({ path, target: 'value', ...problem });
      else if (other === undefined) given.set(look, { index, path });
    }
  }
  return findings;
}

function nameOf(audience: unknown): string | undefined {
  const name = isRecord(audience) ? audience['name'] : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** A tracker member holds its retention one way: retentionDays, or the service's trackerTargetingTerms. */
function trackerRetention(audience: Record<string, unknown>, at: Path): Finding[] {
  const members = audience['trackerTargetings'];
  if (!Array.isArray(members)) return [];
  const findings: Finding[] = [];
  for (let index = 0; index < members.length; index += 1) {
    const member: unknown = members[index];
    if (!isRecord(member)) continue;
    const days = 'retentionDays' in member;
    const terms = 'trackerTargetingTerms' in member;
    if (days && terms) {
      findings.push({
        path: [...at, 'trackerTargetings', index, 'trackerTargetingTerms'],
        target: 'key',
        message: 'a tracker member holds its retention one way, not both retentionDays and trackerTargetingTerms',
        hint: 'keep the one the service answers with (`audiences import` writes it)',
      });
    } else if (!days && !terms) {
      findings.push({
        path: [...at, 'trackerTargetings', index],
        target: 'value',
        message: 'missing its retention: retentionDays or trackerTargetingTerms',
        hint: 'e.g. trackerTargetingTerms: [ONE_MONTH], as the service answers, or retentionDays: 30',
      });
    }
  }
  return findings;
}

const SELECTIONS = [
  { typeField: 'ageType', listField: 'ages', what: 'age' },
  { typeField: 'genderType', listField: 'genders', what: 'gender' },
] as const;

/** Rules 1 and 2: ALL sends no list; NOT_ALL needs one. An absent *Type follows from the list. */
function selectionRules(audience: Record<string, unknown>, at: Path): Finding[] {
  const findings: Finding[] = [];
  for (const { typeField, listField, what } of SELECTIONS) {
    const selection = audience[typeField];
    if (selection === 'ALL' && listField in audience) {
      findings.push({
        path: [...at, listField],
        target: 'key',
        message: `not allowed when ${typeField} is ALL`,
        hint: `remove ${listField} to target every ${what}, or remove ${typeField}: ALL (it follows from ${listField})`,
      });
    }
    if (selection === 'NOT_ALL' && !(listField in audience)) {
      findings.push({
        path: [...at, typeField],
        target: 'value',
        message: `NOT_ALL needs ${listField}`,
        hint:
          listField === 'ages'
            ? 'list the age bands, e.g. ages: [20, 25], or write ageType: ALL'
            : 'list the genders, e.g. genders: [F], or write genderType: ALL',
      });
    }
  }
  return findings;
}

/** Rules 4 and 5: ALL sends no region; AREA needs at least one (an empty list names none). */
function locationRules(audience: Record<string, unknown>, at: Path): Finding[] {
  const locationType = audience['locationType'];
  const present = REGION_FIELDS.filter((field) => field in audience);
  const listed = REGION_FIELDS.filter(
    (field) => Array.isArray(audience[field]) && (audience[field] as unknown[]).length > 0,
  );
  if (locationType === 'ALL') {
    return present.map((field) => ({
      path: [...at, field],
      target: 'key' as const,
      message: 'not allowed when locationType is ALL',
      hint: 'remove it to target everywhere, or remove locationType: ALL (it follows from the region lists)',
    }));
  }
  if (locationType === 'AREA' && listed.length === 0) {
    return [
      {
        path: [...at, 'locationType'],
        target: 'value',
        message: 'AREA needs locations, depth2Locations or depth3Locations',
        hint: 'list the regions, e.g. locations: [I] for Seoul, or write locationType: ALL',
      },
    ];
  }
  return [];
}

/** Rule 8: the per-type table of criteria. */
const ONLY_FOR: ReadonlyArray<{ field: string; only: 'DISPLAY' | 'MESSAGE' }> = [
  { field: 'customerFileTargetings', only: 'DISPLAY' },
  { field: 'trackerTargetings', only: 'DISPLAY' },
  { field: 'talkChannelGroupTargetings', only: 'MESSAGE' },
];

function typeRules(audience: Record<string, unknown>, at: Path): Finding[] {
  const type = audience['type'];
  if (type !== 'DISPLAY' && type !== 'MESSAGE') return [];
  return ONLY_FOR.filter(({ field, only }) => only !== type && field in audience).map(({ field, only }) => ({
    path: [...at, field],
    target: 'key' as const,
    message: `not allowed for a ${type} audience`,
    hint: `${field} is for ${only} audiences only`,
  }));
}

/** The sets of an audience, each with the key that tells two of its values apart. */
const SETS: ReadonlyArray<readonly [string, (value: unknown) => string | undefined]> = [
  ['ages', (value) => (typeof value === 'number' || typeof value === 'string' ? String(value) : undefined)],
  ['genders', text],
  ['ufoInterests', text],
  ['ufoBusinessTypes', text],
  ['adGroups', (value) => (typeof value === 'number' || typeof value === 'string' ? String(value) : undefined)],
  ['renamedFrom', text],
  ...REGION_FIELDS.map(
    (field) => [field, (value: unknown) => (isRecord(value) ? text(value['value']) : text(value))] as const,
  ),
  ...TARGETING_FIELDS.map(
    (field) =>
      [field, (value: unknown) => (isRecord(value) ? stableStringify(value as JsonValue) : undefined)] as const,
  ),
];

/** A set lists each value once; a repeat is harmless (the service keeps one) but likely a slip. */
function repeatedMembers(audience: Record<string, unknown>, at: Path): Finding[] {
  const findings: Finding[] = [];
  for (let set = 0; set < SETS.length; set += 1) {
    const [field, keyOf] = SETS[set] as (typeof SETS)[number];
    const list = audience[field];
    if (!Array.isArray(list) || list.length < 2) continue;
    const seen = new Map<string, number>();
    for (let index = 0; index < list.length; index += 1) {
      const key = keyOf(list[index]);
      if (key === undefined) continue;
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, index);
        continue;
      }
      findings.push({
        path: [...at, field, index],
        target: 'value',
        message: `repeats ${toLabel([field, first])}`,
        hint: 'a set holds each value once: remove the repeat',
      });
    }
  }
  return findings;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
