/**
 * Characters that would act instead of being shown: C0 and C1 controls (escape and OSC
 * sequences, BEL, CR, LF, tab), DEL, and the bidirectional controls that make a terminal or
 * a browser show text in another order (U+202E and its kin).
 */
// eslint-disable-next-line no-control-regex -- matching the control characters is the point
const ACTING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A string from outside the tool (a name from the file or the account, a service's message,
 * a business's details) as it is printed: each acting character written out (`\r`, `\n`,
 * `\u001b`, `\u202e`), so that no value can move the cursor, paint a forged line, ring the
 * bell, close a Markdown block or read backwards. Applied by the renderers to every value
 * they print, never to their own layout.
 */
export function visible(text: string): string {
  return text.replace(ACTING, (char) => NAMED[char] ?? `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
