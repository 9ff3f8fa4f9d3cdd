import { INTERRUPTED_EXIT_CODE } from '../errors.js';
import type { ApplyInterrupts } from '../operations/apply.js';
import type { Io } from './io.js';

/**
 * Ctrl-C (SIGINT) or SIGTERM during an apply, both alike. Before any change is made (while
 * planning, at the prompt) it stops the command at once: nothing was changed. Once changes
 * are being made, the first asks the apply to start no more, and the services to send no
 * request that has not left yet, and to finish those in flight, so that its summary can say
 * what was done; a second stops the process at once, after the apply has said what is known
 * (what was in flight is then unknown). Either way the exit code is 130. The apply lock is
 * removed on the way out (proper-lockfile releases its locks when the process exits).
 */
export function interruptible(io: Pick<Io, 'stderr'>, stopStarting: () => void): () => ApplyInterrupts {
  return () => {
    const controller = new AbortController();
    let stopNow: (() => void) | undefined;
    const onSignal = (): void => {
      if (stopNow === undefined) {
        io.stderr('\nInterrupted: nothing was changed.\n');
        process.exit(INTERRUPTED_EXIT_CODE);
      }
      if (controller.signal.aborted) {
        io.stderr('\nStopped at once: what was in flight is unknown.\n');
        stopNow();
        process.exit(INTERRUPTED_EXIT_CODE);
      }
      controller.abort();
      // The requests queued in the transport never leave; those on the wire finish.
      stopStarting();
      io.stderr('\nInterrupted: the changes in flight are finishing and no other starts. Interrupt again to stop at once (what is in flight is then unknown).\n');
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    return {
      signal: controller.signal,
      applying: (say) => {
        stopNow = say;
      },
      release: () => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      },
    };
  };
}
