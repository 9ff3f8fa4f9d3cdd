import { dirname, relative, resolve } from 'node:path';
import { matchingGlob, type DesiredBusiness, type DesiredState } from '../model/index.js';
import { DEFAULT_MASS_DELETE } from '../plan/index.js';

/** Where in a file: map keys and list indexes, as the file's positions are found (config/positions.ts). */
export type Path = ReadonlyArray<string | number>;

/** One valid file of an account, as the account's other files are checked against it. */
export interface AccountFile {
  file: string;
  desired: DesiredState;
}

/**
 * A problem between two files of one ad account: at `path` in `file`, against `otherPath` in `other` (each located by
 * the caller, which reads the files).
 */
export interface AccountFileClash {
  file: string;
  path: Path;
  other: string;
  otherPath: Path;
  message: (other: string) => string;
  hint: string;
}

/**
 * Why files that declare the same ad account cannot be planned as one: a name declared in two of them (each audience
 * belongs to one file), or a setting of the whole account they disagree on. `prune` and `business` are the account's:
 * when several files set them, they must agree; so is `requestsPerSecond`, its quota (files that do not set it leave
 * it to those that do). The images and their lock stay beside one file: at most one file of
 * the account declares `images:` (its `pruneImages` is the account's). `ignore`, `protect` and `massDelete` combine (see
 * mergeAccountFiles), so a name one file declares cannot be one another file ignores.
 */
export function accountFileClashes(files: readonly AccountFile[]): AccountFileClash[] {
  const clashes: AccountFileClash[] = [];
  const declared = new Map<string, { file: string; index: number }>();
  const [first] = files;
  for (const { file, desired } of files) {
    desired.audiences.forEach((audience, index) => {
      const earlier = declared.get(audience.key);
      if (earlier === undefined) return void declared.set(audience.key, { file, index });
      clashes.push({
        file,
        path: ['audiences', index, 'name'],
        other: earlier.file,
        otherPath: ['audiences', earlier.index, 'name'],
        message: (other) => `audience ${JSON.stringify(audience.key)} is also declared in ${other}`,
        hint: 'an audience belongs to one file of its ad account: keep it in one of them',
      });
    });
    if (first && file !== first.file && desired.prune !== first.desired.prune)
      clashes.push({
        file,
        path: ['prune'],
        other: first.file,
        otherPath: ['prune'],
        message: (other) =>
          `prune is ${String(desired.prune)} here but ${String(first.desired.prune)} in ${other}, a file of the same ad account`,
        hint: 'prune acts on the whole account (an audience none of its files declares): set it alike in every file of the account',
      });
  }
  clashes.push(...ignoredElsewhere(files), ...renamedElsewhere(files));
  const business = files.filter(({ desired }) => desired.business !== undefined);
  const [firstBusiness] = business;
  for (const { file, desired } of business.slice(1))
    if (!sameBusiness(desired.business, firstBusiness?.desired.business))
      clashes.push({
        file,
        path: ['business'],
        other: firstBusiness?.file ?? '',
        otherPath: ['business'],
        message: (other) => `business differs from the one ${other} declares for the same ad account`,
        hint: 'an ad account has one business: declare it in one file of the account, or alike in each',
      });
  const rated = files.filter(({ desired }) => desired.requestsPerSecond !== undefined);
  const [firstRated] = rated;
  for (const { file, desired } of rated.slice(1))
    if (desired.requestsPerSecond !== firstRated?.desired.requestsPerSecond)
      clashes.push({
        file,
        path: ['requestsPerSecond'],
        other: firstRated?.file ?? '',
        otherPath: ['requestsPerSecond'],
        message: (other) =>
          `requestsPerSecond is ${String(desired.requestsPerSecond)} here but ${String(firstRated?.desired.requestsPerSecond)} in ${other}, a file of the same ad account`,
        hint: "the quota is the whole account's: set requestsPerSecond in one file of the account, or alike in each",
      });
  const images = files.filter(({ desired }) => desired.images !== undefined);
  const [firstImages] = images;
  for (const { file } of images.slice(1))
    clashes.push({
      file,
      path: ['images'],
      other: firstImages?.file ?? '',
      otherPath: ['images'],
      message: (other) => `${other}, a file of the same ad account, declares its images already`,
      hint: 'the images and their lock stay beside one file of the account: declare them all in that one',
    });
  return clashes;
}

/**
 * An audience one file declares (or renames) that another file of the account ignores: the account ignores it, so it
 * would never be changed, as in one file (config/rules.ts).
 */
function ignoredElsewhere(files: readonly AccountFile[]): AccountFileClash[] {
  return files.flatMap(({ file, desired }) =>
    files.flatMap((other) => {
      if (other.file === file || other.desired.ignore.length === 0) return [];
      const ignored = matchingGlob(other.desired.ignore);
      return desired.audiences.flatMap((audience, index) =>
        [audience.key, ...audience.renamedFrom].flatMap((name) => {
          const glob = ignored(name);
          if (glob === undefined) return [];
          return [
            {
              file,
              path: ['audiences', index, name === audience.key ? 'name' : 'renamedFrom'],
              other: other.file,
              otherPath: ['ignore', other.desired.ignore.indexOf(glob)],
              message: (at: string) =>
                `${JSON.stringify(name)} matches the ignore pattern ${JSON.stringify(glob)} of ${at}, a file of the same ad account, so it would never be changed`,
              hint: 'an ignored name is ignored for the whole account: rename the audience or narrow the ignore pattern',
            },
          ];
        }),
      );
    }),
  );
}

/**
 * A `renamedFrom` that names an audience another file of the account declares, or an old name an earlier file renames
 * from already: the old name is the account's, so it must say which live audience the entry is as unmistakably as in
 * one file (config/rules.ts). Names are compared as they print (after NFC), as there.
 */
function renamedElsewhere(files: readonly AccountFile[]): AccountFileClash[] {
  const declared = new Map<string, { file: string; index: number }>();
  for (const { file, desired } of files)
    desired.audiences.forEach((audience, index) => {
      const look = audience.key.normalize('NFC');
      if (!declared.has(look)) declared.set(look, { file, index });
    });
  const given = new Map<string, { file: string; path: Path }>();
  const clashes: AccountFileClash[] = [];
  for (const { file, desired } of files)
    desired.audiences.forEach((audience, index) =>
      audience.renamedFrom.forEach((old, position) => {
        const look = old.normalize('NFC');
        const path: Path = ['audiences', index, 'renamedFrom', position];
        const owner = declared.get(look);
        const earlier = given.get(look);
        if (owner !== undefined && owner.file !== file)
          clashes.push({
            file,
            path,
            other: owner.file,
            otherPath: ['audiences', owner.index, 'name'],
            message: (at) =>
              `${JSON.stringify(old)} is the name of an audience ${at} declares: an entry cannot be renamed from a name the account declares`,
            hint: 'if the rename is applied, remove `renamedFrom`; for a new audience that takes the old name, apply the rename first, then declare it',
          });
        else if (earlier !== undefined && earlier.file !== file)
          clashes.push({
            file,
            path,
            other: earlier.file,
            otherPath: earlier.path,
            message: (at) => `${JSON.stringify(old)} is also given by ${at}`,
            hint: 'one audience is renamed to one name: keep the old name in one entry of one file of the account',
          });
        else if (earlier === undefined) given.set(look, { file, path });
      }),
    );
  return clashes;
}

function sameBusiness(a: DesiredBusiness | undefined, b: DesiredBusiness | undefined): boolean {
  const text = (business: DesiredBusiness | undefined) =>
    business && JSON.stringify([business.registrationNumber, Object.entries(business.expected).sort()]);
  return text(a) === text(b);
}

/** Which of an account's files holds its images and their lock: the one that declares `images:`, else the first. */
export function imageHomeIndex(files: readonly AccountFile[]): number {
  return Math.max(
    0,
    files.findIndex(({ desired }) => desired.images !== undefined),
  );
}

/**
 * The files of one ad account as one desired state (their clashes checked first: see accountFileClashes): every
 * file's audiences, `ignore` and `protect` globs (a name one file ignores or protects is so for the account), the
 * strictest mass-delete guard of any file (a file that sets none holds the default), the rate of the files that set
 * one (they agree), and the images of the one file
 * that declares them. `source.hash` is that file's (else the first's): a saved plan finds its image folder by it.
 */
export function mergeAccountFiles(files: readonly AccountFile[]): { desired: DesiredState; home: string } {
  const [first] = files;
  if (first === undefined) throw new RangeError('an account is declared in one file at least');
  if (files.length === 1) return { desired: first.desired, home: first.file };
  const home = files[imageHomeIndex(files)] ?? first;
  const states = files.map(({ desired }) => desired);
  const business = states.find((desired) => desired.business !== undefined)?.business;
  const requestsPerSecond = states.find((desired) => desired.requestsPerSecond !== undefined)?.requestsPerSecond;
  const guards = states.map((desired) => ({ ...DEFAULT_MASS_DELETE, ...desired.massDelete }));
  const massDelete = states.some((desired) => desired.massDelete !== undefined)
    ? {
        ratio: Math.min(...guards.map((guard) => guard.ratio)),
        minManaged: Math.min(...guards.map((guard) => guard.minManaged)),
      }
    : undefined;
  const desired: DesiredState = {
    adAccountId: first.desired.adAccountId,
    prune: first.desired.prune,
    pruneImages: home.desired.pruneImages,
    ...(requestsPerSecond === undefined ? {} : { requestsPerSecond }),
    ...(massDelete === undefined ? {} : { massDelete }),
    ignore: [...new Set(states.flatMap((state) => state.ignore))],
    protect: [...new Set(states.flatMap((state) => state.protect))],
    audiences: states.flatMap((state) => state.audiences),
    ...(business === undefined ? {} : { business }),
    ...(home.desired.images === undefined ? {} : { images: home.desired.images }),
    source: { files: files.map(({ file }) => file), hash: home.desired.source.hash },
  };
  return { desired, home: home.file };
}

/** A problem of one file's `accountFiles` against the files a run was given (see unnamedAccountFiles). */
export interface AccountFilesGap {
  file: string;
  path: Path;
  message: string;
  hint: string;
}

/**
 * Why a run cannot plan the files it was given as whole accounts: a file names under `accountFiles` one it was not given
 * (or one of another account), or two given files declare one account without naming each other. An account's files
 * are planned only all together: one alone would be taken for the whole account, and its prune would delete what the
 * others declare. Paths are compared as resolved from `cwd` (a file's entries from its folder).
 */
export function unnamedAccountFiles(files: readonly AccountFile[], cwd: string): AccountFilesGap[] {
  const where = (file: string): string => resolve(cwd, file);
  const accountOf = new Map(files.map(({ file, desired }) => [where(file), desired.adAccountId]));
  const slashed = (path: string): string => path.split('\\').join('/');
  const shown = (path: string): string => slashed(relative(cwd, path));
  const gaps: AccountFilesGap[] = [];
  for (const { file, desired } of files) {
    const siblings = files
      .filter((other) => other.desired.adAccountId === desired.adAccountId)
      .map((other) => other.file);
    const named = (desired.accountFiles ?? []).map((entry) => resolve(dirname(where(file)), entry));
    const together = [...new Set([...siblings.map(where), ...named])].map(shown);
    named.forEach((path, index) => {
      const account = accountOf.get(path);
      if (account === desired.adAccountId) return;
      gaps.push({
        file,
        path: ['accountFiles', index],
        message:
          account === undefined
            ? `${JSON.stringify(desired.accountFiles?.[index])} is named as a file of ad account ${desired.adAccountId}, but this run was not given it (${shown(path)})`
            : `${JSON.stringify(desired.accountFiles?.[index])} is named as a file of ad account ${desired.adAccountId}, but it describes ad account ${account}`,
        hint:
          account === undefined
            ? `an account's files are planned only all together: give every one, ${together.map((one) => `-f ${one}`).join(' ')}`
            : 'name under accountFiles only the files of this ad account',
      });
    });
    const unnamed = siblings.filter((other) => other !== file && !named.includes(where(other)));
    if (unnamed.length > 0)
      gaps.push({
        file,
        path: ['adAccountId'],
        message: `${unnamed.join(', ')} ${unnamed.length === 1 ? 'describes' : 'describe'} ad account ${desired.adAccountId} too, and this file does not name ${unnamed.length === 1 ? 'it' : 'them'} under accountFiles`,
        hint: `name the account's other files here, \`accountFiles: [${unnamed.map((other) => slashed(relative(dirname(where(file)), where(other)))).join(', ')}]\`, so that this file is never planned alone as the whole account`,
      });
  }
  return gaps;
}
