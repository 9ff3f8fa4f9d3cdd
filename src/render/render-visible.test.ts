import { describe, expect, it } from 'vitest';
import { desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { renderError } from '../cli/report-error.js';
import { AppError } from '../errors.js';
import { planAccount, type AppliedAccount, type ChangeResult } from '../plan/index.js';
import { applySummary, progressLine } from './apply.js';
import { renderMarkdown } from './markdown.js';
import { plainStyle } from './style.js';
import { renderText } from './text.js';
import { visible } from '../model/index.js';

/** A name that would paint a forged `ok` line, colour it, ring the bell and read backwards. */
const HOSTILE = 'spring\r\u001b[32mok\u001b[0m\u0007\u009b\u202eevil\n```';
/** What a line printed by a renderer may hold: no control character at all (the style here adds none). */
// eslint-disable-next-line no-control-regex -- matching the control characters is the point
const ACTING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function lines(text: string): string[] {
  return text.split('\n');
}

describe('visible', () => {
  it('writes out every character that would act instead of being shown, and leaves the rest', () => {
    expect(visible(HOSTILE)).toBe('spring\\r\\u001b[32mok\\u001b[0m\\u0007\\u009b\\u202eevil\\n```');
    expect(visible('Seoul 20대 여성 — ok')).toBe('Seoul 20대 여성 — ok');
  });

  it('tells apart names that would print alike: invisible characters, separators and unpaired surrogates', () => {
    expect(visible('a\u200bb\u00adc\u2060d\ufeffe\u180ef')).toBe('a\\u200bb\\u00adc\\u2060d\\ufeffe\\u180ef');
    expect(visible('line\u2028para\u2029')).toBe('line\\u2028para\\u2029');
    expect([visible('a\ud800'), visible('a\udc00')]).toEqual(['a\\ud800', 'a\\udc00']);
    // A pair is one character, and the joiners of scripts and emoji stay.
    expect(visible('🎉 👩\u200d💻 क्\u200cष')).toBe('🎉 👩\u200d💻 क्\u200cष');
  });
});

describe('a name cannot close its quotes', () => {
  it('in the text plan, the Markdown comment and the apply lines', () => {
    const forged = 'spring" (id 100001) kept, and "other\\';
    const plan = planAccount(
      desiredState([], { prune: true, massDelete: { ratio: 1, minManaged: 0 } }),
      liveState([liveAudience(100002, { name: forged })]),
      { allowMassDelete: true },
    );
    const shown = 'delete audience "spring\\" (id 100001) kept, and \\"other\\\\" (id 100002)';
    expect(renderText(plan, plainStyle)).toContain(shown);
    expect(renderMarkdown(plan)).toContain(shown);
    expect(progressLine({ action: 'delete', name: forged, id: '100002', status: 'ok' }, plainStyle)).toContain(shown);
  });
});

describe('every renderer prints untrusted text visibly', () => {
  const plan = planAccount(desiredState([desiredAudience({ name: HOSTILE })]), liveState([]), {
    allowMassDelete: false,
  });

  it('the text plan and the Markdown comment', () => {
    for (const text of [renderText(plan, plainStyle), renderMarkdown(plan)]) {
      expect(lines(text).filter((line) => ACTING.test(line))).toEqual([]);
      expect(text).toContain('spring\\r\\u001b[32mok');
    }
    // The name cannot close the Markdown diff block: the only fences are the renderer's own.
    expect(renderMarkdown(plan).match(/^```/gm)).toEqual(['```', '```']);
  });

  it('the progress lines and the summary of an apply, with a service message', () => {
    const failed: ChangeResult = {
      action: 'create',
      name: HOSTILE,
      id: null,
      status: 'failed',
      cause: 'bad request\r\u001b]0;title\u0007',
    };
    const applied: AppliedAccount = {
      plan,
      result: {
        adAccountId: 1234,
        results: [failed],
        summary: { ok: 0, verified: 0, failed: 1, unknown: 0, skipped: 0 },
      },
      remaining: [HOSTILE],
      unverified: HOSTILE,
      interrupted: false,
    };
    for (const text of [progressLine(failed, plainStyle), applySummary([applied], false)])
      expect(lines(text).filter((line) => ACTING.test(line))).toEqual([]);
  });

  it('errors, whatever the service said', () => {
    const text = renderError(
      new AppError({
        code: 'API_REJECTED',
        source: 'remote',
        summary: `the service said: ${HOSTILE}`,
        detail: `first\nsecond ${HOSTILE}`,
      }),
      false,
    );
    expect(lines(text).filter((line) => ACTING.test(line))).toEqual([]);
    // The detail's line breaks stay line breaks (a detail is several lines), each indented under the error.
    expect(
      lines(text)
        .slice(1, -1)
        .every((line) => line.startsWith('  ')),
    ).toBe(true);
    expect(lines(text)[0]).toBe(
      'error[API_REJECTED]: the service said: spring\\r\\u001b[32mok\\u001b[0m\\u0007\\u009b\\u202eevil\\n```',
    );
  });
});
