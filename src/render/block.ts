/**
 * The display rows of a plan, built once: text and Markdown are two views of these rows,
 * so the two outputs cannot drift apart.
 */
export type Symbol = '+' | '~' | '-';

export interface Block {
  symbol: Symbol;
  title: string;
  /** The fields the change writes, for the Markdown table (the text shows each in the block). */
  fields: string[];
  /** What a reviewer must not miss, derived from the change (see reviewChange). */
  marks: Mark[];
  lines: Line[];
  /** The file the change comes from, when the account is declared in several (see Change.file). */
  file?: string;
}

/**
 * `live`: the audience serves a LIVE ad group; `risk`: an edit to look at twice; `effect`: what an update does to a
 * criterion.
 */
export interface Mark {
  kind: 'live' | 'risk' | 'effect';
  text: string;
}

/**
 * A line under a block: a field with its value (`removed` when the field goes with its
 * audience), or one member of a set added, removed or kept.
 */
export type Line =
  | { kind: 'field'; label: string; text: string; removed?: true }
  | { kind: 'added' | 'removed' | 'kept'; label: string; text: string };
