import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
const only = process.argv[2] ? process.argv[2].split(',') : null;
const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: true, strictRequired: false, logger: false, inlineRefs: false, code: { source: true, esm: true } });
ajv.addKeyword({ keyword: 'errorMessage', schemaType: ['string', 'object'] });
ajv.addKeyword({ keyword: 'tsType', schemaType: 'string' });
const refs = {};
for (const f of readdirSync('schemas/api').sort()) {
  const schema = JSON.parse(readFileSync('schemas/api/' + f, 'utf8'));
  ajv.addSchema(schema);
  if (schema.title && (!only || only.includes(schema.title))) refs[schema.title] = schema.$id;
  for (const [k, d] of Object.entries(schema.definitions ?? {})) if (d.title && (!only || only.includes(d.title))) refs[d.title] = `${schema.$id}#/definitions/${k}`;
}
const code = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" + standaloneCode(ajv, refs).replace(/^"use strict";/, '');
writeFileSync(process.argv[3], code);
console.log(process.argv[3], code.length);
