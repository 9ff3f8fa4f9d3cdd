import fc from 'fast-check';
import { LosslessNumber, stringify } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { audienceSummaryFromWire } from './audience-wire.js';
import { longToWire, parseAnswer, sameJsonText, writeBody } from './long-json.js';
import { validateWire } from './wire-schemas.js';

describe('answers and bodies with Longs past 2^53', () => {
  it('reads an integer JavaScript cannot hold as its digits, and every other number as JSON.parse does', () => {
    expect(
      parseAnswer('{"id":9007199254740993,"small":9007199254740991,"score":1.5,"big":1e400,"neg":-9007199254740993}'),
    ).toEqual({
      id: '9007199254740993',
      small: 9007199254740991,
      score: 1.5,
      big: Infinity,
      neg: '-9007199254740993',
    });
    expect(parseAnswer('{"a":1,"a":2}')).toEqual({ a: 2 });
    expect(() => parseAnswer('{"a":')).toThrow(SyntaxError);
  });

  it('a list answer with such an id passes the schema and keeps every digit in the model', () => {
    const checked = validateWire(
      'AudienceListResponse',
      parseAnswer('{"content":[{"id":9007199254740993,"name":"a"}]}'),
    );
    expect(checked.ok).toBe(true);
    const [item] = checked.ok && Array.isArray(checked.value.content) ? checked.value.content : [];
    expect(audienceSummaryFromWire(item ?? { id: 0, name: '' }).id).toBe('9007199254740993');
    // A number that lost its digits on the way (written in exponent form) is not taken for an id.
    expect(
      validateWire('AudienceListResponse', parseAnswer('{"content":[{"id":9.007199254740993e15,"name":"a"}]}')).ok,
    ).toBe(false);
  });

  it('writes a Long of a request body as a JSON number with every digit', () => {
    expect(writeBody({ id: longToWire('9007199254740993'), adAccountId: 1234, name: 'a' })).toBe(
      '{"id":9007199254740993,"adAccountId":1234,"name":"a"}',
    );
    expect(longToWire('100001')).toBe(100001);
  });

  it('writes any body as the exact writer does: one with no exact number too, which JSON.stringify writes', () => {
    const { body } = fc.letrec((tie) => ({
      body: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 2 }),
        fc.bigInt(),
        fc.bigInt().map((value) => new LosslessNumber(String(value))),
        fc.array(tie('body'), { maxLength: 4 }),
        fc.dictionary(fc.string(), fc.oneof(tie('body'), fc.constant(undefined)), { maxKeys: 4 }),
      ),
    }));
    fc.assert(
      fc.property(body, (value) => {
        expect(writeBody(value)).toBe(stringify(value) ?? 'null');
      }),
    );
  });
});

describe('sameJsonText', () => {
  it('compares values, not their writing: keys in any order, 1.50 as 1.5, every digit of what a double cannot hold', () => {
    expect(sameJsonText('{"a":1.50,"b":[1,{"c":2,"d":null}]}', '{ "b": [1, {"d": null, "c": 2}], "a": 1.5 }')).toBe(
      true,
    );
    expect(sameJsonText('{"id":9007199254740993}', '{"id":9007199254740992}')).toBe(false);
    expect(sameJsonText('[1]', '[1,1]')).toBe(false);
    expect(sameJsonText(undefined, undefined)).toBe(true);
    expect(sameJsonText('null', undefined)).toBe(false);
  });
});
