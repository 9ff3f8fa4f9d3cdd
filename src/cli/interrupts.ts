import { INTERRUPTED_EXIT_CODE } from '../errors.js';
import type { ApplyInterrupts } from '../operations/apply.js';
import type { Io } from './io.js';

/**
 * Ctrl-C (SIGINT) or SIGTERM during an apply, both alike, from the moment the command starts
 * until `release`. Before any change is made (opening the services, planning, at the prompt)
 * it stops the command at once: nothing was changed (once the apply lock being taken, if it
 * is, is taken: proper-lockfile lets go of its locks as the process exits). Once changes are
 * being made, the first asks the apply to start no more, and the services to send no request
 * that has not left yet (`stopStarting`), and to finish those in flight, so that its summary
 * can say what was done; a second stops the process at once, after the apply has said what
 * is known (what was in flight is then unknown). Once the apply has said its summary
 * (`said`), a signal stops the process at once and says nothing more: nothing is in flight,
 * and a second summary would count the apply twice. Either way the exit code is 130. From the
 * first signal on, `release` keeps the handler: a later signal, however late (the command
 * returning, the process about to exit), ends the process with 130, not by the signal itself.
 */
export function interruptible(io: Pick<Io, 'stderr'>, stopStarting: () => void): ApplyInterrupts & { release(): void } {
  const controller = new AbortController();
  const settling: Array<Promise<unknown>> = [];
  let stopNow: (() => void) | undefined;
  let stopping = false;
  let said = false;
  const onSignal = (): void => {
    if (said) {
      process.exit(INTERRUPTED_EXIT_CODE);
      return;
    }
    if (stopNow === undefined) {
      if (stopping) return;
      stopping = true;
      io.stderr('\nInterrupted: nothing was changed.\n');
      void Promise.allSettled(settling).then(() => process.exit(INTERRUPTED_EXIT_CODE));
      return;
    }
    if (controller.signal.aborted) {
      io.stderr('\nStopped at once: what was in flight is unknown.\n');
      said = true;
      stopNow();
      process.exit(INTERRUPTED_EXIT_CODE);
      return;
    }
    controller.abort();
    // The requests queued in the transport never leave; those on the wire finish.
    stopStarting();
    io.stderr(
      '\nInterrupted: the changes in flight are finishing and no other starts. Interrupt again to stop at once (what is in flight is then unknown).\n',
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    settleFirst: (work) => void settling.push(work),
    applying: (say) => {
      stopNow = say;
    },
    said: () => {
      said = true;
    },
    release: () => {
      if (stopping || controller.signal.aborted) return;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
