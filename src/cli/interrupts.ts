import type { Io } from './io.js';

/**
 * Ctrl-C (SIGINT) or SIGTERM during an apply: the first asks the apply to start no more
 * changes, and the services to send no request that has not left yet, and to finish those in flight, so that its summary can say what was done; a second
 * stops the process at once (exit 130), leaving what was in flight unknown. The handlers are
 * in place only while changes are being applied: before that, nothing was changed, and an
 * interrupt stops the command as usual.
 */
export function interruptible(io: Pick<Io, 'stderr'>, stopStarting: () => void): () => { signal: AbortSignal; release(): void } {
  return () => {
    const controller = new AbortController();
    const onSignal = (): void => {
      if (controller.signal.aborted) process.exit(130);
      controller.abort();
      // The requests queued in the transport never leave; those on the wire finish.
      stopStarting();
      io.stderr('\nInterrupted: the changes in flight are finishing and no other starts. Interrupt again to stop at once (what is in flight is then unknown).\n');
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    return {
      signal: controller.signal,
      release: () => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      },
    };
  };
}
