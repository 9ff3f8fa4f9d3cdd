import { quoted, type DesiredAudience, type LiveAudienceSummary, type Long } from '../model/index.js';
import type { PlanProblem } from './types.js';

export interface SpellingInput {
  /** Every declared audience of the file. */
  declared: readonly DesiredAudience[];
  /** The live audiences under management (those `ignore` covers are never matched or warned about). */
  live: readonly LiveAudienceSummary[];
  /** The declared audiences matched so far (by pinned id or exact name), and the live ones they are. */
  matchedIds: ReadonlyMap<string, Long>;
  /** The declared audiences no live audience has matched by id or exact name. */
  missing: readonly DesiredAudience[];
  /** Live audiences taken: matched, or named by an identity error. */
  claimed: ReadonlySet<Long>;
  prune: boolean;
}

export interface Spellings {
  /** Declared audiences matched to the one live audience whose name is theirs in another spelling. */
  matched: Array<{ desired: DesiredAudience; live: LiveAudienceSummary }>;
  /** The declared audiences still without a live one. */
  missing: DesiredAudience[];
  warnings: PlanProblem[];
}

/**
 * Names that print alike but differ in bytes (equal after Unicode NFC, as `café` written with
 * `é` or with `e` and a combining accent): identity is the exact name, but a declared audience
 * with no exact match whose look only one live audience shares, and no other name, is that
 * audience (the update gives it the file's spelling), never a delete and a create that would
 * cost its ad groups. A declared audience whose `id:` pins the one live audience of its look
 * is that audience already: the warning says the update renames it to the file's spelling.
 * Where several names share a look, none is taken for another: the plan goes on by exact names
 * and pinned ids. Each look spelt several ways is a NAME_SPELLING warning that shows the
 * spellings as code points, since a terminal shows them alike.
 */
/** A name of plain ASCII only. */
const ASCII = /^\p{ASCII}*$/u;

export function matchSpellings(input: SpellingInput): Spellings {
  const groups = new Map<string, { declared: DesiredAudience[]; live: LiveAudienceSummary[] }>();
  const groupOf = (name: string) => {
    const look = name.normalize('NFC');
    let group = groups.get(look);
    if (!group) groups.set(look, (group = { declared: [], live: [] }));
    return group;
  };
  // Two spellings of one look are never both plain ASCII (ASCII is its own NFC): a group of ASCII names alone holds one
  // spelling, and is passed over below. So an ASCII name is grouped only when some other name looks like it.
  const looks = new Set(
    [...input.declared.map((audience) => audience.key), ...input.live.map((audience) => audience.name)]
      .filter((name) => !ASCII.test(name))
      .map((name) => name.normalize('NFC')),
  );
  const grouped = (name: string) => !ASCII.test(name) || looks.has(name);
  for (const audience of input.declared) if (grouped(audience.key)) groupOf(audience.key).declared.push(audience);
  for (const audience of input.live) if (grouped(audience.name)) groupOf(audience.name).live.push(audience);

  const missing = new Set(input.missing);
  const matched: Spellings['matched'] = [];
  const warnings: PlanProblem[] = [];
  for (const [look, group] of groups) {
    const spellings = new Set([
      ...group.declared.map((audience) => audience.key),
      ...group.live.map((audience) => audience.name),
    ]);
    if (spellings.size < 2 || (group.declared.length === 0 && !input.prune)) continue;
    const [desired, ...otherDeclared] = group.declared;
    const [live, ...otherLive] = group.live;
    const alone = desired && live && otherDeclared.length === 0 && otherLive.length === 0;
    if (alone && input.matchedIds.get(desired.key) === live.id) {
      warnings.push(matchedWarning(desired.key, live, [...spellings], 'pinned'));
    } else if (alone && missing.has(desired) && !input.claimed.has(live.id)) {
      missing.delete(desired);
      matched.push({ desired, live });
      warnings.push(matchedWarning(desired.key, live, [...spellings], 'look'));
    } else {
      warnings.push(unmatchedWarning(look, group.declared, group.live, input, [...spellings]));
    }
  }
  return { matched, missing: input.missing.filter((audience) => missing.has(audience)), warnings };
}

/** A declared audience that is one live audience spelt otherwise: matched by its look alone, or pinned by its `id:`. */
function matchedWarning(
  name: string,
  live: LiveAudienceSummary,
  spellings: string[],
  by: 'look' | 'pinned',
): PlanProblem {
  const shown = codePointsOf(spellings);
  const is = by === 'pinned' ? "is pinned by id to the account's" : "is the account's";
  const update =
    by === 'pinned'
      ? "the update renames that audience to the file's spelling"
      : "the update gives it the file's spelling";
  return {
    code: 'NAME_SPELLING',
    name,
    message: `audience ${quoted(name)} ${is} ${quoted(live.name)} (id ${live.id}): the names print alike but are spelt with other characters, the file's ${shown(name)} and the account's ${shown(live.name)}; ${update}`,
    hint: "to keep the account's spelling, write the name in the file as the account spells it (`audiences import` writes it)",
  };
}

function unmatchedWarning(
  look: string,
  declared: DesiredAudience[],
  live: LiveAudienceSummary[],
  input: SpellingInput,
  spellings: string[],
): PlanProblem {
  const shown = codePointsOf(spellings);
  const fate = (audience: DesiredAudience) => {
    const id = input.matchedIds.get(audience.key);
    return id !== undefined ? `audience ${id}` : input.missing.includes(audience) ? 'created' : 'not planned';
  };
  const parts = [
    ...declared.map((audience) => `the file's ${shown(audience.key)} (${fate(audience)})`),
    ...live.map(
      (audience) =>
        `the account's ${shown(audience.name)} (id ${audience.id}${input.claimed.has(audience.id) ? '' : input.prune ? ', deleted by prune' : ', left alone'})`,
    ),
  ];
  return {
    code: 'NAME_SPELLING',
    name: declared[0]?.key ?? look,
    message: `${declared.length + live.length} names print alike as ${quoted(look)} but are spelt with other characters, and none is taken for another: ${parts.join('; ')}`,
    hint: 'spell each name in the file as the account does (`audiences import` writes them), or pin the audience the file means with `id:`',
  };
}

/** At most this many code points are shown whole; a longer name shows what its spellings do not share. */
const SHOWN_WHOLE = 16;

/**
 * A name's code points (`U+0063 U+0061 U+0066 U+00E9`). When the names are long, the start and
 * the end all the spellings share are left out (`… U+00E9`), so the difference stands out.
 */
function codePointsOf(spellings: string[]): (name: string) => string {
  const all = spellings.map((spelling) => Array.from(spelling));
  if (Math.max(...all.map((chars) => chars.length)) <= SHOWN_WHOLE)
    return (name) => Array.from(name).map(codePoint).join(' ');
  const shortest = Math.min(...all.map((chars) => chars.length));
  const same = (at: (chars: string[]) => string | undefined) => all.every((chars) => at(chars) === at(all[0] ?? []));
  let start = 0;
  while (start < shortest && same((chars) => chars[start])) start += 1;
  let end = 0;
  while (end < shortest - start && same((chars) => chars[chars.length - 1 - end])) end += 1;
  return (name) => {
    const chars = Array.from(name);
    const middle = chars.slice(start, chars.length - end).map(codePoint);
    return [...(start > 0 ? ['…'] : []), ...middle, ...(end > 0 ? ['…'] : [])].join(' ');
  };
}

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
