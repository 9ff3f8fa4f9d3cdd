import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

/** The schema ships with the package (package.json `files`), beside `dist/` and `src/`. */
export const AUDIENCES_SCHEMA_URL = new URL('../../schemas/audiences.schema.json', import.meta.url);

let compiled: ValidateFunction | undefined;

/**
 * The compiled schema of audiences.yaml, compiled on first use and kept: compiling is most of
 * the cost of a `validate` run. `verbose` keeps the failing value and schema on each error,
 * which the messages and hints need; `errorMessage` is the editors' message for a rule
 * (yaml-language-server reads it), an annotation here.
 */
export function audiencesSchemaValidator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: true, logger: false });
    ajv.addKeyword({ keyword: 'errorMessage', schemaType: ['string', 'object'] });
    compiled = ajv.compile(JSON.parse(readFileSync(AUDIENCES_SCHEMA_URL, 'utf8')) as object);
  }
  return compiled;
}
