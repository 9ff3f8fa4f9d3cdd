/**
 * The saved plan's format across versions. Version 2 writes every id as text (a Long with
 * every digit); version 1 wrote them as numbers, exact below 2^53, which is all a plan of
 * version 1 could hold. A plan saved by the earlier release (on a pull request, say) is read
 * as the same plan of version 2, and checked like any plan afterwards.
 */
import { longOf } from '../model/index.js';

export const PLAN_FORMAT_VERSION = 2;

type Json = Record<string, unknown>;

/**
 * Why a saved plan of version 1 cannot be read as one of the current version, if it cannot. Its
 * updates did not record the fields of the audience the file cannot hold (version 2 sends them
 * back as read): applied, they would be lost. Its image removals do not say which files they
 * delete (version 2 lists them, checked when planned), and guessing would delete what the
 * reviewer may not have seen go.
 */
export function upgradeProblem(value: unknown): string | undefined {
  if (!isRecord(value) || value['formatVersion'] !== 1 || !Array.isArray(value['changes'])) return undefined;
  const changes: unknown[] = value['changes'];
  const count = (action: string): number =>
    changes.filter((change) => isRecord(change) && change['action'] === action).length;
  const updates = count('update');
  if (updates > 0) {
    const what = updates === 1 ? 'an audience' : `${updates} audiences`;
    return `it is of format version 1 and updates ${what} without recording the fields the file cannot hold, which the update would lose: make the plan again with this version`;
  }
  const removes = count('remove');
  if (removes === 0) return undefined;
  return `it is of format version 1 and removes ${removes === 1 ? 'an image' : `${removes} images`}, without saying which files that deletes: make the plan again with this version`;
}

/** `value` as a plan of the current version when it is a plan of version 1 (else as it is: the schema judges it). */
export function upgradeSavedPlan(value: unknown): unknown {
  if (!isRecord(value) || value['formatVersion'] !== 1) return value;
  const fingerprint = isRecord(value['fingerprint']) ? value['fingerprint'] : undefined;
  const business = isRecord(value['business']) ? value['business'] : undefined;
  return {
    ...value,
    formatVersion: PLAN_FORMAT_VERSION,
    changes: mapList(value['changes'], upgradeChange),
    ...(fingerprint
      ? {
          fingerprint: {
            ...fingerprint,
            audiences: mapList(fingerprint['audiences'], (entry) => ({
              ...entry,
              id: idText(entry['id']),
              adGroupIds: idList(entry['adGroupIds']),
            })),
            accountAudienceIds: idList(fingerprint['accountAudienceIds']),
          },
        }
      : {}),
    ...(business && isRecord(business['company'])
      ? { business: { ...business, company: { ...business['company'], id: idText(business['company']['id']) } } }
      : {}),
  };
}

function upgradeChange(change: Json): Json {
  const display = isRecord(change['display']) ? change['display'] : undefined;
  return {
    ...change,
    // Version 1 did not record what the file cannot hold (an update of it is never applied,
    // see upgradeProblem), nor which files a removal deletes: shown as what it recorded.
    ...(change['action'] === 'delete' || change['action'] === 'update' ? { kept: {} } : {}),
    ...(change['action'] === 'remove' ? { deletes: outputPaths(change['before']) } : {}),
    ...(change['kind'] === 'audience'
      ? { before: withLookalikes(change['before']), after: withLookalikes(change['after']) }
      : {}),
    id: idText(change['id']),
    ...('adGroupId' in change ? { adGroupId: idText(change['adGroupId']) } : {}),
    ...(change['kind'] === 'adGroupLink' && isRecord(change['before'])
      ? { before: upgradeAdGroupRef(change['before']) }
      : {}),
    ...(display && 'impact' in display
      ? { display: { ...display, impact: mapList(display['impact'], upgradeAdGroupRef) } }
      : {}),
  };
}

/** The output paths a locked image of version 1 records: the files its removal meant to delete. */
function outputPaths(locked: unknown): unknown[] {
  const outputs = isRecord(locked) && Array.isArray(locked['outputs']) ? locked['outputs'] : [];
  return outputs.flatMap((output) => (isRecord(output) && typeof output['path'] === 'string' ? [output['path']] : []));
}

/** A definition of version 1, which had no lookalikes: their set is empty (version 1 did not read them). */
function withLookalikes(definition: unknown): unknown {
  return isRecord(definition) && !('lookalikeTargetings' in definition)
    ? { ...definition, lookalikeTargetings: [] }
    : definition;
}

function upgradeAdGroupRef(ref: Json): Json {
  return { ...ref, adGroupId: idText(ref['adGroupId']), campaignId: idText(ref['campaignId']) };
}

/** A number of version 1 as the text of version 2; anything else as it was. */
function idText(value: unknown): unknown {
  return typeof value === 'number' ? (longOf(value) ?? value) : value;
}

function idList(value: unknown): unknown {
  return Array.isArray(value) ? value.map(idText) : value;
}

function mapList(value: unknown, map: (item: Json) => Json): unknown {
  return Array.isArray(value) ? value.map((item) => (isRecord(item) ? map(item) : item)) : value;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
