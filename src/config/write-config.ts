import { Document, isMap, isSeq, type YAMLMap } from 'yaml';
import {
  DEFINITION_FIELDS,
  idInFile,
  REGION_FIELDS,
  TARGETING_FIELDS,
  TARGETING_DECLARED_FIELDS,
  visible,
  type AudienceDefinition,
  type JsonValue,
  type LiveAudience,
} from '../model/index.js';

/**
 * The desired-state file for live audiences, as `audiences import` writes it: the service's
 * field names, shorthands only where they are exact (a region by its code, ages as numbers,
 * a *Type left out where its list says it), ids pinned, and a comment per audience with what
 * only the service knows (status, population). Planning the result shows no changes.
 */
export function renderDesiredFile(options: {
  adAccountId: number;
  audiences: LiveAudience[];
  schemaRef: string | undefined;
  notes?: string[];
}): string {
  const { adAccountId, audiences, schemaRef, notes = [] } = options;
  const doc = new Document({
    adAccountId,
    prune: false,
    audiences: audiences.map((audience) => ({
      name: audience.name,
      id: idInFile(audience.id),
      ...declaredFields(audience.definition),
    })),
  });
  doc.commentBefore = [
    ...(schemaRef === undefined ? [] : [` yaml-language-server: $schema=${schemaRef}`]),
    ` Imported from ad account ${adAccountId} (${audiences.length} audience${audiences.length === 1 ? '' : 's'}).`,
    ' prune is off: turn it on once this file is the whole truth of the account.',
    ...notes.map((note) => ` ${note}`),
  ].join('\n');
  const list = doc.get('audiences', true);
  if (isSeq(list)) {
    list.items.forEach((item, index) => {
      const audience = audiences[index];
      if (!isMap(item) || !audience) return;
      const population =
        audience.populationScore === null ? 'unknown' : audience.populationScore.toLocaleString('en-US');
      // The status and the date are the service's text: a line break or an escape in them must stay in the comment.
      item.commentBefore = ` ${visible(`${audience.audienceStatus}, population ${population}, last modified ${audience.lastModifiedDate}${unwritten(audience)}`)}`;
      if (index > 0) item.spaceBefore = true;
      flowShortLists(item);
    });
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** The fields of the audience a file cannot hold, said in its comment: updates keep them as the service has them. */
function unwritten(audience: LiveAudience): string {
  const fields = Object.keys(audience.unmodelled);
  return fields.length === 0 ? '' : `; not in this file, kept as the service has them: ${fields.join(', ')}`;
}

/** The fields of a definition as a file declares them: empty lists and inferable types left out. */
function declaredFields(definition: AudienceDefinition): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = { type: definition.type };
  if (definition.ageType === 'NOT_ALL') out.ages = definition.ages.map(Number);
  if (definition.genderType === 'NOT_ALL') out.genders = definition.genders;
  for (const field of DEFINITION_FIELDS) {
    const value = definition[field];
    if (!Array.isArray(value) || value.length === 0 || field === 'ages' || field === 'genders') continue;
    if ((REGION_FIELDS as readonly string[]).includes(field)) {
      out[field] = (value as Array<{ value: string }>).map((region) => region.value);
    } else if ((TARGETING_FIELDS as readonly string[]).includes(field)) {
      const keep = TARGETING_DECLARED_FIELDS[field as (typeof TARGETING_FIELDS)[number]];
      out[field] = (value as Array<Record<string, JsonValue>>).map((member) =>
        Object.fromEntries(
          keep
            .filter((key) => member[key] !== undefined && member[key] !== null)
            .map((key) => [key, member[key] as JsonValue]),
        ),
      );
    } else {
      out[field] = value as JsonValue[];
    }
  }
  return out;
}

/** `ages: [20, 25]` and `{ cohortId: 7001, inclusionType: INCLUDE }` read better on one line. */
function flowShortLists(audience: YAMLMap): void {
  for (const pair of audience.items) {
    if (!isSeq(pair.value)) continue;
    const scalars = pair.value.items.every((item) => !isMap(item));
    if (scalars) pair.value.flow = true;
    for (const member of pair.value.items) if (isMap(member)) member.flow = true;
  }
}
