import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processIo } from './process-io.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('processIo', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes what one turn of the event loop queued at its end, a write per run of one stream, in order', async () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((text) => writes.push(`out:${String(text)}`) > 0);
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => writes.push(`err:${String(text)}`) > 0);
    const io = processIo();
    io.stdout('plan\n');
    io.stdout('more\n');
    io.stderr('ok 1\n');
    io.stderr('ok 2\n');
    io.stdout('summary\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['out:plan\nmore\n', 'err:ok 1\nok 2\n', 'out:summary\n']);
    io.stderr('ok 3\n');
    await nextTurn();
    expect(writes.at(-1)).toBe('err:ok 3\n');
    expect(writes).toHaveLength(4);
  });

  it('loses nothing when the process exits before the turn ends', async () => {
    // The build of this module (the tests' global setup builds dist/), in a process of its own.
    const module = fileURLToPath(new URL('../../dist/cli/process-io.js', import.meta.url));
    const script = `const { processIo } = await import(${JSON.stringify(module)}); const io = processIo(); io.stdout('to stdout\\n'); io.stderr('to stderr\\n'); process.exit(3);`;
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], (error, out, err) =>
        resolve({ code: error ? (error.code as number) : 0, stdout: out, stderr: err }),
      );
    });
    expect({ code, stdout, stderr }).toEqual({ code: 3, stdout: 'to stdout\n', stderr: 'to stderr\n' });
  });
});
