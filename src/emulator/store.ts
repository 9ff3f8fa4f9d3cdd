import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The emulator's whole state, and its persistence: one JSON file written atomically
 * (a temporary file, then rename) with writes serialized and coalesced, so a crash never
 * leaves half a file and a burst of changes costs a few writes, not one per change.
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
  id: number;
  adAccountId: number;
  name: string;
  campaignType: string;
  goal: string;
}

export interface AdGroup {
  id: number;
  adAccountId: number;
  campaignId: number;
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

export interface Targetables {
  customerFiles: CustomerFile[];
  trackers: Tracker[];
  cohorts: Cohort[];
  talkChannels: Profile[];
  syncApps: Profile[];
  friendGroups: FriendGroup[];
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
export interface TrackerMember {
  trackId: string;
  eventCode: string;
  retentionDays: number;
  inclusionType: InclusionType;
}
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

/** An audience as stored: regions by code only (names come from the catalogue), dates in epoch ms. */
export interface StoredAudience {
  id: number;
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
  createdAt: number;
  lastModifiedAt: number;
  /** Set through the test route; cleared by the next update. */
  statusOverride: AudienceStatus | null;
}

export interface Link {
  audienceId: number;
  adGroupId: number;
}

export interface EmulatorState {
  version: 1;
  nextAudienceId: number;
  accounts: Account[];
  campaigns: Campaign[];
  adGroups: AdGroup[];
  targetables: Targetables;
  companies: Company[];
  audiences: StoredAudience[];
  links: Link[];
}

export interface Store {
  state: EmulatorState;
  /** Resolves once a write that includes every change made before the call is on disk. */
  persist(): Promise<void>;
  replace(state: EmulatorState): Promise<void>;
}

/**
 * Opens the state file (seeding and writing it when absent) or keeps state in memory when no
 * path is given. A file that exists but cannot be read as a state is an error naming the file:
 * silently reseeding would throw away someone's data.
 */
export async function openStore(path: string | undefined, seed: () => EmulatorState): Promise<Store> {
  if (path === undefined) {
    const memory: Store = {
      state: seed(),
      persist: async () => undefined,
      replace: async (state) => {
        memory.state = state;
      },
    };
    return memory;
  }
  const existing = await readState(path);
  let counter = 0;
  let chain: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  const store: Store = {
    state: existing ?? seed(),
    persist() {
      if (queued) return queued;
      const write = chain.then(async () => {
        queued = undefined;
        const text = JSON.stringify(store.state, null, 1) + '\n';
        const tmp = `${path}.${process.pid}.${++counter}.tmp`;
        await writeFile(tmp, text, 'utf8');
        await rename(tmp, path);
      });
      queued = write;
      chain = write.catch(() => undefined);
      return write;
    },
    async replace(state) {
      store.state = state;
      await store.persist();
    },
  };
  await mkdir(dirname(path), { recursive: true });
  if (!existing) await store.persist();
  return store;
}

/** The state file cannot be used as it is: its owner repairs or deletes it. */
export class StateFileError extends Error {
  override name = 'StateFileError';
}

async function readState(path: string): Promise<EmulatorState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read the emulator state file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StateFileError(`the emulator state file ${path} is corrupt (not JSON: ${(error as Error).message})`, { cause: error });
  }
  const problem = shapeProblem(parsed);
  if (problem) throw new StateFileError(`the emulator state file ${path} is corrupt (${problem})`);
  return parsed as EmulatorState;
}

const arrayKeys = ['accounts', 'campaigns', 'adGroups', 'companies', 'audiences', 'links'] as const;
const targetableKeys = ['customerFiles', 'trackers', 'cohorts', 'talkChannels', 'syncApps', 'friendGroups'] as const;

function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const record = value as Record<string, unknown>;
  if (record['version'] !== 1) return `unsupported version ${JSON.stringify(record['version'])}`;
  if (!Number.isSafeInteger(record['nextAudienceId'])) return 'nextAudienceId is not an integer';
  for (const key of arrayKeys) if (!Array.isArray(record[key])) return `${key} is not an array`;
  const targetables = record['targetables'];
  if (typeof targetables !== 'object' || targetables === null) return 'targetables is not an object';
  for (const key of targetableKeys) {
    if (!Array.isArray((targetables as Record<string, unknown>)[key])) return `targetables.${key} is not an array`;
  }
  for (const audience of record['audiences'] as unknown[]) {
    if (typeof audience !== 'object' || audience === null || !Number.isSafeInteger((audience as { id?: unknown }).id)) {
      return 'an audience has no integer id';
    }
  }
  return undefined;
}
