import type { DesiredState, LiveState } from '../model/index.js';
import type { AccountReader } from './account-reader.js';
import { planAccount, type Plan, type PlanBase, type PlanOptions, type PlanScope } from '../plan/index.js';
import { readBases } from './base-files.js';
import { cachedReader } from './detail-cache.js';
import { listEarly } from './early-list.js';
import { OPERATION_KINDS_IN_ORDER } from './kinds/index.js';
import type { KindOperations, KindServices, ReadContext } from './kinds/kind.js';
import { accountFileClashes, imageHomeIndex, mergeAccountFiles, type AccountFile } from './account-files.js';
import { readValidDesiredStates } from './validate.js';

export type { AccountReader } from './account-reader.js';

export interface PlannedAccount {
  /** The file the account's images are planned beside: its one file, or of several, the one declaring the images. */
  file: string;
  /** Every file that declares the account, as given. */
  files: string[];
  /** The account's desired state: of several files, all of them as one (see mergeAccountFiles). */
  desired: DesiredState;
  plan: Plan;
}

export interface PlanDeps {
  cwd: string;
  /** The account's reader; `requestsPerSecond`, its file's rate, paces its requests (see Services.audiences). */
  reader: (adAccountId: number, requestsPerSecond?: number) => AccountReader;
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
  /** `apply -f --auto-approve`: the plans are applied at once, so their estimates count no check. */
  appliedAtOnce?: boolean | undefined;
  /** The files already read and validated (apply reads them first, to lock their accounts before planning). */
  read?: AccountFile[] | undefined;
  /**
   * The reader given already hands out the lists started by `listEarly` (the command asked for them before loading
   * this code): none is started again.
   */
  listedEarly?: boolean | undefined;
}

/**
 * Reads the desired files, fails with every config problem at once, then plans each account (with a base, its files at
 * it too): the files of an account declared in several as one, each change saying which file it comes from.
 */
export async function planFiles(files: string[], options: PlanFilesOptions, deps: PlanDeps): Promise<PlannedAccount[]> {
  // Each account's list leaves while its files are checked (see listEarly). Files read already (an apply's) are listed
  // by the reader the apply gives, under their accounts' locks: early or now (see runApply).
  const early =
    options.read || options.listedEarly ? deps : { ...deps, reader: await listEarly(files, deps.cwd, deps.reader) };
  const accounts = byAccount(options.read ?? (await readValidDesiredStates(files, deps.cwd)));
  const bases =
    options.base === undefined
      ? []
      : await Promise.all(accounts.map((account) => readAccountBase(account, options.base as string, deps.cwd)));
  return Promise.all(
    accounts.map(async (account, index) => {
      const { desired, home: file } = mergeAccountFiles(account);
      const planned = await planAccountFile(file, desired, bases[index], options, early);
      const plan = account.length === 1 ? planned : withFiles(planned, account, file);
      return { file, files: account.map((entry) => entry.file), desired, plan };
    }),
  );
}

/** One account's desired state planned, its images beside `file`. */
async function planAccountFile(
  file: string,
  desired: DesiredState,
  base: PlanBase | undefined,
  options: PlanFilesOptions,
  deps: PlanDeps,
): Promise<Plan> {
  const planOptions: PlanOptions = {
    allowMassDelete: options.allowMassDelete,
    base,
    scope: options.scope,
    requestsPerSecond: options.requestsPerSecond,
    appliedAtOnce: options.appliedAtOnce,
  };
  const context = { services: deps.services, file, cwd: deps.cwd };
  const own = deps.reader(desired.adAccountId, desired.requestsPerSecond);
  if (!deps.cache) return planDesired(desired, planOptions, own, context);
  const reader = cachedReader(own, deps.cwd, {
    service: deps.cache.service,
    adAccountId: desired.adAccountId,
  });
  const plan = await planDesired(desired, planOptions, reader, context);
  await reader.save();
  return plan;
}

/** The files grouped by the ad account they declare, each account where its first file is, its files in order. */
function byAccount(states: AccountFile[]): AccountFile[][] {
  const accounts = new Map<number, AccountFile[]>();
  for (const state of states) {
    const account = accounts.get(state.desired.adAccountId);
    if (account) account.push(state);
    else accounts.set(state.desired.adAccountId, [state]);
  }
  return [...accounts.values()];
}

/**
 * An account's files at the base ref, as one (see PlanBase): those it holds, merged as the files are; absent when it
 * holds none of them (every change is the change's own); a file it holds but cannot plan makes the base one that
 * cannot be planned, and so do files there that could not be one account.
 */
async function readAccountBase(account: AccountFile[], ref: string, cwd: string): Promise<PlanBase> {
  const bases = await readBases(account, ref, cwd);
  // The images' lock at the base is the one beside the file that holds the account's images (see mergeAccountFiles).
  const imageLock = bases[imageHomeIndex(account)]?.imageLock;
  const lock = imageLock === undefined ? {} : { imageLock };
  for (const [index, base] of bases.entries())
    if ('problem' in base)
      return {
        ref,
        problem: account.length === 1 ? base.problem : `${account[index]?.file}: ${base.problem}`,
        ...lock,
      };
  const present = account.flatMap((entry, index) => {
    const base = bases[index];
    return base && 'desired' in base ? [{ file: entry.file, desired: base.desired }] : [];
  });
  if (present.length === 0) return { ref, absent: true, ...lock };
  const clash = accountFileClashes(present)[0];
  if (clash)
    return {
      ref,
      problem: `its files there are not one account: ${clash.file}: ${clash.message(clash.other)}`,
      ...lock,
    };
  return { ref, desired: mergeAccountFiles(present).desired, ...lock };
}

/**
 * The plan of an account declared in several files, each change with the file it comes from: the one declaring the
 * audience it makes or changes (an unlink, its audience's), the images' file for an image. A delete that prune makes
 * is declared by no file, and neither are its unlinks.
 */
function withFiles(plan: Plan, account: AccountFile[], imageFile: string): Plan {
  const declaring = new Map<string, string>();
  for (const { file, desired } of account) for (const audience of desired.audiences) declaring.set(audience.key, file);
  const deleted = new Set(plan.changes.flatMap((change) => (change.action === 'delete' ? [change.id] : [])));
  const changes = plan.changes.map((change) => {
    if (change.action === 'delete' || (change.action === 'unlink' && deleted.has(change.id))) return change;
    const file = change.kind === 'image' ? imageFile : declaring.get(change.name);
    return file === undefined ? change : { ...change, file };
  });
  return { ...plan, changes };
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
