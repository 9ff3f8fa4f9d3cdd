import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The sources as `npm run build` compiles them, with `edits` made to some files (in memory only). */
function typeCheck(
  edits: Record<string, (text: string) => string>,
  old?: ts.Program,
): { program: ts.Program; problems: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(
    resolve(root, 'tsconfig.build.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (config === undefined) throw new Error('tsconfig.build.json cannot be read');
  const edited = new Map(
    Object.entries(edits).map(([file, edit]) => [resolve(root, file), edit(readFileSync(resolve(root, file), 'utf8'))]),
  );
  const host = ts.createCompilerHost(config.options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const text = edited.get(resolve(name));
    return text === undefined ? read(name, language, ...rest) : ts.createSourceFile(name, text, language);
  };
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: { ...config.options, noEmit: true, rootDir: root },
    host,
    oldProgram: old,
  });
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const where = diagnostic.file ? relative(root, diagnostic.file.fileName) : '';
    // What it names: the shape short of a part, or the registry short of an entry.
    const named =
      /^Type '(\w+)' does not satisfy the constraint 'PerKind'/.exec(message)?.[1] ??
      /but required in type '(\w+)'/.exec(message)?.[1] ??
      message;
    return `${where}: ${named}`;
  });
  return { program, problems };
}

/** `text` with `insert` after `anchor`, which it must hold once. */
function after(anchor: string, insert: string): (text: string) => string {
  return (text) => {
    if (text.split(anchor).length !== 2)
      throw new Error(`the anchor ${JSON.stringify(anchor)} is not in the file once: the test must follow the code`);
    return text.replace(anchor, `${anchor}${insert}`);
  };
}

const newKind = { 'src/model/kinds.ts': after("'image'", ", 'customerFile'") };

/**
 * Every piece a kind without changes needs besides its name, each where CONTRIBUTING.md says (its applier and renderer:
 * null).
 */
const pieces = {
  'src/model/state.ts': after('export interface LiveParts {', '\n  customerFile: { customerFiles?: string[] };'),
  'src/plan/kind.ts': (text: string) =>
    [
      after('export interface ChangeParts {', '\n  customerFile: never;'),
      after('export interface FingerprintParts {', '\n  customerFile: Record<never, never>;'),
      after('export interface HeaderParts {', '\n  customerFile: Record<never, never>;'),
      after('export interface CurrentParts {', '\n  customerFile: Record<never, never>;'),
    ].reduce((edited, edit) => edit(edited), text),
  'src/apply/kind.ts': after('export interface ServiceParts {', '\n  customerFile: Record<never, never>;'),
  'src/plan/kinds/index.ts': (text: string) =>
    after(
      'export const PLAN_KINDS: PlanKinds = {',
      ' customerFile: customerFileKind,',
    )(`import { customerFileKind } from '../../../test/fixtures/kinds/customer-file.js';\n${text}`),
  'src/operations/kinds/index.ts': (text: string) =>
    after(
      'export const OPERATION_KINDS: OperationKinds = {',
      ' customerFile: customerFileSource,',
    )(`import { customerFileSource } from '../../../test/fixtures/kinds/customer-file.js';\n${text}`),
  'src/apply/kinds/index.ts': after('export const APPLY_KINDS: ApplyKinds = {', ' customerFile: null,'),
  'src/render/kinds/index.ts': after('export const RENDER_KINDS: RenderKinds = {', ' customerFile: null,'),
};

describe('a kind added to KINDS', () => {
  let first: ts.Program | undefined;

  it('makes the type check name each piece it lacks, one error each: its parts of the shared shapes and its line in every registry', () => {
    const { program, problems } = typeCheck(newKind);
    first = program;
    expect(problems.sort()).toEqual([
      'src/apply/kind.ts: ServiceParts',
      'src/apply/kinds/index.ts: ApplyKinds',
      'src/model/state.ts: LiveParts',
      'src/operations/kinds/index.ts: OperationKinds',
      'src/plan/kind.ts: ChangeParts',
      'src/plan/kind.ts: CurrentParts',
      'src/plan/kind.ts: FingerprintParts',
      'src/plan/kind.ts: HeaderParts',
      'src/plan/kinds/index.ts: PlanKinds',
      'src/render/kinds/index.ts: RenderKinds',
    ]);
  });

  it('type-checks once it has those pieces: nothing else is needed', () => {
    expect(typeCheck({ ...newKind, ...pieces }, first).problems).toEqual([]);
  });
});
