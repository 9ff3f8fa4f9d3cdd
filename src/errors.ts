/**
 * The one error shape people see. Every error has a stable code, a one-line summary, an
 * optional detail and a hint, and says whose problem it is: the user's input, the remote
 * service, or a bug of ours.
 */
import type { ErrorCode, ErrorSource, SourceOf } from './error-codes.js';

export type { ErrorCode, ErrorSource } from './error-codes.js';

/**
 * An error's code and whose problem it is: a pair src/error-codes.ts lists (where docs/errors.md
 * comes from), so that an unlisted code, or a source the list does not give it, does not compile.
 */
export type CodeAndSource = { [C in ErrorCode]: { code: C; source: SourceOf<C> } }[ErrorCode];

export type AppErrorInit = CodeAndSource & { summary: string; detail?: string; hint?: string; cause?: unknown };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly summary: string;
  readonly detail: string | undefined;
  readonly hint: string | undefined;
  readonly source: ErrorSource;

  constructor(init: AppErrorInit) {
    super(init.summary, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'AppError';
    this.code = init.code;
    this.summary = init.summary;
    this.detail = init.detail;
    this.hint = init.hint;
    this.source = init.source;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** The same error (code, source, summary, hint) with another detail: what else is known where it was caught. */
export function withDetail(error: AppError, detail: string): AppError {
  // Its code and source were checked as a pair when it was made.
  const pair = { code: error.code, source: error.source } as CodeAndSource;
  return new AppError({
    ...pair,
    summary: error.summary,
    detail,
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    cause: error,
  });
}

/** The code of a request that was never sent because the command was interrupted before its turn. */
export const NOT_STARTED = 'NOT_STARTED' satisfies ErrorCode;

/** Whether `value` says a request was never sent (see NOT_STARTED): nothing happened, nothing is unknown. */
export function isNotStarted(value: unknown): boolean {
  return isAppError(value) && value.code === NOT_STARTED;
}

/**
 * The code of a change whose request may have acted but whose answer was lost, when looking
 * could not settle it either (the list that would tell failed too): neither done nor refused.
 */
export const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN' satisfies ErrorCode;

/** Whether `value` says a change's outcome is unknown (see OUTCOME_UNKNOWN). */
export function isOutcomeUnknown(value: unknown): boolean {
  return isAppError(value) && value.code === OUTCOME_UNKNOWN;
}

/** The exit code of a command stopped by an interrupt (SIGINT or SIGTERM), as shells report Ctrl-C (128 + 2). */
export const INTERRUPTED_EXIT_CODE = 130;
