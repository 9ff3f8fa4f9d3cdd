import { afterEach, describe, expect, it, vi } from 'vitest';
import { interruptible } from './interrupts.js';

/** Lets queued promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('interruptible', () => {
  const exits: number[] = [];
  const listening = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  /** Once a signal came, released handlers stay for the rest of the process: a test takes them off itself. */
  const removeSignalHandlers = (): void => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal))
        if (!listening[signal].includes(listener)) process.off(signal, listener);
    }
  };
  afterEach(() => {
    removeSignalHandlers();
    vi.restoreAllMocks();
    exits.length = 0;
  });
  const handled = () => {
    vi.spyOn(process, 'exit').mockImplementation(
      ((code?: number) => void exits.push(code ?? 0)) as typeof process.exit,
    );
    let stderr = '';
    let stops = 0;
    const interrupts = interruptible({ stderr: (text) => void (stderr += text) }, () => void (stops += 1));
    return { interrupts, stderr: () => stderr, stops: () => stops };
  };

  it('before any change, stops with 130 once the lock being taken is taken (so that it is let go on the way out), saying nothing was changed', async () => {
    const { interrupts, stderr } = handled();
    let taken = (): void => undefined;
    interrupts.settleFirst(new Promise<void>((resolve) => (taken = resolve)));
    try {
      process.emit('SIGTERM');
      process.emit('SIGINT');
      await settle();
      expect(exits).toEqual([]);
      taken();
      await settle();
      expect(exits).toEqual([130]);
      expect(stderr()).toBe('\nInterrupted: nothing was changed.\n');
    } finally {
      interrupts.release();
    }
  });

  it('during the changes, the first signal stops new requests and lets the apply finish; the second says what is known, then stops with 130', () => {
    const { interrupts, stderr, stops } = handled();
    const said: string[] = [];
    interrupts.applying(() => said.push('what is known'));
    try {
      process.emit('SIGINT');
      expect({ aborted: interrupts.signal.aborted, stops: stops(), exits: [...exits] }).toEqual({
        aborted: true,
        stops: 1,
        exits: [],
      });
      expect(stderr()).toContain('Interrupted: the changes in flight are finishing and no other starts.');
      process.emit('SIGTERM');
      expect(said).toEqual(['what is known']);
      expect(exits).toEqual([130]);
      expect(stderr()).toContain('Stopped at once: what was in flight is unknown.');
    } finally {
      interrupts.release();
    }
  });

  it('once the apply has said its summary, a signal stops with 130 and says nothing more: one summary per apply', () => {
    const { interrupts, stderr } = handled();
    const said: string[] = [];
    interrupts.applying(() => said.push('what is known'));
    try {
      process.emit('SIGINT');
      interrupts.said();
      process.emit('SIGTERM');
      expect({ said, exits: [...exits] }).toEqual({ said: [], exits: [130] });
      expect(stderr()).not.toContain('Stopped at once');
    } finally {
      interrupts.release();
    }
  });

  it('keeps the signals after the first once released: a later one, however late, stops with 130, not by the signal', () => {
    const { interrupts } = handled();
    interrupts.applying(() => undefined);
    const before = process.listenerCount('SIGTERM');
    process.emit('SIGINT');
    interrupts.release();
    expect(process.listenerCount('SIGTERM')).toBe(before);
    process.emit('SIGTERM');
    expect(exits).toEqual([130]);
  });

  it('lets go of the signals once released', () => {
    const { interrupts } = handled();
    const before = process.listenerCount('SIGINT') + process.listenerCount('SIGTERM');
    interrupts.release();
    expect(process.listenerCount('SIGINT') + process.listenerCount('SIGTERM')).toBe(before - 2);
  });
});
