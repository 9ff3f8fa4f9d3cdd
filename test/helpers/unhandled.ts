import { afterEach, beforeEach } from 'vitest';

/** The process's unhandled rejections during each test of the enclosing block (empty at each test's start). */
export function watchUnhandledRejections(): unknown[] {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  beforeEach(() => {
    seen.length = 0;
    process.on('unhandledRejection', listener);
  });
  afterEach(() => {
    process.off('unhandledRejection', listener);
  });
  return seen;
}
