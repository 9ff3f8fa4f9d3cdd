import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { AUDIENCES_SCHEMA_URL, validateConfig } from './index.js';

const schema = JSON.parse(readFileSync(AUDIENCES_SCHEMA_URL, 'utf8')) as {
  $schema: string;
  definitions: Record<
    string,
    { description?: string; properties?: Record<string, { description?: string; $ref?: string }> }
  >;
};

/** The schema as an editor applies it: on its own, without the tool's rules in code. */
const editorValidate = new Ajv({ allErrors: true, strict: false }).compile(schema);
function editorAccepts(text: string): boolean {
  return editorValidate(parse(text)) === true;
}

const audience = (fields: string): string => `adAccountId: 1\naudiences:\n  - {name: a, ${fields}}\n`;

/** Each breaks one spec rule; the schema (for editors) and the tool must both refuse it. */
const ruleBreakers: Record<string, string> = {
  'rule 1, ALL with ages': audience('type: DISPLAY, ageType: ALL, ages: [20]'),
  'rule 1, NOT_ALL without ages': audience('type: DISPLAY, ageType: NOT_ALL'),
  'rule 2, ALL with genders': audience('type: DISPLAY, genderType: ALL, genders: [F]'),
  'rule 2, NOT_ALL without genders': audience('type: DISPLAY, genderType: NOT_ALL'),
  'rule 4, ALL with regions': audience('type: DISPLAY, locationType: ALL, depth2Locations: [I01]'),
  'rule 5, AREA without regions': audience('type: DISPLAY, locationType: AREA'),
  'rule 8, MESSAGE with customer files': audience(
    'type: MESSAGE, customerFileTargetings: [{customerFileId: 1, inclusionType: INCLUDE}]',
  ),
  'rule 8, MESSAGE with trackers': audience(
    'type: MESSAGE, trackerTargetings: [{trackId: t, eventCode: e, retentionDays: 7, inclusionType: INCLUDE}]',
  ),
  'rule 8, DISPLAY with friend groups': audience(
    'type: DISPLAY, talkChannelGroupTargetings: [{groupId: 1, inclusionType: INCLUDE}]',
  ),
};

/** Each uses a shorthand or an explicit form the spec allows. */
const valid: Record<string, string> = {
  'inferred types': audience('type: DISPLAY, ages: [20, "25"], genders: [M], locations: [I]'),
  'explicit types': audience(
    'type: MESSAGE, ageType: NOT_ALL, ages: [65], genderType: ALL, locationType: AREA, depth3Locations: [{value: I0101}]',
  ),
  'all three region lists': audience('type: DISPLAY, locations: [I], depth2Locations: [B01], depth3Locations: [C0101]'),
  'per-type criteria': audience(
    'type: MESSAGE, talkChannelGroupTargetings: [{groupId: 1, inclusionType: INCLUDE}], cohortTargetings: [{cohortId: 2, inclusionType: EXCLUDE}]',
  ),
  'a province list emptied beside a district': audience('type: DISPLAY, locations: [], depth2Locations: [H01]'),
  'member ids as numbers and as text': audience(
    'type: DISPLAY, talkChannelTargetings: [{profileId: 501, inclusionType: INCLUDE}], customerFileTargetings: [{customerFileId: "5001", inclusionType: EXCLUDE}]',
  ),
  'the example file': readFileSync(new URL('../../test/fixtures/config/valid.yaml', import.meta.url), 'utf8'),
};

describe('schemas/audiences.schema.json', () => {
  it.each(Object.entries(ruleBreakers))('refuses %s, as the tool does', (_name, text) => {
    expect(editorAccepts(text)).toBe(false);
    expect(validateConfig(text, 'a.yaml').ok).toBe(false);
  });

  it.each(Object.entries(valid))('accepts %s, as the tool does', (_name, text) => {
    expect(editorAccepts(text)).toBe(true);
    expect(validateConfig(text, 'a.yaml').ok).toBe(true);
  });

  it('is draft-07, which yaml-language-server reads', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('describes every field of an audience, for editors', () => {
    const properties = schema.definitions['Audience']?.properties ?? {};
    const undescribed = Object.entries(properties)
      .filter(
        ([, property]) =>
          property.description === undefined &&
          schema.definitions[property.$ref?.split('/').pop() ?? '']?.description === undefined,
      )
      .map(([name]) => name);
    expect(Object.keys(properties).length).toBeGreaterThan(15);
    expect(undescribed).toEqual([]);
  });
});
