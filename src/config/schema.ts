import { AudiencesFile, type CompiledValidator } from './generated/audiences-validator.js';

/** The schema ships with the package (package.json `files`), beside `dist/` and `src/`. */
export const AUDIENCES_SCHEMA_URL = new URL('../../schemas/audiences.schema.json', import.meta.url);

/**
 * The validator of audiences.yaml, compiled ahead of time from the schema (by npm run
 * generate) with `verbose`, which keeps the failing value and schema on each error for the
 * messages and hints.
 */
export const audiencesSchemaValidator: CompiledValidator = AudiencesFile;
