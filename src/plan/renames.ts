import { quoted, sortLongs, type DesiredAudience, type LiveAudienceSummary, type Long } from '../model/index.js';
import { diffDefinition } from './diff.js';
import type { AudienceCreate, AudienceDelete, Change, PlanProblem } from './types.js';

export interface RenameInput {
  /** The declared audiences identified by name (no `id:`, or one the account no longer has) that give `renamedFrom`. */
  entries: readonly DesiredAudience[];
  /** The live audiences under management (`ignore` is never reached past: validate refuses an ignored old name). */
  live: readonly LiveAudienceSummary[];
  /** The live audience each declared audience is by its exact name, so far. */
  exact: ReadonlyMap<DesiredAudience, LiveAudienceSummary>;
  /** Live audiences taken so far, and the declared audience that pins each pinned one. */
  claimed: ReadonlySet<Long>;
  pinnedBy: ReadonlyMap<Long, string>;
}

export interface Renames {
  /** Declared audiences that were missing, each matched to the live audience of its old name. */
  matched: Array<{ desired: DesiredAudience; live: LiveAudienceSummary }>;
  /** Declared audiences whose rename cannot be told apart: nothing is planned for them. */
  refused: DesiredAudience[];
  /** The live audiences the errors name: never taken for another audience, never pruned. */
  claimed: Long[];
  errors: PlanProblem[];
}

/**
 * `renamedFrom` says which live audience a declared one was before its new name: the one
 * live audience of an old name is this one (an update of its name keeps its id and ad groups).
 * Only an unmistakable rename is taken: where the new name is live too, several live audiences
 * have the old names, or another entry pins the old one, the plan stops and names the ids.
 * Names compare as they print (after NFC), as spellings do (see matchSpellings).
 */
export function matchRenames(input: RenameInput): Renames {
  const claimed = new Set(input.claimed);
  const result: Renames = { matched: [], refused: [], claimed: [], errors: [] };
  const refuse = (entry: DesiredAudience, ids: Long[], message: string, hint: string) => {
    result.refused.push(entry);
    for (const id of ids) claimed.add(id);
    result.claimed.push(...ids);
    result.errors.push({ code: 'RENAME_AMBIGUOUS', name: entry.key, message, hint });
  };
  for (const entry of input.entries) {
    const looks = new Set(entry.renamedFrom.map((name) => name.normalize('NFC')));
    const holders = input.live.filter((audience) => looks.has(audience.name.normalize('NFC')));
    if (holders.length === 0) continue;
    const said = `audience ${quoted(entry.key)} is renamed from ${entry.renamedFrom.map(quoted).join(' or ')}`;
    const taken = holders.find((audience) => claimed.has(audience.id));
    const look = entry.key.normalize('NFC');
    const current =
      input.exact.get(entry) ??
      input.live.find((audience) => audience.name.normalize('NFC') === look && !claimed.has(audience.id));
    const free = holders.filter((audience) => !claimed.has(audience.id));
    if (taken) {
      const owner = input.pinnedBy.get(taken.id);
      refuse(
        entry,
        free.map((audience) => audience.id),
        `${said}, which is audience ${taken.id}, ${owner === undefined ? 'another entry of the file' : `pinned by ${quoted(owner)}`}`,
        "one live audience is one entry: remove `renamedFrom`, or the other entry's `id:`",
      );
    } else if (current) {
      const ids = sortLongs([current.id, ...free.map((audience) => audience.id)]);
      refuse(
        entry,
        ids,
        `${said}, but the ad account has both: ${[current, ...free].map((audience) => `${quoted(audience.name)} (id ${audience.id})`).join(', ')}`,
        `if the rename is applied, remove \`renamedFrom\` (the old name is then another audience); otherwise say which one this entry is with \`id:\` (one of ${ids.join(', ')})`,
      );
    } else if (free.length > 1) {
      const ids = sortLongs(free.map((audience) => audience.id));
      refuse(
        entry,
        ids,
        `${said}, which ${ids.length} audiences of the ad account are named (ids ${ids.join(', ')})`,
        `say which one this entry is with \`id:\` (one of ${ids.join(', ')}; \`audiences import\` shows them all)`,
      );
    } else if (free[0]) {
      claimed.add(free[0].id);
      result.matched.push({ desired: entry, live: free[0] });
    }
  }
  return result;
}

/**
 * A delete and a create of the same definition in one plan are most likely a rename written
 * without `renamedFrom`, which costs the audience its id and its ad groups: each create that
 * has one is warned about, with the line that makes it a rename. Names that print alike are
 * left to the NAME_SPELLING warning, which says what to do about them.
 */
export function renameWarnings(changes: readonly Change[]): PlanProblem[] {
  const deletes = changes.filter(
    (change): change is AudienceDelete => change.action === 'delete' && change.kind === 'audience',
  );
  if (deletes.length === 0) return [];
  return changes.flatMap((change) => {
    if (change.action !== 'create' || change.kind !== 'audience') return [];
    const alike = deletes.filter(
      (deleted) => deleted.name.normalize('NFC') !== change.name.normalize('NFC') && sameDefinition(change, deleted),
    );
    const [first] = alike;
    if (!first) return [];
    const gone = alike.map((deleted) => {
      const groups = deleted.display.impact.map((ref) => ref.adGroupId);
      return `${quoted(deleted.name)} (id ${deleted.id}${groups.length === 0 ? '' : `, used by ad group${groups.length === 1 ? '' : 's'} ${groups.join(', ')}`})`;
    });
    return [
      {
        code: 'LOOKS_LIKE_RENAME',
        name: change.name,
        message: `audience ${quoted(change.name)} is created with the definition of ${gone.join(' and ')}, which the plan deletes: if it is a rename, the audience loses its id and its ad groups`,
        hint:
          alike.length === 1
            ? `to rename it in place (same id, ad groups kept), add \`renamedFrom: ${JSON.stringify(first.name)}\` to the entry of ${quoted(change.name)}`
            : `to rename one of them in place (same id, ad groups kept), add \`renamedFrom:\` with its name to the entry of ${quoted(change.name)}`,
      },
    ];
  });
}

/** The create's definition is the deleted one but for the name (compared as plans compare). */
function sameDefinition(create: AudienceCreate, deleted: AudienceDelete): boolean {
  return diffDefinition({ ...create.after, name: deleted.before.name }, deleted.before).length === 0;
}
