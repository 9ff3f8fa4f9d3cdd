// An ESLint rule that fails on any import cycle between the project's own modules, type-only
// imports included: eslint-plugin-import's and eslint-plugin-import-x's no-cycle skip every
// `import type`, and a cycle of types still ties two layers into one.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Each module's relative imports, resolved to files, by path; kept while the file is unchanged. */
const graph = new Map();

/** The file a relative specifier names: `./x.js` is `./x.ts` in the sources, else itself when it exists. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const target = resolve(dirname(from), specifier);
  const candidates = [target.replace(/\.(m?)js$/, '.$1ts'), target, `${target}.ts`, resolve(target, 'index.ts')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** The modules `file` imports (statically, dynamically or for types only), as read from disk. */
function importsOf(file) {
  const mtime = statSync(file).mtimeMs;
  const known = graph.get(file);
  if (known?.mtime === mtime) return known.imports;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const imports = [...new Set(importedFiles.map((entry) => resolveSpecifier(file, entry.fileName)).filter(Boolean))];
  graph.set(file, { mtime, imports });
  return imports;
}

/**
 * The modules from which `file` is reached again, each with the next step of its shortest way
 * back: one walk over what `file` imports, directly or not, then back along those imports.
 */
function waysBack(file) {
  const importers = new Map();
  const seen = new Set([file]);
  const queue = [file];
  for (let index = 0; index < queue.length; index += 1) {
    for (const next of importsOf(queue[index])) {
      if (!importers.has(next)) importers.set(next, []);
      importers.get(next).push(queue[index]);
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  const nextStep = new Map();
  const back = [file];
  for (let index = 0; index < back.length; index += 1) {
    for (const importer of importers.get(back[index]) ?? []) {
      if (nextStep.has(importer)) continue;
      nextStep.set(importer, back[index]);
      back.push(importer);
    }
  }
  return nextStep;
}

export default {
  meta: {
    type: 'problem',
    docs: {
      description: 'Forbid an import (type-only ones included) whose module imports this one back, directly or not.',
    },
    messages: {
      cycle:
        'Import cycle: {{cycle}}. Move what both need into the leaf module it describes, or a types module both import.',
    },
    schema: [],
  },
  create(context) {
    const file = context.physicalFilename;
    if (!existsSync(file)) return {};
    let ways;
    const check = (node) => {
      if (node.source?.type !== 'Literal' || typeof node.source.value !== 'string') return;
      const target = resolveSpecifier(file, node.source.value);
      if (target === undefined || target === file) return;
      ways ??= waysBack(file);
      if (!ways.has(target)) return;
      const path = [file, target];
      while (path[path.length - 1] !== file) path.push(ways.get(path[path.length - 1]));
      const cycle = path.map((entry) => relative(context.cwd, entry)).join(' → ');
      context.report({ node: node.source, messageId: 'cycle', data: { cycle } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};
