import {
  TARGETING_FIELDS,
  TARGETING_MEMBER_KEYS,
  type DefinitionField,
  type JsonObject,
  type JsonValue,
} from '../model/index.js';
import type { Change, ServiceCheck, ServiceCheckWhat } from './types.js';

/**
 * The values the changes send that only the service can check, so that a plan without errors
 * does not read as a promise: district and town codes (the spec lists only the provinces),
 * interest and business-type codes and targeting members (the spec shows neither: rule 9 takes
 * them from the account's targetable items), and a tracker's event codes. A create sends every
 * value; an update is checked on the values it adds that the audience did not have (the service
 * took those already).
 */
export function serviceChecks(changes: readonly Change[]): ServiceCheck[] {
  return changes.flatMap((change) => {
    if (change.action === 'create') return checksOf(change.name, (field) => change.after[field] as JsonValue[]);
    if (change.action !== 'update') return [];
    // A member re-sent with another field (its retention, say) keeps ids the service already took.
    const known = new Set(
      checksOf(change.name, (field) => change.before[field] as JsonValue[]).flatMap((check) =>
        check.values.map((value) => `${check.field} ${check.what} ${value}`),
      ),
    );
    return checksOf(
      change.name,
      (field) => change.display.fields.find((entry) => entry.field === field)?.added ?? [],
    ).flatMap((check) => {
      const values = check.values.filter((value) => !known.has(`${check.field} ${check.what} ${value}`));
      return values.length === 0 ? [] : [{ ...check, values }];
    });
  });
}

/** The member field of a tracker that names one of its events, not an item of the account. */
const EVENT_CODE = 'eventCode';

const CODE_FIELDS: ReadonlyArray<{ field: DefinitionField; what: ServiceCheckWhat }> = [
  { field: 'depth2Locations', what: 'districtCode' },
  { field: 'depth3Locations', what: 'townCode' },
  { field: 'ufoInterests', what: 'interestCode' },
  { field: 'ufoBusinessTypes', what: 'businessTypeCode' },
];

/** The keys of each targeting field's members that name an item of the account. */
const MEMBER_ID_KEYS = new Map(
  TARGETING_FIELDS.map((field) => [field, TARGETING_MEMBER_KEYS[field].filter((key) => key !== EVENT_CODE)]),
);

function checksOf(name: string, membersOf: (field: DefinitionField) => JsonValue[]): ServiceCheck[] {
  const checks: ServiceCheck[] = [];
  const add = (field: DefinitionField, what: ServiceCheckWhat, values: string[]): void => {
    if (values.length > 0) checks.push({ name, field, what, values: [...new Set(values)] });
  };
  // Most fields of an audience are empty: they are passed over without a list made for them (a large plan's creates
  // are planned and rendered sooner; bench/NOTES.md).
  for (const { field, what } of CODE_FIELDS) {
    const values = membersOf(field);
    if (values.length > 0) add(field, what, values.map(codeOf));
  }
  for (const field of TARGETING_FIELDS) {
    const values = membersOf(field);
    if (values.length === 0) continue;
    const members = values.filter(
      (member): member is JsonObject => typeof member === 'object' && member !== null && !Array.isArray(member),
    );
    const ids = MEMBER_ID_KEYS.get(field) ?? [];
    add(
      field,
      'memberId',
      members.flatMap((member) =>
        ids.filter((key) => member[key] !== undefined).map((key) => `${key}=${textOf(member[key] ?? null)}`),
      ),
    );
    add(
      field,
      'eventCode',
      members.flatMap((member) => (member[EVENT_CODE] === undefined ? [] : [textOf(member[EVENT_CODE] ?? null)])),
    );
  }
  return checks;
}

/** A region by its code, an interest or business type as itself. */
function codeOf(value: JsonValue): string {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? textOf(value['value'] ?? null)
    : textOf(value);
}

function textOf(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
