/**
 * Validation of the answers the client reads against schemas/api/*.schema.json, the same
 * files the types in ./generated/wire.ts come from. A schema is picked by its title, which is
 * also its type's name, so `validateWire('AudienceDetail', body)` narrows to `AudienceDetail`.
 * The validators are compiled ahead of time (./generated/wire-validators.ts, by npm run
 * generate), and only for the answers (the `titles` in scripts/generate.mjs): a run of the
 * command line never compiles a schema, nor loads a validator it never calls.
 */
import type { ErrorObject } from 'ajv';
import type { WireTypes } from './generated/wire.js';
import * as validators from './generated/wire-validators.js';
import type { CompiledValidator } from './generated/wire-validators.js';

/** The titles of the answers that have a validator: what a request's `response` may name. */
export type WireTypeName = keyof typeof validators & keyof WireTypes;

export type WireValidation<T> = { ok: true; value: T } | { ok: false; issues: string[] };

/** Every validator by its schema's title, each a type guard of the type of that title. */
const byTitle: { readonly [K in WireTypeName]: CompiledValidator<WireTypes[K]> } = validators;

/** Enough issues to locate a problem without flooding the message. */
const MAX_ISSUES = 5;

/** `/ages/0/value` as people name a field: `ages[0].value`. */
function fieldName(instancePath: string): string {
  if (instancePath === '') return 'body';
  return instancePath
    .slice(1)
    .split('/')
    .map((part, index) =>
      /^\d+$/.test(part) ? `[${part}]` : `${index === 0 ? '' : '.'}${part.replace(/~1/g, '/').replace(/~0/g, '~')}`,
    )
    .join('');
}

/**
 * One line per problem, the types a field may have said once ("must be integer or string"):
 * an anyOf's own summary adds nothing to them.
 */
function formatIssues(errors: ErrorObject[]): string[] {
  const lines: string[] = [];
  const typesAt = new Map<string, { line: number; types: string[] }>();
  for (const error of errors) {
    const where = fieldName(error.instancePath);
    const types = typesAt.get(where);
    if (error.keyword === 'type') {
      const entry = types ?? { line: lines.length, types: [] };
      entry.types.push(String(error.params['type']));
      typesAt.set(where, entry);
      lines[entry.line] = `${where} must be ${entry.types.join(' or ')}`;
    } else if (!(error.keyword === 'anyOf' && types)) {
      const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params['additionalProperty'])})` : '';
      lines.push(`${where} ${error.message ?? 'is invalid'}${extra}`);
    }
  }
  return lines;
}

export function validateWire<K extends WireTypeName>(name: K, value: unknown): WireValidation<WireTypes[K]> {
  return checkWire(byTitle[name], value);
}

/**
 * `value` checked by `validate`, its problems said as validateWire says them (the tests check request bodies with it).
 */
export function checkWire<T>(validate: CompiledValidator<T>, value: unknown): WireValidation<T> {
  if (validate(value)) return { ok: true, value };
  const issues = formatIssues(validate.errors ?? []).slice(0, MAX_ISSUES);
  return { ok: false, issues: issues.length > 0 ? issues : ['body is invalid'] };
}

/** Every schema title known to validateWire (for tests and diagnostics). */
export function wireTypeNames(): string[] {
  return Object.keys(byTitle).sort();
}
