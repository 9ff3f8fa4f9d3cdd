/**
 * Validation of wire bodies against schemas/api/*.schema.json, the same files the types in
 * ./generated/wire.ts come from. A schema is picked by its title, which is also its type's
 * name, so `validateWire('AudienceDetail', body)` narrows to `AudienceDetail`. The schemas are
 * read and each validator compiled on first use only: commands that never reach the network
 * pay nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import type { WireTypes } from './generated/wire.js';

export type WireTypeName = keyof WireTypes;

export type WireValidation<T> = { ok: true; value: T } | { ok: false; issues: string[] };

interface SchemaFile {
  $id: string;
  title?: string;
  definitions?: Record<string, { title?: string }>;
}

interface Registry {
  ajv: Ajv;
  /** Schema title → the URI ajv knows it by. */
  refs: Map<string, string>;
}

/** Beside src/ in a checkout and beside dist/ in the package (package.json `files`). */
const SCHEMA_DIR = new URL('../../schemas/api/', import.meta.url);

/** Enough issues to locate a problem without flooding the message. */
const MAX_ISSUES = 5;

let registry: Registry | undefined;

function loadRegistry(): Registry {
  // strictTypes catches a sloppy schema at compile time (the tests compile every one);
  // logger false because the transport must never write to the console itself.
  const ajv = new Ajv({ allErrors: true, strictTypes: true, logger: false });
  const refs = new Map<string, string>();
  const names = readdirSync(SCHEMA_DIR).filter((name) => name.endsWith('.schema.json')).sort();
  for (const name of names) {
    const schema = JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), 'utf8')) as SchemaFile;
    ajv.addSchema(schema);
    if (schema.title !== undefined) refs.set(schema.title, schema.$id);
    for (const [key, definition] of Object.entries(schema.definitions ?? {})) {
      if (definition.title !== undefined) refs.set(definition.title, `${schema.$id}#/definitions/${key}`);
    }
  }
  return { ajv, refs };
}

function formatIssue(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'body' : error.instancePath;
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params['additionalProperty'])})` : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

export function validateWire<K extends WireTypeName>(name: K, value: unknown): WireValidation<WireTypes[K]> {
  registry ??= loadRegistry();
  const ref = registry.refs.get(name);
  if (ref === undefined) throw new Error(`no wire schema titled ${name} in schemas/api`);
  const validate = registry.ajv.getSchema(ref);
  if (validate === undefined) throw new Error(`wire schema ${ref} did not compile`);
  if (validate(value)) return { ok: true, value: value as WireTypes[K] };
  const issues = (validate.errors ?? []).slice(0, MAX_ISSUES).map(formatIssue);
  return { ok: false, issues: issues.length > 0 ? issues : ['body is invalid'] };
}

/** Every schema title known to validateWire (for tests and diagnostics). */
export function wireTypeNames(): string[] {
  registry ??= loadRegistry();
  return [...registry.refs.keys()].sort();
}
