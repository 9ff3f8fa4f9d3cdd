/**
 * The desired-state file: audiences.yaml read with positions, checked against
 * schemas/audiences.schema.json and every rule of the spec that needs no server, and turned
 * into the model's DesiredState with every shorthand expanded. Problems come back all at
 * once, each with file, line, column and JSON pointer; nothing here throws for bad input but
 * a file past the size limit, which is the wrong file rather than one with problems
 * (FILE_TOO_LARGE). `validateConfig` is pure; `readDesiredStates` is the only function that
 * reads files (`desiredStateOfBytes` validates bytes read elsewhere: a file at a git ref).
 */
export { validateConfig, LIMITS } from './validate-config.js';
export { desiredStateOfBytes, locateInFile, readDesiredStates } from './read-config.js';
export { DEFAULT_CONFIG_FILE, namedFiles } from './default-file.js';
export { ConfigError, formatIssue, formatIssues, sortIssues, type ConfigIssue, type ConfigResult } from './issues.js';
export { AUDIENCES_SCHEMA_URL } from './schema.js';
export { toPointer, type Path, type Position } from './positions.js';
export type { AudiencesFile } from './generated/audiences.js';
export { renderDesiredFile } from './write-config.js';
