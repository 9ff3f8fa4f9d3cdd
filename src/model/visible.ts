/**
 * Characters that would act instead of being shown: C0 and C1 controls (escape and OSC
 * sequences, BEL, CR, LF, tab), DEL, the bidirectional controls that make a terminal or a
 * browser show text in another order (U+202E and its kin), and the line and paragraph
 * separators (U+2028, U+2029: line breaks to an editor or a browser). Also the characters
 * that show nothing, so two names that print alike are told apart: the soft hyphen, the
 * zero-width space, the word joiner, the byte-order mark and the Mongolian vowel separator
 * (the joiners U+200C and U+200D stay: scripts and emoji need them); and a surrogate without
 * its pair, which would print as U+FFFD whatever it was.
 */
const ACTING =
  // eslint-disable-next-line no-control-regex -- matching the control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff\ud800-\udfff]/gu;
/**
 * ACTING without its global flag, to ask whether a text holds one at all: most hold none, and a test leaves them as they
 * are for less than a replace that finds nothing (the seam of a performance choice: bench/NOTES.md).
 */
const ACTS = new RegExp(ACTING.source, 'u');
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A string from outside the tool (a name from the file or the account, a service's message,
 * a business's details) as it is printed: each acting character written out (`\r`, `\n`,
 * `\u001b`, `\u202e`), so that no value can move the cursor, paint a forged line, ring the
 * bell, close a Markdown block or read backwards. Applied by the renderers to every value
 * they print, never to their own layout.
 */
export function visible(text: string): string {
  if (!ACTS.test(text)) return text;
  return text.replace(
    ACTING,
    (char) => NAMED[char] ?? `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * A name (of an audience, an image, an ad group, a campaign, a business) as the tool's lines
 * quote it: in double quotes, each quote and backslash in it escaped, so that no name can
 * close its quotes and read as the line's own words (`x" (id 1) kept, and "y`).
 */
export function quoted(name: string): string {
  return `"${name.replace(/["\\]/g, '\\$&')}"`;
}
