import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isRecord } from '../config/rules.js';

/**
 * Where the schema is in a project that installs the tool as a dependency (see the install route of
 * docs/pipelines.md).
 */
const INSTALLED_SCHEMA = join('node_modules', 'audiences', 'schemas', 'audiences.schema.json');

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

/**
 * The `$schema` an imported file names, relative to its folder `outDir`, as it holds for anyone
 * with a clone of the project: the schema in the project's node_modules when a package.json of
 * the project lists the tool as a dependency (`npm ci` puts it there, whichever copy of the tool
 * wrote the file), or `schemaFile` itself when the file is written into the tool's own
 * repository. Anything else (a clone of the tool elsewhere, npx's cache) is a path on this
 * machine alone, so there is none. The project ends at the first folder that holds `.git`.
 */
export async function schemaReference(outDir: string, schemaFile: string): Promise<string | undefined> {
  const toolRoot = dirname(dirname(schemaFile));
  for (let dir = outDir; ; dir = dirname(dir)) {
    const manifest = await packageJson(dir);
    if (manifest !== undefined) {
      if (dir === toolRoot) return portable(relative(outDir, schemaFile));
      if (DEPENDENCY_FIELDS.some((field) => isRecord(manifest[field]) && Object.hasOwn(manifest[field], 'audiences')))
        return portable(relative(outDir, join(dir, INSTALLED_SCHEMA)));
    }
    if ((await exists(join(dir, '.git'))) || dirname(dir) === dir) return undefined;
  }
}

/** A package.json's content, or undefined when there is none or it is not a JSON object (it then lists nothing). */
async function packageJson(dir: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The path as yaml-language-server reads it on any system: forward slashes. */
function portable(path: string): string {
  return path.split(sep).join('/');
}
