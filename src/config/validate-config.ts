import { createHash } from 'node:crypto';
import { LineCounter, isAlias, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import { toDesiredState } from './desired-state.js';
import type { AudiencesFile } from './generated/audiences.js';
import { sortIssues, type ConfigIssue, type ConfigResult, type Finding } from './issues.js';
import { checkBusinessRules } from './business-rules.js';
import { checkImageRules } from './image-rules.js';
import { createLocator, toLabel, toPointer, type Path, type Position } from './positions.js';
import { parsePlain } from './plain-yaml.js';
import { checkRules } from './rules.js';
import { syntaxProblem, yamlMessage } from './syntax-hints.js';
import { audiencesSchemaValidator } from './schema.js';
import { writesMoreValuesThan } from './value-bound.js';
import { notADesiredState, writtenFileKind } from './written-files.js';
import { findingsFromSchemaErrors } from './schema-issues.js';

/** Limits that keep hostile input from exhausting memory or time; real files are far below them. */
export const LIMITS = {
  /**
   * Bytes of one file, checked before it is read: twice the file `import` writes for the
   * most audiences the values limit lets through, and small enough that the slowest file it
   * allows (JSON-style YAML read with positions) still reads in seconds (bench/NOTES.md).
   */
  bytes: 8 * 1024 * 1024,
  /** Times an anchor's content may be reused through aliases (yaml's maxAliasCount). */
  aliases: 1000,
  /** Values in the loaded document, counting each alias expansion. */
  values: 200_000,
  /** Nesting of maps and lists. */
  depth: 64,
} as const;

/**
 * The text of one file → the desired state of its ad account, or every problem of the file
 * at once, each at the line and column of the offending key or value. Pure: no file system,
 * network or clock (the schema is a constant asset of the package).
 */
export function validateConfig(text: string, file: string): ConfigResult {
  const whole = (message: string, hint?: string): ConfigResult => ({
    ok: false,
    issues: [{ file, line: 0, column: 0, pointer: '', message, ...(hint === undefined ? {} : { hint }) }],
  });
  const size = Buffer.byteLength(text, 'utf8');
  if (size > LIMITS.bytes)
    return whole(`the file is too large (${megabytes(size)}; the limit is ${megabytes(LIMITS.bytes)})`);
  const accepted = (value: unknown, warnings: ConfigIssue[]): ConfigResult => {
    const hash = createHash('sha256').update(text, 'utf8').digest('hex');
    return {
      ok: true,
      value: toDesiredState(value as AudiencesFile, { files: [file], hash }),
      warnings: sortIssues(warnings),
    };
  };

  // A valid plain file needs no positions: read fast (see plain-yaml.ts). Any finding sends
  // the file down the road below, which says where each one is, so no line is needed here.
  const plain = parsePlain(text);
  if (plain !== undefined) {
    // The value parseDocument would load, so too many values are said now, at the first line
    // of the map as below, without reading the file again with positions (the slowest way).
    const tooBig = sizeProblem(plain.value);
    if (tooBig !== undefined)
      return { ok: false, issues: [{ file, line: firstContentLine(text), column: 1, pointer: '', ...tooBig }] };
    const findings = check(plain.value, () => 0);
    if (findings.errors.length === 0 && findings.warnings.length === 0) return accepted(plain.value, []);
  } else if (writesMoreValuesThan(text, LIMITS.values)) {
    // Before parseDocument reads it, at some µs and hundreds of bytes a value, a file with
    // certainly too many values is refused (see value-bound.ts).
    return whole(TOO_MANY_VALUES.message, TOO_MANY_VALUES.hint);
  }

  const lineCounter = new LineCounter();
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line: Math.max(1, line), column: Math.max(1, col) };
  };
  const issueAt = (offset: number, message: string, hint?: string): ConfigIssue => ({
    file,
    ...at(offset),
    pointer: '',
    message,
    ...(hint === undefined ? {} : { hint }),
  });

  // logLevel 'error': yaml's warnings (a key that is a list, say) become issues here, never
  // lines of their own on stderr.
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    merge: true,
    uniqueKeys: true,
    logLevel: 'error',
  });
  const warnings = doc.warnings.map((warning) => issueAt(warning.pos[0], yamlMessage(warning, text)));
  if (doc.errors.length > 0) return { ok: false, issues: sortIssues(syntaxIssues(doc.errors, text, issueAt)) };
  if (doc.contents === null) {
    return {
      ok: false,
      issues: [
        issueAt(0, 'the file is empty', 'start with adAccountId: and audiences: (see schemas/audiences.schema.json)'),
      ],
    };
  }

  const aliasIssues = unresolvedAliases(doc, issueAt);
  if (aliasIssues.length > 0) return { ok: false, issues: aliasIssues };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: LIMITS.aliases });
  } catch (error) {
    const firstAlias = firstAliasOffset(doc);
    if (error instanceof ReferenceError && firstAlias !== undefined) {
      return {
        ok: false,
        issues: [
          issueAt(
            firstAlias,
            `aliases expand to too much data (more than ${LIMITS.aliases} reuses)`,
            'is this an alias bomb? write the values out',
          ),
        ],
      };
    }
    return {
      ok: false,
      issues: [issueAt(0, `cannot load the YAML: ${error instanceof Error ? error.message : String(error)}`)],
    };
  }
  const tooBig = sizeProblem(value);
  if (tooBig) return { ok: false, issues: [issueAt(doc.contents.range?.[0] ?? 0, tooBig.message, tooBig.hint)] };
  const written = writtenFileKind(value);
  if (written !== undefined) {
    const { message, hint } = notADesiredState(written, file);
    return whole(message, hint);
  }

  const locate = createLocator(doc, lineCounter);
  const toIssue = (finding: Finding): ConfigIssue => {
    const label = toLabel(finding.path);
    return {
      file,
      ...locate(finding.path, finding.target),
      pointer: toPointer(finding.path),
      message: label === '' ? finding.message : `${label}: ${finding.message}`,
      ...(finding.hint === undefined ? {} : { hint: finding.hint }),
    };
  };

  const findings = check(value, (path) => locate(path).line);
  const errors = findings.errors.map(toIssue);
  if (errors.length > 0) return { ok: false, issues: sortIssues(errors) };
  return accepted(value, [...warnings, ...findings.warnings.map(toIssue)]);
}

/** What the schema and the rules find in a loaded file; `lineOf` names lines in messages. */
function check(value: unknown, lineOf: (path: Path) => number): { errors: Finding[]; warnings: Finding[] } {
  const schemaFindings = audiencesSchemaValidator(value)
    ? []
    : findingsFromSchemaErrors(audiencesSchemaValidator.errors ?? []);
  const rules = checkRules(value, lineOf);
  const imageRules = checkImageRules(value, lineOf);
  return {
    errors: [...schemaFindings, ...rules.errors, ...checkBusinessRules(value), ...imageRules.errors],
    warnings: [...rules.warnings, ...imageRules.warnings],
  };
}

function syntaxIssues(
  errors: readonly YAMLError[],
  text: string,
  issueAt: (offset: number, message: string, hint?: string) => ConfigIssue,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  // A deep nesting fails once per level; once is enough to say so.
  let exhausted = false;
  // yaml reads on past an unclosed bracket or quote as best it can: what it finds after it follows from it.
  let readOn = Number.POSITIVE_INFINITY;
  for (const error of errors) {
    if (error.pos[0] >= readOn) continue;
    if (error.code === 'RESOURCE_EXHAUSTION') {
      if (!exhausted)
        issues.push(
          issueAt(
            error.pos[0],
            'the file nests too deeply to read',
            `keep maps and lists under ${LIMITS.depth} levels`,
          ),
        );
      exhausted = true;
      continue;
    }
    const problem = syntaxProblem(error, text);
    issues.push(issueAt(problem.offset, problem.message, problem.hint));
    if (problem.unclosed) readOn = Math.min(readOn, error.pos[0]);
  }
  return issues;
}

function unresolvedAliases(
  doc: Document,
  issueAt: (offset: number, message: string, hint?: string) => ConfigIssue,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  visit(doc, {
    Alias: (_key, alias) => {
      if (alias.resolve(doc) === undefined) {
        issues.push(
          issueAt(
            alias.range?.[0] ?? 0,
            `unknown anchor *${alias.source}`,
            `define &${alias.source} before this alias`,
          ),
        );
      }
    },
  });
  return issues;
}

function firstAliasOffset(doc: Document): number | undefined {
  let offset: number | undefined;
  visit(doc, (_key, node) => {
    if (isAlias(node)) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    }
    return undefined;
  });
  return offset;
}

/** The line of the first key of a file in the plain layout (parsePlain skips comments and blank lines before it). */
function firstContentLine(text: string): number {
  const start = text.search(/^[^\s#]/m);
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < start; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

const TOO_MANY_VALUES = {
  message: `the file holds too many values (more than ${LIMITS.values}, counting each alias expansion)`,
  hint: 'is this the right file? 10,000 audiences hold about 110,000 values',
};

type Problem = { message: string; hint: string };

/**
 * Counts the values, and stops at the first limit passed. Recursive, but never deeper than
 * LIMITS.depth + 1 calls: a deeper value is a problem, not visited. (Each value pushed on a
 * stack of its own, as this once did, was most of the time of checking a valid file.)
 */
function sizeProblem(root: unknown): Problem | undefined {
  let count = 0;
  const visit = (value: unknown, depth: number): Problem | undefined => {
    count += 1;
    if (count > LIMITS.values) return TOO_MANY_VALUES;
    if (depth > LIMITS.depth)
      return {
        message: `the file nests deeper than ${LIMITS.depth} levels`,
        hint: `keep maps and lists under ${LIMITS.depth} levels`,
      };
    if (value === null || typeof value !== 'object') return undefined;
    for (const child of Array.isArray(value) ? (value as unknown[]) : Object.values(value)) {
      const problem = visit(child, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  return visit(root, 1);
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
