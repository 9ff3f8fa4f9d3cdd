import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ConfigIssue } from '../config/index.js';
import { cachedReader, detailCachePath } from './detail-cache.js';
import { fileWriteError } from './file-errors.js';
import { writeFileAtomically } from './files.js';
import { validateFiles } from './validate.js';
import { ConfigError } from '../config/index.js';
import { AppError } from '../errors.js';
import type { AdGroupLink, Company, DesiredState, ImageState, LiveAudience, LiveAudienceSummary, LiveState } from '../model/index.js';
import { isApiError } from '../api/api-error.js';
import { startInTurns } from '../api/in-turns.js';
import { readImageState } from './images.js';
import { planAccount, neededReads, type Plan, type PlanOptions } from '../plan/index.js';
import { plainStyle, renderJson, renderMarkdown, renderText, type Style } from '../render/index.js';

/** What planning reads of an ad account: the list, single reads and ad-group lists. */
export interface AccountReader {
  list(): Promise<LiveAudienceSummary[]>;
  read(id: number): Promise<LiveAudience>;
  adGroups(id: number): Promise<AdGroupLink[]>;
}

export interface PlannedAccount {
  file: string;
  desired: DesiredState;
  plan: Plan;
}

export interface PlanDeps {
  cwd: string;
  reader: (adAccountId: number) => AccountReader;
  /** Keep single reads under .audiences/cache/ and reuse those whose modification date is unchanged. */
  cache?: boolean;
  /** The business lookup, for files that declare `business:`. */
  business?: (adAccountId: number) => BusinessLookup;
}

export interface BusinessLookup {
  lookup(bizNum: string): Promise<Company | null>;
}

/** What planning reads besides the audiences: the business lookup and the local images (see readImageState). */
export interface PlanContext {
  business?: BusinessLookup | undefined;
  images?: ImageState | undefined;
}

/** Reads the desired files, fails with every config problem at once, then plans each account. */
export async function planFiles(files: string[], options: PlanOptions, deps: PlanDeps): Promise<PlannedAccount[]> {
  const desiredStates = await readValidDesiredStates(files, deps.cwd);
  return Promise.all(
    desiredStates.map(async ({ file, desired }) => {
      const context: PlanContext = { business: deps.business?.(desired.adAccountId), images: await readImageState(desired, file, deps.cwd) };
      if (!deps.cache) return { file, desired, plan: await planDesired(desired, options, deps.reader(desired.adAccountId), context) };
      const reader = cachedReader(deps.reader(desired.adAccountId), detailCachePath(deps.cwd, desired.adAccountId));
      const plan = await planDesired(desired, options, reader, context);
      await reader.save();
      return { file, desired, plan };
    }),
  );
}

/** The desired state of each file, or a ConfigError with every problem of every file at once. */
export async function readValidDesiredStates(files: string[], cwd: string): Promise<Array<{ file: string; desired: DesiredState }>> {
  const results = await validateFiles(files, { cwd });
  const issues: ConfigIssue[] = results.flatMap((result) => result.errors);
  if (issues.length > 0) throw new ConfigError(issues);
  return results.flatMap(({ file, desired }) => (desired ? [{ file, desired }] : []));
}

/**
 * Reads the live account with as few requests as the plan needs: one list, a single read
 * per managed audience, and the ad groups only where links matter. Reads run concurrently;
 * the transport bounds how many are in flight.
 */
export async function planDesired(desired: DesiredState, options: PlanOptions, reader: AccountReader, context: PlanContext = {}): Promise<Plan> {
  const live = await readLiveState(desired, reader, context);
  return planAccount(desired, live, options);
}

export async function readLiveState(desired: DesiredState, reader: AccountReader, context: PlanContext = {}): Promise<LiveState> {
  const [audiences, business] = await Promise.all([reader.list(), desired.business ? lookupBusiness(desired.business.registrationNumber, context.business) : undefined]);
  const needed = neededReads(desired, audiences);
  const links: Record<string, AdGroupLink[]> = {};
  const linkReads: Promise<void>[] = [];
  let failed = false;
  const readLinks = (id: number): void => {
    if (failed) return;
    const read = reader.adGroups(id).then((adGroups) => {
      links[String(id)] = adGroups;
    });
    // Awaited below once every read is in (dropped if a read fails); until then a failure
    // must not count as unhandled.
    read.catch(() => undefined);
    linkReads.push(read);
  };
  needed.linkIds.forEach(readLinks);
  // An audience about to change needs its ad groups: they are read as soon as its read shows
  // the change, while the other reads are still in flight.
  const unreadable: Record<string, string> = {};
  const reads = await startInTurns(needed.detailIds, async (id) => {
    try {
      const detail = await reader.read(id);
      if (needed.needsLinks(id, detail)) readLinks(id);
      return detail;
    } catch (error) {
      // One audience answered in a shape the plan cannot use stops only its own plan.
      if (!isApiError(error) || error.kind !== 'invalid-response') throw error;
      unreadable[String(id)] = error.summary;
      return undefined;
    }
  }).catch((error: unknown) => {
    // The plan has failed: the reads still in flight start no more link reads.
    failed = true;
    throw error;
  });
  await Promise.all(linkReads);
  const details = Object.fromEntries(needed.detailIds.flatMap((id, index) => (reads[index] ? [[String(id), reads[index]]] : [])));
  return {
    adAccountId: desired.adAccountId,
    audiences,
    details,
    links,
    ...(Object.keys(unreadable).length > 0 ? { unreadable } : {}),
    ...(business === undefined ? {} : { business }),
    ...(context.images ? { images: context.images } : {}),
  };
}

/** The declared business, looked up once per plan (alongside the audience list). */
function lookupBusiness(bizNum: string, business: BusinessLookup | undefined): Promise<Company | null> {
  if (!business) throw new Error('readLiveState: the file declares a business, but no business lookup was given');
  return business.lookup(bizNum);
}

/** One plan as itself; several (one per file) as an array, in every format. */
export function renderPlans(plans: Plan[], format: 'text' | 'json' | 'markdown', style: Style): string {
  if (format === 'json') return plans.length === 1 ? renderJson(plans[0] as Plan) : `${JSON.stringify(plans, null, 2)}\n`;
  const render = format === 'markdown' ? (plan: Plan) => renderMarkdown(plan) : (plan: Plan) => renderText(plan, style);
  return plans.map(render).join('\n');
}

/**
 * Refuses, before anything is read, to save a plan over a file that is not a saved plan (the
 * desired-state file, say) or over a folder: `--out` replaces only an earlier plan, or an
 * empty file (one made with mktemp).
 */
export async function checkPlanTarget(out: string, cwd: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, out), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw fileWriteError(error, out);
  }
  if (text.trim() !== '' && !isSavedPlan(text)) {
    throw new AppError({
      code: 'FILE_EXISTS',
      source: 'user',
      summary: `${out} already exists and is not a saved plan`,
      hint: 'choose another file name: --out replaces only a plan saved before',
    });
  }
}

function isSavedPlan(text: string): boolean {
  try {
    const data: unknown = JSON.parse(text);
    const hasVersion = (value: unknown) => typeof value === 'object' && value !== null && 'formatVersion' in value;
    return Array.isArray(data) ? data.length > 0 && data.every(hasVersion) : hasVersion(data);
  } catch {
    return false;
  }
}

/** Writes a saved plan atomically. A plan never holds a secret: tokens live only in the environment. */
export async function savePlans(plans: Plan[], out: string, cwd: string): Promise<void> {
  await writeFileAtomically(resolve(cwd, out), renderPlans(plans, 'json', plainStyle), out);
}
