import { describe, expect, it } from 'vitest';
import { desiredAudience, desiredState, liveState } from '../../test/helpers/builders.js';
import { planAccount } from '../plan/index.js';
import { fenceFor, MARKDOWN_LIMIT, renderMarkdown } from './markdown.js';
import { ansiStyle, plainStyle } from './style.js';
import { renderText } from './text.js';

function planCreating(count: number) {
  const audiences = Array.from({ length: count }, (_, index) =>
    desiredAudience({
      name: `audience-${String(index).padStart(5, '0')}`,
      ageType: 'NOT_ALL',
      ages: ['20', '25', '30'],
      ufoInterests: ['TRAVEL', 'FOOD'],
    }),
  );
  return planAccount(desiredState(audiences), liveState([]), { allowMassDelete: false });
}

describe('renderMarkdown', () => {
  it('puts the summary first and folds the details', () => {
    const text = renderMarkdown(planCreating(2));
    expect(text.indexOf('**Plan: 2 to create')).toBeLessThan(text.indexOf('<details>'));
    expect(text).toContain('```diff\n+ create audience "audience-00000"');
    expect(text).not.toContain('too long for one comment');
  });

  it('stays under the comment limit for a huge plan, and says what it cut', () => {
    const plan = planCreating(3000);
    const text = renderMarkdown(plan);
    expect(text.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(text).toContain('**Plan: 3000 to create');
    expect(text).toMatch(/The plan is too long for one comment: [\d,]+ lines were cut/);
    expect(text.match(/```/g)).toHaveLength(2);
    expect(text.trimEnd().endsWith('`audiences plan` to see all of it._')).toBe(true);
  });
});

describe('fenceFor', () => {
  it('is longer than any run of backticks, over more lines than a call takes arguments', () => {
    const lines = Array.from({ length: 300_000 }, (_, index) => (index === 123_456 ? 'a ````` b' : 'plain `code`'));
    expect(fenceFor(lines)).toBe('``````');
    expect(fenceFor(['no ticks'])).toBe('```');
  });
});

describe('renderText styles', () => {
  it('is colourless with the plain style and coloured with the ANSI style', () => {
    const plan = planCreating(1);
    expect(renderText(plan, plainStyle)).not.toContain('\u001b[');
    expect(renderText(plan, ansiStyle)).toContain('\u001b[32m+\u001b[39m create audience');
  });
});
