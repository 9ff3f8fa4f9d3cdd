import type { Services } from '../api/services.js';
import type { Connection } from '../operations/connection.js';
import type { GlobalOptions } from './command.js';
import type { Io } from './io.js';

/**
 * Loads the code of the connections (the HTTP client is the largest part of a command): a
 * command calls it early, so that the loading overlaps its own.
 */
export function loadServices() {
  return Promise.all([import('../operations/connection.js'), import('../api/services.js')]);
}

/**
 * Opens the services a command talks to (the in-process emulator with --emulator, else the
 * environment), runs the command's work, and always closes connections and the emulator.
 */
export async function withServices<T>(
  args: GlobalOptions,
  io: Io,
  work: (services: Services, connection: Connection) => Promise<T>,
): Promise<T> {
  const [{ openConnection }, { createServices }] = await loadServices();
  const connection = await openConnection({
    emulator: args.emulator,
    env: io.env,
    cwd: io.cwd,
    notice: (line) => io.stderr(`${line}\n`),
  });
  const services = createServices(connection.endpoints, {
    concurrency: args.concurrency,
    maxConcurrency: args.maxConcurrency,
    requestsPerSecond: args.requestsPerSecond,
    verbose: args.verbose,
    log: (line) => io.stderr(`${line}\n`),
  });
  try {
    return await work(services, connection);
  } finally {
    await services.close();
    await connection.close();
  }
}
