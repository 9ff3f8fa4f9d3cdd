import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';

describe('the quota hint', () => {
  const limited = (service: 'audience' | 'business' | 'imagegen') =>
    new ApiError({ service, method: 'GET', path: '/x', kind: 'http', status: 429, ambiguous: false, attempts: 3 });

  it("names the file's requestsPerSecond for the audience API alone, the only service it paces", () => {
    expect(limited('audience').hint).toContain('requestsPerSecond: N in the file of the account');
    for (const service of ['business', 'imagegen'] as const) {
      expect(limited(service).hint).toContain('--requests-per-second N');
      expect(limited(service).hint).not.toContain('requestsPerSecond');
    }
  });
});
