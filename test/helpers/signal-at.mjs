/**
 * Loaded before the command (`node --import`) by the interrupt tests: the process sends itself
 * its signals at exact moments, so that a test of "a signal just as …" does not depend on when
 * another process's signal lands. AUDIENCES_TEST_SIGNALS lists the moments as JSON, fired in
 * order, each once:
 *   {"signal": "SIGINT", "stderr": "ok      create"}  right after a write to stderr that holds the text
 *   {"signal": "SIGTERM", "stdout": "Apply interrupted"}  right after a write to stdout that holds it
 *   {"signal": "SIGTERM", "exiting": true}  as the process exits (process.exit): the exit is held
 *     a moment, long enough for the signal to be handled, as if it had come just before
 */
const moments = JSON.parse(process.env.AUDIENCES_TEST_SIGNALS ?? '[]');

/** How long an exit waits for the signal sent as it began. */
const EXIT_HELD_MS = 300;

function fire() {
  const next = moments.shift();
  process.kill(process.pid, next.signal);
}

for (const stream of ['stdout', 'stderr']) {
  const target = process[stream];
  const write = target.write.bind(target);
  target.write = (chunk, ...rest) => {
    const done = write(chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const wanted = moments[0]?.[stream];
    if (typeof wanted === 'string' && text.includes(wanted)) fire();
    return done;
  };
}

const exit = process.exit.bind(process);
process.exit = (code) => {
  if (moments[0]?.exiting !== true) return exit(code);
  fire();
  setTimeout(() => exit(code), EXIT_HELD_MS);
};
