import {
  ignoreMatcher,
  matchingGlob,
  sortLongs,
  type DesiredAudience,
  type DesiredState,
  type LiveAudienceSummary,
  type Long,
} from '../model/index.js';
import { matchSpellings } from './name-spellings.js';
import { matchRenames } from './renames.js';
import type { PlanProblem } from './types.js';
import { idLine, quoted } from '../model/index.js';

/** A declared audience and the live audience it is (by pinned id, else by name). */
export interface MatchedAudience {
  desired: DesiredAudience;
  live: LiveAudienceSummary;
}

export interface Identities {
  matched: MatchedAudience[];
  /** Declared audiences with no live counterpart. */
  missing: DesiredAudience[];
  /** Live audiences the file does not declare and `ignore` does not cover: deleted with prune. */
  undeclared: LiveAudienceSummary[];
  /** How many live audiences are under management (not ignored): the base of the mass-delete check. */
  managedCount: number;
  /** The glob of the file's `protect` list that names each live audience it protects, by id. */
  protectedBy: ReadonlyMap<Long, string>;
  errors: PlanProblem[];
  /**
   * Names that print alike but are spelt otherwise (see matchSpellings); pinned ids gone; `renamedFrom` that did
   * nothing.
   */
  warnings: PlanProblem[];
}

/**
 * Pairs declared audiences with live ones. Identity is the pinned id, else the name; a name
 * that several live audiences share is an error naming their ids, unless the file pins one.
 * A pinned id the account no longer has was deleted outside the tool: that audience is known
 * by its name again (created, or the live audience of its name), with a warning. Then the old
 * names of `renamedFrom` (see matchRenames), and last, a name spelt otherwise than the one live
 * audience that looks like it (see matchSpellings).
 */
export function matchIdentities(desired: DesiredState, live: LiveAudienceSummary[]): Identities {
  const last = lastIdentities.get(desired);
  if (last?.live === live) return last.identities;
  const identities = pairIdentities(desired, live);
  lastIdentities.set(desired, { live, identities });
  return identities;
}

/**
 * The seam of one performance choice, as in diff.ts: the last identities of each desired state, with the live list they
 * were matched against. A plan matches the same two twice (for the reads it needs, then when it is planned, after the
 * last answer): the second time is an answer, not a match. Identities are never changed once made.
 */
const lastIdentities = new WeakMap<DesiredState, { live: LiveAudienceSummary[]; identities: Identities }>();

function pairIdentities(desired: DesiredState, live: LiveAudienceSummary[]): Identities {
  const byId = new Map(live.map((audience) => [audience.id, audience]));
  const byName = new Map<string, LiveAudienceSummary[]>();
  for (const audience of live) {
    const named = byName.get(audience.name);
    if (named) named.push(audience);
    else byName.set(audience.name, [audience]);
  }

  const claimed = new Set<Long>();
  const pinnedBy = new Map<Long, string>();
  const matched: MatchedAudience[] = [];
  const missing: DesiredAudience[] = [];
  const errors: PlanProblem[] = [];
  const isIgnored = ignoreMatcher(desired.ignore);
  // Each declared audience whose pinned id the account no longer has, with that id.
  const gone = new Map<DesiredAudience, Long>();

  for (const audience of desired.audiences) {
    if (audience.id === undefined) continue;
    const found = byId.get(audience.id);
    if (found && isIgnored(found.name)) {
      // `ignore` means never touched: a pinned id does not reach past it (a rename would).
      claimed.add(found.id);
      errors.push({
        code: 'PINNED_ID_IGNORED',
        name: audience.key,
        message: `audience ${quoted(audience.key)} pins id ${audience.id}, which is ${quoted(found.name)} in the ad account: a name the ignore patterns cover`,
        hint: `to manage it, narrow the ignore patterns so they leave ${quoted(found.name)} out; otherwise remove the \`id:\` line`,
      });
    } else if (found) {
      claimed.add(found.id);
      pinnedBy.set(found.id, audience.key);
      matched.push({ desired: audience, live: found });
    } else {
      gone.set(audience, audience.id);
    }
  }
  const byNameEntries = desired.audiences.filter((audience) => audience.id === undefined || gone.has(audience));
  const exact = new Map<DesiredAudience, LiveAudienceSummary>();
  const refused = new Set<DesiredAudience>();
  // Indexed, not destructured with a rest: this runs once per declared audience, in code that has not warmed up
  // (the seam of a performance choice: bench/NOTES.md).
  for (const audience of byNameEntries) {
    const named = byName.get(audience.key);
    const candidates = named === undefined ? [] : named.filter((candidate) => !claimed.has(candidate.id));
    const only = candidates[0];
    if (only === undefined) {
      missing.push(audience);
    } else if (candidates.length > 1) {
      const ids = sortLongs(candidates.map((candidate) => candidate.id));
      for (const id of ids) claimed.add(id);
      refused.add(audience);
      errors.push({
        code: 'DUPLICATE_LIVE_NAME',
        name: audience.key,
        message: `the ad account has ${ids.length} audiences named ${quoted(audience.key)} (ids ${ids.join(', ')})`,
        hint: `add one of ${ids.map((id) => `\`${idLine(id)}\``).join(', ')} to the entry to say which one this file manages (\`audiences import\` shows them all)`,
      });
    } else {
      claimed.add(only.id);
      exact.set(audience, only);
    }
  }

  const managed = live.filter((audience) => !isIgnored(audience.name));
  const renames = matchRenames({
    entries: byNameEntries.filter((audience) => audience.renamedFrom.length > 0 && !refused.has(audience)),
    live: managed,
    exact,
    claimed,
    pinnedBy,
  });
  errors.push(...renames.errors);
  for (const id of renames.claimed) claimed.add(id);
  for (const audience of renames.refused) refused.add(audience);
  exact.forEach((found, audience) => {
    if (!refused.has(audience)) matched.push({ desired: audience, live: found });
  });
  const renamed = new Set(renames.matched.map((pair) => pair.desired));
  for (const pair of renames.matched) claimed.add(pair.live.id);
  matched.push(...renames.matched);

  const matchedIds = new Map(matched.map((pair) => [pair.desired.key, pair.live.id]));
  const stillMissing = missing.filter((audience) => !renamed.has(audience) && !refused.has(audience));
  const spelled = matchSpellings({
    declared: desired.audiences,
    live: managed,
    matchedIds,
    missing: stillMissing,
    claimed,
    prune: desired.prune,
  });
  for (const pair of spelled.matched) claimed.add(pair.live.id);
  matched.push(...spelled.matched);

  const liveOf = new Map(matched.map((pair) => [pair.desired, pair.live]));
  const warnings = [
    ...spelled.warnings,
    ...[...gone].map(([audience, pinned]) =>
      goneWarning(audience, pinned, liveOf.get(audience), refused.has(audience), desired.adAccountId),
    ),
    ...desired.audiences.flatMap((audience) =>
      audience.renamedFrom.length > 0 && !renamed.has(audience) && !refused.has(audience)
        ? unusedRename(audience, liveOf.get(audience), desired.adAccountId)
        : [],
    ),
  ];
  const undeclared = managed.filter((audience) => !claimed.has(audience.id));
  const managedCount = live.filter((audience) => claimed.has(audience.id) || !isIgnored(audience.name)).length;
  return {
    matched,
    missing: spelled.missing,
    undeclared,
    managedCount,
    protectedBy: protectedBy(desired.protect, managed),
    errors,
    warnings,
  };
}

/** A pinned id the account no longer has: drift, not an error. The audience is known by its name again. */
function goneWarning(
  audience: DesiredAudience,
  pinnedId: Long,
  found: LiveAudienceSummary | undefined,
  refused: boolean,
  adAccountId: number,
): PlanProblem {
  const pinned = `audience ${quoted(audience.key)} pins id ${pinnedId}, which the ad account ${adAccountId} no longer has: it was deleted outside the tool`;
  if (found) {
    return {
      code: 'PINNED_ID_DELETED',
      name: audience.key,
      message: `${pinned}, and the account's audience ${quoted(found.name)} (id ${found.id}) is taken as it, by its name`,
      hint: `write \`${idLine(found.id)}\` in place of \`${idLine(pinnedId)}\` (or remove the \`id:\` line)`,
    };
  }
  if (refused) {
    return {
      code: 'PINNED_ID_DELETED',
      name: audience.key,
      message: `${pinned}; it is known by its name instead`,
      hint: `correct or remove the \`id:\` line`,
    };
  }
  return {
    code: 'PINNED_ID_DELETED',
    name: audience.key,
    message: `${pinned}, so the plan creates it again (under a new id)`,
    hint: `once it is created, write its new id in place of \`${idLine(pinnedId)}\` (\`audiences import\` shows it) or remove the \`id:\` line; if the id is mistyped, correct it`,
  };
}

/**
 * `renamedFrom` that names no live audience: after the rename is applied (it can go), or an old name the account never
 * had.
 */
function unusedRename(
  audience: DesiredAudience,
  found: LiveAudienceSummary | undefined,
  adAccountId: number,
): PlanProblem[] {
  const olds = audience.renamedFrom.map(quoted).join(', ');
  if (found) {
    // A pinned audience still under an old name is the rename the pin makes: `renamedFrom` agrees.
    const looks = new Set(audience.renamedFrom.map((name) => name.normalize('NFC')));
    if (looks.has(found.name.normalize('NFC'))) return [];
    return [
      {
        code: 'RENAMED_FROM_UNUSED',
        name: audience.key,
        message: `audience ${quoted(audience.key)} (id ${found.id}) is no longer named ${olds}, so \`renamedFrom\` changes nothing`,
        hint: 'once the rename is applied, `renamedFrom` can go: remove it from the entry',
      },
    ];
  }
  return [
    {
      code: 'RENAMED_FROM_UNUSED',
      name: audience.key,
      message: `audience ${quoted(audience.key)} is renamed from ${olds}, which the ad account ${adAccountId} does not have, so it is created as a new audience`,
      hint: 'check the old name (`audiences import` writes the names of the account); once the audience exists, `renamedFrom` can go',
    },
  ];
}

/** The live audiences the `protect` globs name, each with the first glob that does. */
function protectedBy(globs: readonly string[], live: readonly LiveAudienceSummary[]): Map<Long, string> {
  const protecting = new Map<Long, string>();
  if (globs.length === 0) return protecting;
  const globOf = matchingGlob(globs);
  for (const audience of live) {
    const glob = globOf(audience.name);
    if (glob !== undefined) protecting.set(audience.id, glob);
  }
  return protecting;
}
