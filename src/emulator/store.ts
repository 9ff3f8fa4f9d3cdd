import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { lock } from 'proper-lockfile';
import type { Long } from './ids.js';

/**
 * The emulator's whole state, and its persistence: one JSON file written atomically
 * (a temporary file, then rename) with writes serialized and coalesced, so a crash never
 * leaves half a file and a burst of changes costs a few writes, not one per change.
 *
 * One emulator per state file at a time: each keeps its state in memory and writes all of it,
 * so two processes sharing the file would each overwrite the other's changes (the last write
 * wins). An emulator holds the file's lock (proper-lockfile: `<file>.lock`, a folder made
 * atomically and refreshed while held) from opening to closing; another one waits for it, a
 * bounded time, then stops with StateFileBusyError. A lock per change with the state reloaded
 * under it was the alternative: it would let two emulators share the file at once, but every
 * request would read the whole file, and what is not in the file (image jobs, the request log,
 * fault settings) could not be shared anyway.
 */
export type AudienceType = 'DISPLAY' | 'MESSAGE';
export type AudienceStatus = 'STANDBY' | 'AVAILABLE' | 'SEED_NOT_ENOUGH' | 'ERROR';
export type InclusionType = 'INCLUDE' | 'EXCLUDE';

export interface Account {
  id: number;
  name: string;
  /** Whether the emulator's access token may use this account (403 otherwise). */
  accessible: boolean;
  /** Rule 3 of the spec: adult targeting allowed. */
  adultTargeting: boolean;
}

export interface Campaign {
  id: Long;
  adAccountId: number;
  name: string;
  campaignType: string;
  goal: string;
}

export interface AdGroup {
  id: Long;
  adAccountId: number;
  campaignId: Long;
  name: string;
  status: string[];
  type: 'DISPLAY' | 'DIRECT_MESSAGE';
}

/**
 * One targetable item of an ad account (rule 9). `size` feeds populationScore; an INCLUDE of
 * an item smaller than 1,000 makes the audience SEED_NOT_ENOUGH, and any use of a `broken`
 * item makes it ERROR.
 */
interface ItemBase {
  adAccountId: number;
  name: string;
  size: number;
  broken?: boolean;
}
export interface CustomerFile extends ItemBase {
  id: number;
}
export interface Tracker extends ItemBase {
  trackId: string;
  eventCodes: string[];
}
export interface Cohort extends ItemBase {
  id: number;
}
export interface Profile extends ItemBase {
  profileId: string;
}
export interface FriendGroup extends ItemBase {
  id: number;
}
export interface Lookalike extends ItemBase {
  id: number;
}

export interface Targetables {
  customerFiles: CustomerFile[];
  trackers: Tracker[];
  cohorts: Cohort[];
  talkChannels: Profile[];
  syncApps: Profile[];
  friendGroups: FriendGroup[];
  /** Absent in a state written before lookalikes were modelled: none. */
  lookalikes?: Lookalike[];
}

export interface Company {
  id: number;
  businessRegistrationNumber: string;
  name: string;
  representationName: string;
  businessCategory: string;
  businessItem: string;
  address: { zipCode: string; baseAddress: string; detailAddress: string };
}

export interface CustomerFileMember {
  customerFileId: number;
  inclusionType: InclusionType;
}
/** A tracker member, stored in the shape it was taken in: with retentionDays, or with the real service's terms. */
export type TrackerMember = { trackId: string; eventCode: string; inclusionType: InclusionType } & (
  { retentionDays: number } | { trackerTargetingTerms: string[] }
);
export interface CohortMember {
  cohortId: number;
  inclusionType: InclusionType;
}
export interface ProfileMember {
  profileId: string;
  inclusionType: InclusionType;
}
export interface FriendGroupMember {
  groupId: number;
  inclusionType: InclusionType;
}
export interface LookalikeMember {
  lookalikeId: number;
  inclusionType: InclusionType;
}

/** An audience as stored: regions by code only (names come from the catalogue), dates in epoch ms. */
export interface StoredAudience {
  id: Long;
  adAccountId: number;
  name: string;
  type: AudienceType;
  ageType: 'ALL' | 'NOT_ALL';
  ages: string[];
  genderType: 'ALL' | 'NOT_ALL';
  genders: string[];
  locationType: 'ALL' | 'AREA';
  locations: string[];
  depth2Locations: string[];
  depth3Locations: string[];
  ufoInterests: string[];
  ufoBusinessTypes: string[];
  customerFileTargetings: CustomerFileMember[];
  trackerTargetings: TrackerMember[];
  cohortTargetings: CohortMember[];
  talkChannelTargetings: ProfileMember[];
  syncAppTargetings: ProfileMember[];
  talkChannelGroupTargetings: FriendGroupMember[];
  /** Absent in an audience stored before lookalikes were modelled: none. */
  lookalikeTargetings?: LookalikeMember[];
  /**
   * Fields of the service beyond the spec (see EmulatorState.serviceFields), each as its JSON
   * text as taken: kept by an update that sends them, gone after one that does not.
   */
  extra?: Record<string, string>;
  createdAt: number;
  lastModifiedAt: number;
  /** Set through the test route; cleared by the next update. */
  statusOverride: AudienceStatus | null;
}

export interface Link {
  audienceId: Long;
  adGroupId: Long;
}

/** Ids are kept as their digits (see ids.ts); a state of version 1 held them as numbers, and is read as version 2. */
export interface EmulatorState {
  version: 2;
  nextAudienceId: Long;
  accounts: Account[];
  campaigns: Campaign[];
  adGroups: AdGroup[];
  targetables: Targetables;
  companies: Company[];
  audiences: StoredAudience[];
  links: Link[];
  /**
   * Names of fields the emulated service has beyond the spec and the tool (set through a test
   * route): taken in create and update bodies and answered, as a real service's later fields would be.
   */
  serviceFields?: string[];
}

export interface Store {
  state: EmulatorState;
  /**
   * Resolves once a write that includes every change made before the call is on disk. When the
   * write fails (a full disk, a read-only folder), it rejects with StateWriteError and the state
   * is back to what the file holds: the changes it carried are undone, not kept in memory.
   */
  persist(): Promise<void>;
  /** Why the state can no longer be written (the file's lock was lost), if it cannot. */
  lost(): Error | undefined;
  /** Writes what is left, then lets another emulator open the file. */
  close(): Promise<void>;
}

/** How an emulator waits for the lock of a state file another one holds. */
export interface StoreWait {
  /** How long to wait before StateFileBusyError (default 60 s; 0 = not at all). */
  waitMs?: number | undefined;
  /** Called once, when the lock is held by another and the wait (of `waitMs`) begins. */
  onWait?: ((waitMs: number) => void) | undefined;
}

/** The default wait for a state file's lock: long enough for another command to finish. */
export const STATE_WAIT_MS = 60_000;
/**
 * A lock whose holder stopped refreshing it this long ago (it was killed) is taken over: the same
 * threshold as the apply lock, so a stalled but living emulator is not mistaken for a dead one.
 */
export const STATE_STALE_MS = 30_000;
const RETRY_MS = 250;

/** How the state's text reaches the disk: fs's writeFile, or a test's that fails. */
export type WriteText = (path: string, text: string) => Promise<void>;

/**
 * Opens the state file (seeding and writing it when absent) or keeps state in memory when no
 * path is given. A file that exists but cannot be read as a state is an error naming the file:
 * silently reseeding would throw away someone's data. The file's lock is held until `close`.
 */
export async function openStore(
  path: string | undefined,
  seed: () => EmulatorState,
  wait: StoreWait = {},
  writeState: WriteText = writeText,
): Promise<Store> {
  if (path === undefined) {
    const memory: Store = {
      state: seed(),
      persist: async () => undefined,
      lost: () => undefined,
      close: async () => undefined,
    };
    return memory;
  }
  await mkdir(dirname(path), { recursive: true });
  let lostLock: Error | undefined;
  const release = await lockStateFile(path, wait, (error) => {
    lostLock = new StateFileError(
      `the lock of the emulator state file ${path} was taken by another process; nothing more is written (${error.message})`,
      { cause: error },
    );
  });
  let store: Store;
  try {
    await removeLeftoverWrites(path);
    store = await openLocked(path, seed, () => lostLock, writeState);
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  const close = store.close;
  store.close = async () => {
    try {
      await close();
    } finally {
      await release().catch(() => undefined);
    }
  };
  return store;
}

/**
 * The store of a state file this process holds the lock of. Memory is never ahead of the file
 * once a write is done: a failed write puts the state back to the last one written, so no
 * client finds (by a list, or a retry) a change that was answered as failed, and no id is given
 * out twice. The write queued behind it fails too, since its changes were made on the state
 * put back.
 */
async function openLocked(
  path: string,
  seed: () => EmulatorState,
  lost: () => Error | undefined,
  writeState: WriteText,
): Promise<Store> {
  const existing = await readState(path);
  let written = existing?.text;
  let counter = 0;
  let chain: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  let undone: StateWriteError | undefined;
  const putBack = () => {
    if (written !== undefined) store.state = withIdsAsText(JSON.parse(written) as EmulatorState);
  };
  const store: Store = {
    state: existing?.state ?? seed(),
    persist() {
      if (queued) return queued;
      const write = chain.then(async () => {
        queued = undefined;
        // Once another process holds the file, a write from here would overwrite its changes.
        const reason = lost();
        if (reason) throw reason;
        if (undone) {
          const failed = undone;
          undone = undefined;
          putBack();
          throw failed;
        }
        const text = stateText(store.state);
        const tmp = `${path}.${process.pid}.${++counter}.tmp`;
        try {
          await writeState(tmp, text);
          await rename(tmp, path);
          written = text;
        } catch (error) {
          await unlink(tmp).catch(() => undefined);
          const failed = new StateWriteError(path, error);
          putBack();
          if (queued) undone = failed;
          throw failed;
        }
      });
      queued = write;
      chain = write.catch(() => undefined);
      return write;
    },
    lost,
    // Every change answered was written before its answer (or undone); once the lock is lost,
    // nothing more is. A state the file already holds is not written again, so a folder that
    // became read-only does not fail the close of an emulator that has nothing left to write.
    async close() {
      if (lost()) return;
      await chain;
      if (stateText(store.state) !== written) await store.persist();
    },
  };
  if (!existing) await store.persist();
  return store;
}

function writeText(path: string, text: string): Promise<void> {
  return writeFile(path, text, 'utf8');
}

/** The state as the file holds it. */
function stateText(state: EmulatorState): string {
  return JSON.stringify(state, null, 1) + '\n';
}

/**
 * Takes the state file's lock: at once when it is free (or stale), else after `onWait`, trying
 * every 250 ms until `waitMs` have passed. Returns the release.
 */
async function lockStateFile(
  path: string,
  wait: StoreWait,
  onCompromised: (error: Error) => void,
): Promise<() => Promise<void>> {
  const options = { realpath: false, stale: STATE_STALE_MS, onCompromised };
  try {
    return await lock(path, { ...options, retries: 0 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
  }
  const waitMs = wait.waitMs ?? STATE_WAIT_MS;
  if (waitMs > 0) {
    wait.onWait?.(waitMs);
    const retries = Math.ceil(waitMs / RETRY_MS);
    try {
      return await lock(path, {
        ...options,
        retries: { retries, factor: 1, minTimeout: RETRY_MS, maxTimeout: RETRY_MS },
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    }
  }
  throw new StateFileBusyError(path, waitMs);
}

/**
 * Removes the temporary files of writes that never finished: `<file>.<pid>.<n>.tmp` of a process
 * that is gone (killed during a write). Called under the lock. A file of a living process is
 * kept, since it may still be renamed into place; this process's own pid is the exception: under
 * the lock it has written nothing yet, so such a file is an earlier process's that had the same
 * pid (every run of a container often gets the same one).
 */
async function removeLeftoverWrites(path: string): Promise<void> {
  const folder = dirname(path);
  const prefix = `${basename(path)}.`;
  for (const name of await readdir(folder)) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(\d+)\.\d+\.tmp$/.exec(name.slice(prefix.length));
    const pid = Number(match?.[1]);
    if (!match || !Number.isSafeInteger(pid) || pid <= 0) continue;
    if (pid !== process.pid && isAlive(pid)) continue;
    await unlink(join(folder, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

/** Whether a process with this pid exists (one of another user's counts: it cannot be signalled, but lives). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Another emulator holds the state file's lock, and did not let it go within the wait. */
export class StateFileBusyError extends Error {
  override name = 'StateFileBusyError';
  /** After how long a lock whose holder stopped refreshing it is taken over. */
  readonly staleMs = STATE_STALE_MS;
  constructor(
    readonly path: string,
    readonly waitedMs: number,
  ) {
    super(`another process is using the emulator state file ${path} (it holds ${path}.lock)`);
  }
}

/** The state file cannot be used as it is: its owner repairs or deletes it. */
export class StateFileError extends Error {
  override name = 'StateFileError';
}

/** A write of the state failed (a full disk, a read-only folder): the changes it carried are undone. */
export class StateWriteError extends StateFileError {
  override name = 'StateWriteError';
  constructor(path: string, cause: unknown) {
    super(
      `the emulator could not store its state in ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

async function readState(path: string): Promise<{ state: EmulatorState; text: string } | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read the emulator state file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StateFileError(`the emulator state file ${path} is corrupt (not JSON: ${(error as Error).message})`, {
      cause: error,
    });
  }
  const problem = shapeProblem(parsed);
  if (problem) throw new StateFileError(`the emulator state file ${path} is corrupt (${problem})`);
  return { state: withIdsAsText(parsed as EmulatorState), text };
}

/** A state of version 1 (ids as numbers) as version 2: every id as its digits. */
function withIdsAsText(state: EmulatorState): EmulatorState {
  if ((state.version as number) === 2) return state;
  return {
    ...state,
    version: 2,
    nextAudienceId: String(state.nextAudienceId),
    campaigns: state.campaigns.map((campaign) => ({ ...campaign, id: String(campaign.id) })),
    adGroups: state.adGroups.map((adGroup) => ({
      ...adGroup,
      id: String(adGroup.id),
      campaignId: String(adGroup.campaignId),
    })),
    audiences: state.audiences.map((audience) => ({ ...audience, id: String(audience.id) })),
    links: state.links.map((link) => ({ audienceId: String(link.audienceId), adGroupId: String(link.adGroupId) })),
  };
}

const arrayKeys = ['accounts', 'campaigns', 'adGroups', 'companies', 'audiences', 'links'] as const;
const targetableKeys = ['customerFiles', 'trackers', 'cohorts', 'talkChannels', 'syncApps', 'friendGroups'] as const;

function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const record = value as Record<string, unknown>;
  if (record['version'] !== 1 && record['version'] !== 2)
    return `unsupported version ${JSON.stringify(record['version'])}`;
  if (!isStoredId(record['nextAudienceId'])) return 'nextAudienceId is not an integer';
  for (const key of arrayKeys) if (!Array.isArray(record[key])) return `${key} is not an array`;
  const targetables = record['targetables'];
  if (typeof targetables !== 'object' || targetables === null) return 'targetables is not an object';
  for (const key of targetableKeys) {
    if (!Array.isArray((targetables as Record<string, unknown>)[key])) return `targetables.${key} is not an array`;
  }
  for (const audience of record['audiences'] as unknown[]) {
    if (typeof audience !== 'object' || audience === null || !isStoredId((audience as { id?: unknown }).id)) {
      return 'an audience has no integer id';
    }
  }
  return undefined;
}

/** An id as a state file holds it: digits (version 2) or a number (version 1). */
function isStoredId(value: unknown): boolean {
  return Number.isSafeInteger(value) || (typeof value === 'string' && /^[1-9][0-9]*$/.test(value));
}
