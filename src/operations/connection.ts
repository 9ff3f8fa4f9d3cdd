import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathSettings } from '../api/path-settings.js';
import type { Endpoints } from '../api/services.js';
import type { EmulatorOptions, RunningEmulator } from '../emulator/server.js';
import { AppError } from '../errors.js';
import { registerSecret } from '../secrets.js';

export interface Connection {
  endpoints: Endpoints;
  /** Whether this is the built-in emulator (the demo and tests), for messages. */
  emulated: boolean;
  close(): Promise<void>;
}

/** The in-process emulator keeps its state here, so plan → apply → plan works across runs. */
export const EMULATOR_STATE_FILE = join('.audiences', 'emulator-state.json');

/**
 * `--emulator` starts the built-in emulator in this process (state under `.audiences/`), serving
 * the paths and scheme the environment names (IMAGEGEN_MODEL_FAMILY, IMAGEGEN_AUTH_SCHEME,
 * ADS_COMPANY_PATH) as the real service would; otherwise the services are found through the
 * environment (DESIGN.md).
 *
 * The emulator holds its state file's lock from here until `close`, for the whole command: a
 * plan, import or apply started meanwhile in the same folder (or an `audiences emulator --state`
 * serving that file) waits for it, and then loads the state with every change made before. An
 * apply therefore takes the state's lock before the apply lock, so a second `--emulator` apply
 * waits its turn instead of being refused. `notice` says that a command is waiting.
 */
export async function openConnection(options: {
  emulator: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  notice?: (line: string) => void;
}): Promise<Connection> {
  const { env } = options;
  // Registered first, so that no message shows them, not even one about a setting they were pasted into.
  registerSecret(env.ADS_ACCESS_TOKEN);
  registerSecret(env.IMAGEGEN_API_KEY);
  if (options.emulator) {
    // The emulator serves the paths the environment names, so the settings are checked before it starts.
    const paths = pathSettings(env);
    await mkdir(join(options.cwd, '.audiences'), { recursive: true });
    const emulator = await startLocalEmulator({
      port: 0,
      ...paths,
      statePath: join(options.cwd, EMULATOR_STATE_FILE),
      onStateWait: (waitMs) =>
        options.notice?.(
          `Waiting for another command that uses the emulator's state (${EMULATOR_STATE_FILE}), up to ${seconds(waitMs)}…`,
        ),
    });
    return {
      endpoints: {
        apiUrl: emulator.url,
        companyUrl: emulator.url,
        imageUrl: emulator.url,
        accessToken: emulator.accessToken,
        appKey: emulator.appKey,
        ...paths,
      },
      emulated: true,
      close: () => emulator.close(),
    };
  }
  const apiUrl = env.ADS_API_URL;
  if (!apiUrl) {
    throw new AppError({
      code: 'NO_SERVICE',
      source: 'user',
      summary: 'no service to talk to: neither --emulator nor ADS_API_URL is set',
      hint: 'pass --emulator to use the built-in emulator, or set ADS_API_URL (and ADS_ACCESS_TOKEN) to reach the real service',
    });
  }
  return {
    endpoints: {
      apiUrl,
      companyUrl: env.ADS_COMPANY_URL || undefined,
      imageUrl: env.IMAGEGEN_API_URL || undefined,
      accessToken: env.ADS_ACCESS_TOKEN || undefined,
      appKey: env.IMAGEGEN_API_KEY || undefined,
      modelFamily: env.IMAGEGEN_MODEL_FAMILY,
      imageAuthScheme: env.IMAGEGEN_AUTH_SCHEME,
      companyPath: env.ADS_COMPANY_PATH,
    },
    emulated: false,
    close: async () => undefined,
  };
}

/**
 * Starts the built-in emulator; a state file it cannot use is the user's to repair or delete, and
 * one held by another process past the wait is the user's to let go.
 */
export async function startLocalEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const { startEmulator, StateFileBusyError, StateFileError } = await import('../emulator/server.js');
  try {
    return await startEmulator(options);
  } catch (error) {
    if (error instanceof StateFileBusyError) {
      throw new AppError({
        code: 'EMULATOR_BUSY',
        source: 'user',
        summary: `${error.message}, and did not let it go within ${seconds(error.waitedMs)}`,
        hint: `let the other command finish (an apply waiting for its approval holds it too) and run this one again; an \`audiences emulator --state\` serving this file holds it until stopped (point the tool at that server with ADS_API_URL instead of --emulator); a lock left by a killed process is taken over ${seconds(error.staleMs)} after it stopped`,
        cause: error,
      });
    }
    if (!(error instanceof StateFileError)) throw error;
    throw new AppError({
      code: 'EMULATOR_STATE',
      source: 'user',
      summary: error.message,
      hint: 'repair the file, or delete it to start again from the seeded state',
      cause: error,
    });
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
