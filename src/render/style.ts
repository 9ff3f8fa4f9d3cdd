/**
 * How renderers emphasise text. Renderers never choose colours or look at the terminal
 * themselves: the command injects `ansiStyle` on a colour terminal and `plainStyle` otherwise.
 */
export interface Style {
  add: (text: string) => string;
  remove: (text: string) => string;
  change: (text: string) => string;
  dim: (text: string) => string;
  bold: (text: string) => string;
  warn: (text: string) => string;
  error: (text: string) => string;
}

const identity = (text: string): string => text;

export const plainStyle: Style = {
  add: identity,
  remove: identity,
  change: identity,
  dim: identity,
  bold: identity,
  warn: identity,
  error: identity,
};

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export const ansiStyle: Style = {
  add: sgr(32, 39),
  remove: sgr(31, 39),
  change: sgr(33, 39),
  dim: sgr(2, 22),
  bold: sgr(1, 22),
  warn: sgr(33, 39),
  error: sgr(31, 39),
};
