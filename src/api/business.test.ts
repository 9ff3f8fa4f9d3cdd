import { describe, expect, it } from 'vitest';
import { formatBizNum } from './business.js';

describe('formatBizNum', () => {
  it('gives ten bare digits the 3-2-5 separators', () => {
    expect(formatBizNum('1208147521')).toBe('120-81-47521');
    expect(formatBizNum(' 1208147521\n')).toBe('120-81-47521');
  });

  it('leaves anything else for the service to judge', () => {
    expect(formatBizNum('120-81-47521')).toBe('120-81-47521');
    expect(formatBizNum('120814752')).toBe('120814752');
    expect(formatBizNum('12081475210')).toBe('12081475210');
    expect(formatBizNum('120 81 47521')).toBe('120 81 47521');
  });
});
