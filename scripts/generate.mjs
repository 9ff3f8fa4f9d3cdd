#!/usr/bin/env node
// Generates code from the JSON Schemas (the source of truth): TypeScript types with
// json-schema-to-typescript, and validators compiled ahead of time with ajv's standalone
// code, so that no run of the command line pays for compiling a schema.
//
//   node scripts/generate.mjs            write every output file
//   node scripts/generate.mjs --check    write nothing; exit 1 naming each stale output
//   --root DIR                           project root (default: this script's parent)
//
// The output is formatted here, not by prettier, so it depends only on the schemas and the
// locked json-schema-to-typescript and ajv: a clean clone regenerates byte for byte.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { compile } from 'json-schema-to-typescript';

/**
 * What to generate: the schema files (or folders, meaning every `*.schema.json` in them, in
 * name order) of one output file. An entry whose schemas do not exist yet is skipped.
 * - `types`: TypeScript types. A schema's `tsType` names a type the output imports (with
 *   `imports`, a line of TypeScript) instead of one it declares: the plan's audience
 *   definitions are the model's own type. With `typeMap`, the output also declares an interface of that
 *   name mapping each schema title to its type, so callers can pick a type by the same name
 *   they use to pick a schema. `options` overrides the json-schema-to-typescript options below.
 * - `validators`: one validator per schema title, exported under that title; with `titles`,
 *   one for each title listed instead, of a schema or of a titled definition (a title that no
 *   schema has stops the generation). `ajv` holds the options it is compiled with (beside the
 *   strict ones below).
 */
export const entries = [
  { kind: 'types', schemas: ['schemas/api/'], out: 'src/api/generated/wire.ts', typeMap: 'WireTypes' },
  { kind: 'types', schemas: ['schemas/audiences.schema.json'], out: 'src/config/generated/audiences.ts' },
  {
    kind: 'types',
    schemas: ['schemas/plan.schema.json'],
    out: 'src/plan/generated/plan.ts',
    imports: "import type * as Model from '../../model/index.js';",
    options: { unreachableDefinitions: false },
  },
  // Only the answers the client reads: the command loads no validator it never calls (the
  // request bodies' schemas are checked by the tests, compiled as here by compileSchemas).
  {
    kind: 'validators',
    schemas: ['schemas/api/'],
    out: 'src/api/generated/wire-validators.ts',
    titles: [
      'AudienceListResponse',
      'AudienceDetail',
      'AudienceWriteResponse',
      'BatchDeleteResult',
      'AudienceAdGroupListResponse',
      'Company',
      'ImageGenerationResponse',
    ],
    ajv: { inlineRefs: false },
  },
  // verbose: the messages and hints of `validate` read the failing value and its schema.
  {
    kind: 'validators',
    schemas: ['schemas/audiences.schema.json'],
    out: 'src/config/generated/audiences-validator.ts',
    ajv: { verbose: true },
  },
  {
    kind: 'validators',
    schemas: ['schemas/plan.schema.json'],
    out: 'src/operations/generated/plan-validator.ts',
    ajv: {},
  },
];

const BANNER = '// Generated from {source} by npm run generate. Do not edit.\n';

const OPTIONS = {
  format: false,
  bannerComment: '',
  // Answers tolerate extra fields at run time (ajv), but the types stay closed so that a
  // misspelt field is a compile error rather than an `unknown`.
  additionalProperties: false,
  unreachableDefinitions: true,
  strictIndexSignatures: true,
  unknownAny: true,
  // A minItems of 1 would become a non-empty tuple type, which every caller building an
  // array would have to assert; the schema still checks it at run time.
  ignoreMinAndMaxItems: true,
};

/** The keywords that describe a value without constraining it. */
const ANNOTATIONS = new Set([
  '$comment',
  'default',
  'deprecated',
  'description',
  'examples',
  'readOnly',
  'title',
  'writeOnly',
]);
/** Where a schema holds subschemas: by name, in a list, or one (or, for `items`, a list). */
const SUBSCHEMA_MAPS = ['$defs', 'definitions', 'patternProperties', 'properties'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SUBSCHEMAS = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
];

/**
 * The schema with every subschema that only annotates (a description alone: "any value is
 * read") typed `unknown`. json-schema-to-typescript would type it as an object with an index
 * signature, and the validators' type guards would then promise an object where a number or
 * null may come.
 */
function withAnyValuesUnknown(schema) {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const keys = Object.keys(schema);
  if (keys.length > 0 && keys.every((key) => ANNOTATIONS.has(key))) return { ...schema, tsType: 'unknown' };
  const out = { ...schema };
  for (const key of SUBSCHEMA_MAPS) {
    if (out[key] !== undefined)
      out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, sub]) => [name, withAnyValuesUnknown(sub)]));
  }
  for (const key of [...SUBSCHEMA_LISTS, ...SUBSCHEMAS]) {
    if (out[key] === undefined) continue;
    out[key] = Array.isArray(out[key]) ? out[key].map(withAnyValuesUnknown) : withAnyValuesUnknown(out[key]);
  }
  return out;
}

function schemaFiles(root, entry) {
  const files = [];
  for (const item of entry.schemas) {
    const path = join(root, item);
    if (item.endsWith('/')) {
      if (!existsSync(path)) return undefined;
      const names = readdirSync(path)
        .filter((name) => name.endsWith('.schema.json'))
        .sort();
      if (names.length === 0) return undefined;
      files.push(...names.map((name) => join(path, name)));
    } else {
      if (!existsSync(path)) return undefined;
      files.push(path);
    }
  }
  return files;
}

/** Indents the unformatted output of json-schema-to-typescript by brace depth. */
function indent(code) {
  let depth = 0;
  const lines = [];
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const isComment = line.startsWith('/*') || line.startsWith('*');
    if (!isComment && /^[}\])]/.test(line)) depth = Math.max(0, depth - 1);
    const pad = '  '.repeat(depth);
    lines.push(line.startsWith('*') ? `${pad} ${line}` : `${pad}${line}`);
    if (!isComment && /[{[(]$/.test(line)) depth += 1;
    if (!isComment && /^export /.test(line) && depth === 0) lines.push('');
    if (!isComment && /^[}\])]/.test(line) && depth === 0) lines.push('');
  }
  return (
    lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd() + '\n'
  );
}

function titlesOf(schema) {
  const titles = [];
  if (typeof schema.title === 'string') titles.push(schema.title);
  for (const definition of Object.values(schema.definitions ?? schema.$defs ?? {})) {
    if (typeof definition.title === 'string') titles.push(definition.title);
  }
  return titles;
}

/**
 * The ajv options every validator is compiled with: all errors, strict about the schemas
 * themselves, and silent (a validator must never write to the console). `errorMessage` is
 * the editors' message for a rule (yaml-language-server reads it), `tsType` the type a
 * schema stands for in TypeScript: annotations here.
 */
const AJV_OPTIONS = { allErrors: true, strict: true, strictTypes: true, strictRequired: false, logger: false };

/**
 * How the validators of `entry` are typed: as type guards when a `types` entry with a type
 * map covers the same schemas (each validator then narrows to the type of its title, named
 * through that map), otherwise as plain predicates. `module` is the types file as imported
 * from the validators file.
 */
function guardTypesOf(entry) {
  const types = entries.find(
    (other) =>
      other.kind === 'types' && other.typeMap !== undefined && other.schemas.join('\n') === entry.schemas.join('\n'),
  );
  if (types === undefined) return undefined;
  const path = relative(dirname(entry.out), types.out).split('\\').join('/').replace(/\.ts$/, '.js');
  return { module: path.startsWith('.') ? path : `./${path}`, map: types.typeMap };
}

/** The declarations heading a validators file: the validator type, a type guard when `guard` is given. */
function validatorHeader(guard) {
  const [name, result, doc] =
    guard === undefined
      ? ['CompiledValidator', 'boolean', 'True when `data` matches the schema; otherwise `errors` holds why.']
      : [
          'CompiledValidator<T>',
          'data is T',
          'True when `data` matches the schema of `T`, which makes it a `T`; otherwise `errors` holds why.',
        ];
  return [
    "import type { ErrorObject } from 'ajv';",
    ...(guard === undefined ? [] : [`import type { ${guard.map} } from '${guard.module}';`]),
    'const require = createRequire(import.meta.url);',
    `/** ${doc} */`,
    `export interface ${name} {`,
    `  (data: unknown): ${result};`,
    '  errors?: ErrorObject[] | null;',
    '}',
  ];
}

/**
 * An ajv holding the schemas of `entry` as its validators are compiled (`code` adds ajv's code
 * options), and where each title is: `refs`, title to schema reference, for every schema
 * title and titled definition; `roots`, the titles of the schemas themselves. The tests
 * compile the schemas the command has no validator for through it.
 */
export function compileSchemas(root, entry, code = {}) {
  const files = schemaFiles(root, entry) ?? [];
  const ajv = new Ajv({ ...AJV_OPTIONS, ...entry.ajv, code });
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: ['string', 'object'] });
  ajv.addKeyword({ keyword: 'tsType', schemaType: 'string' });
  const refs = {};
  const roots = [];
  for (const file of files) {
    const schema = JSON.parse(readFileSync(file, 'utf8'));
    const name = relative(root, file).split('\\').join('/');
    if (typeof schema.$id !== 'string') throw new Error(`${name}: a schema needs an $id to compile validators from it`);
    ajv.addSchema(schema);
    if (typeof schema.title === 'string') {
      refs[schema.title] = schema.$id;
      roots.push(schema.title);
    }
    for (const [key, definition] of Object.entries(schema.definitions ?? {})) {
      if (typeof definition.title === 'string') refs[definition.title] = `${schema.$id}#/definitions/${key}`;
    }
  }
  return { ajv, refs, roots };
}

/** The titles `entry` has validators for, each with its schema reference. */
function validatedRefs(entry, refs, roots) {
  if (entry.titles === undefined) return Object.fromEntries(roots.map((title) => [title, refs[title]]));
  const missing = entry.titles.filter((title) => refs[title] === undefined);
  if (missing.length > 0) throw new Error(`${entry.out}: no schema has the title ${missing.join(', ')}`);
  return Object.fromEntries(entry.titles.map((title) => [title, refs[title]]));
}

function renderValidators(root, entry) {
  const { ajv, refs: all, roots } = compileSchemas(root, entry, { source: true, esm: true });
  const refs = validatedRefs(entry, all, roots);
  // The standalone code is an ES module except for the few ajv runtime helpers it requires.
  // It is not type-checked (@ts-nocheck), but its exports are typed for their callers.
  const guard = guardTypesOf(entry);
  const typeOf = (title) => (guard === undefined ? 'CompiledValidator' : `CompiledValidator<${guard.map}['${title}']>`);
  const code = appendErrorsInPlace(standaloneCode(ajv, refs))
    .replace(/^"use strict";/, '')
    .replace(
      /export const (\w+) = (validate\d+);/g,
      (_match, title, validate) => `export const ${title}: ${typeOf(title)} = ${validate};`,
    );
  const sources = entry.schemas.map((item) => item.replace(/\/$/, '')).join(', ');
  return (
    [
      BANNER.replace('{source}', sources).trimEnd(),
      '// @ts-nocheck',
      "import { createRequire } from 'node:module';",
      ...validatorHeader(guard),
      code,
    ].join('\n') + '\n'
  );
}

/**
 * ajv's standalone code adds the errors of a referenced schema (an audience, an image) with
 * `vErrors = vErrors === null ? validateN.errors : vErrors.concat(validateN.errors)`, which
 * copies every error found so far for each item that fails: quadratic in the errors. On 50,000
 * audiences each with a bad type the validator took 49 s of CPU (0.12 s appended in place),
 * and `validate` runs it twice. They are appended in place instead. Taking the callee's array is safe: ajv reads it
 * once, right after the call, and the callee's next call starts a new one. A shape of ajv's code that no longer matches
 * stops the generation rather than leaving the copy in place.
 */
function appendErrorsInPlace(code) {
  const appended = code.replace(
    /vErrors = vErrors === null \? (\w+)\.errors : vErrors\.concat\(\1\.errors\);/g,
    (_match, validate) =>
      `{ if (vErrors === null) vErrors = ${validate}.errors; else for (const error of ${validate}.errors) vErrors.push(error); }`,
  );
  if (appended.includes('vErrors.concat('))
    throw new Error('ajv appends errors in a new way: update appendErrorsInPlace in scripts/generate.mjs');
  return appended;
}

async function render(root, entry, files) {
  if (entry.kind === 'validators') return renderValidators(root, entry);
  const parts = [];
  const declared = new Map();
  const mapped = [];
  for (const file of files) {
    const schema = JSON.parse(readFileSync(file, 'utf8'));
    const name = relative(root, file).split('\\').join('/');
    const code = await compile(withAnyValuesUnknown(schema), schema.title ?? name, {
      ...OPTIONS,
      ...entry.options,
      cwd: dirname(file),
    });
    for (const [, declaration] of code.matchAll(/^export (?:interface|type) (\w+)/gm)) {
      const previous = declared.get(declaration);
      if (previous !== undefined)
        throw new Error(`${entry.out}: type ${declaration} is declared by both ${previous} and ${name}`);
      declared.set(declaration, name);
    }
    for (const title of titlesOf(schema)) {
      if (!declared.has(title))
        throw new Error(`${name}: title "${title}" is not a type name (use PascalCase letters and digits)`);
      mapped.push(title);
    }
    parts.push(`// ${name}\n\n${indent(code)}`);
  }
  const sources = entry.schemas.map((item) => item.replace(/\/$/, '')).join(', ');
  let text =
    BANNER.replace('{source}', sources) + (entry.imports ? `\n${entry.imports}\n` : '') + '\n' + parts.join('\n');
  if (entry.typeMap !== undefined) {
    const lines = mapped.map((title) => `  ${title}: ${title};`);
    text += `\n/** Every titled schema, by title. */\nexport interface ${entry.typeMap} {\n${lines.join('\n')}\n}\n`;
  }
  return text;
}

/** Renders every entry whose schemas exist: `[{ out, text }]`, `out` relative to root. */
export async function generate(root) {
  const results = [];
  for (const entry of entries) {
    const files = schemaFiles(root, entry);
    if (files === undefined) continue;
    results.push({ out: entry.out, text: await render(root, entry, files) });
  }
  return results;
}

async function main(argv) {
  const check = argv.includes('--check');
  const rootIndex = argv.indexOf('--root');
  const root = rootIndex >= 0 ? resolve(argv[rootIndex + 1] ?? '.') : fileURLToPath(new URL('..', import.meta.url));
  const stale = [];
  for (const { out, text } of await generate(root)) {
    const path = join(root, out);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (current === text) continue;
    if (check) {
      stale.push(out);
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      console.log(`wrote ${out}`);
    }
  }
  if (stale.length > 0) {
    console.error(`Out of date (run npm run generate): ${stale.join(', ')}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
