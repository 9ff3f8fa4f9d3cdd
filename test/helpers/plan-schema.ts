import { readFile } from 'node:fs/promises';
import { Ajv, type ValidateFunction } from 'ajv';

/** An ajv validator for schemas/plan.schema.json. */
export async function planSchemaValidator(): Promise<ValidateFunction> {
  const schema = JSON.parse(
    await readFile(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'),
  ) as object;
  const ajv = new Ajv({ allErrors: true, strict: true });
  // The TypeScript type a schema stands for (scripts/generate.mjs): an annotation.
  ajv.addKeyword({ keyword: 'tsType', schemaType: 'string' });
  return ajv.compile(schema);
}
