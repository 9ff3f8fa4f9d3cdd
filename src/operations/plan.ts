import type { ConfigIssue } from '../config/index.js';
import { ConfigError } from '../config/index.js';
import type { DesiredState, LiveState } from '../model/index.js';
import type { AccountReader } from './account-reader.js';
import { planAccount, type Plan, type PlanOptions, type PlanScope } from '../plan/index.js';
import { readBases } from './base-files.js';
import { cachedReader } from './detail-cache.js';
import { OPERATION_KINDS_IN_ORDER } from './kinds/index.js';
import type { KindOperations, KindServices, ReadContext } from './kinds/kind.js';
import { validateFiles } from './validate.js';

export type { AccountReader } from './account-reader.js';

export interface PlannedAccount {
  file: string;
  desired: DesiredState;
  plan: Plan;
}

export interface PlanDeps {
  cwd: string;
  reader: (adAccountId: number) => AccountReader;
  /**
   * Keep single reads under .audiences/cache/ and reuse those whose modification date is
   * unchanged, for this audience service (see cacheService).
   */
  cache?: { service: string };
  /** The services besides the audience API, each opened by the kind that needs it. */
  services?: Partial<KindServices>;
}

/** What `plan` is asked: the guard's override, a git ref whose files are planned too (see readBases), a scope. */
export interface PlanFilesOptions {
  allowMassDelete: boolean;
  base?: string | undefined;
  /** `--target`, `--kind`, `--exclude`: each file's plan is partial, within it. */
  scope?: PlanScope | undefined;
  /** `--requests-per-second`: each plan's estimate says the least time its apply takes at it. */
  requestsPerSecond?: number | undefined;
}

/**
 * Reads the desired files, fails with every config problem at once, then plans each account (with a base, each file at
 * it too).
 */
export async function planFiles(files: string[], options: PlanFilesOptions, deps: PlanDeps): Promise<PlannedAccount[]> {
  const desiredStates = await readValidDesiredStates(files, deps.cwd);
  const bases = options.base === undefined ? [] : await readBases(desiredStates, options.base, deps.cwd);
  return Promise.all(
    desiredStates.map(async ({ file, desired }, index) => {
      const planOptions: PlanOptions = {
        allowMassDelete: options.allowMassDelete,
        base: bases[index],
        scope: options.scope,
        requestsPerSecond: options.requestsPerSecond,
      };
      const context = { services: deps.services, file, cwd: deps.cwd };
      if (!deps.cache)
        return {
          file,
          desired,
          plan: await planDesired(desired, planOptions, deps.reader(desired.adAccountId), context),
        };
      const reader = cachedReader(deps.reader(desired.adAccountId), deps.cwd, {
        service: deps.cache.service,
        adAccountId: desired.adAccountId,
      });
      const plan = await planDesired(desired, planOptions, reader, context);
      await reader.save();
      return { file, desired, plan };
    }),
  );
}

/** The desired state of each file, or a ConfigError with every problem of every file at once. */
export async function readValidDesiredStates(
  files: string[],
  cwd: string,
): Promise<Array<{ file: string; desired: DesiredState }>> {
  const results = await validateFiles(files, { cwd });
  const issues: ConfigIssue[] = results.flatMap((result) => result.errors);
  if (issues.length > 0) throw new ConfigError(issues);
  return results.flatMap(({ file, desired }) => (desired ? [{ file, desired }] : []));
}

/**
 * Reads the live account with as few requests as the plan needs: one list, a single read
 * per managed audience, and the ad groups only where links matter. Reads run concurrently;
 * the transport bounds how many are in flight. With a base (`options.base`), it is planned
 * against the same read.
 */
export async function planDesired(
  desired: DesiredState,
  options: PlanOptions,
  reader: AccountReader,
  context: Omit<ReadContext, 'reader' | 'base'> = {},
): Promise<Plan> {
  // One read of the account for the file and its base: the base's plan needs what it reads too.
  const base = options.base && 'desired' in options.base ? options.base.desired : undefined;
  const live = await readLiveState(desired, reader, { ...context, base });
  return planAccount(desired, live, options);
}

/** What the plan needs of the account and the local files: each kind reads its share, all at once. */
export async function readLiveState(
  desired: DesiredState,
  reader: AccountReader,
  context: Omit<ReadContext, 'reader' | 'signal'> = {},
): Promise<LiveState> {
  const failed = new AbortController();
  const read = async (kind: KindOperations): Promise<Partial<LiveState>> => {
    try {
      return (await kind.read?.(desired, { reader, ...context, signal: failed.signal })) ?? {};
    } catch (error) {
      failed.abort(error);
      throw error;
    }
  };
  const parts = await Promise.all(OPERATION_KINDS_IN_ORDER.map(read));
  return Object.assign({ adAccountId: desired.adAccountId, audiences: [], details: {}, links: {} }, ...parts);
}
