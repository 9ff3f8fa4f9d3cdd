/**
 * Every code the tool prints, each with whose problem it is, what it means and what to do: the
 * errors that stop a command (`error[CODE]`), the warnings and errors of a plan, and the
 * outcomes of an apply's changes. AppError's codes are typed by this list, the plan's part is
 * checked against the plan schema's ProblemCode and the apply's against its summary, and
 * docs/errors.md is rendered from it (src/error-codes.test.ts), so none of them can drift.
 */
// Types only, from the leaves that declare them: src/errors.ts imports this module, and plan/ imports errors.ts.
import type { ProblemCode } from './plan/generated/plan.js';
import type { ApplyResult } from './plan/results.js';

/** Whose problem an error is: the user's input or settings, the remote service, or a bug of ours. */
export type ErrorSource = 'user' | 'remote' | 'internal';

/** What a code means and what to do about it, in a sentence or two each (Markdown). */
export interface CodeDoc {
  means: string;
  todo: string;
}

/** An error that stops a command: whose problem it is (a code some raise sites give another source lists each). */
export interface CommandErrorDoc extends CodeDoc {
  source: readonly [ErrorSource, ...ErrorSource[]];
}

/** The errors that stop a command, printed `error[CODE]: summary` with the detail and a hint. */
export const COMMAND_ERRORS = {
  // The command line and the settings.
  USAGE: {
    source: ['user'],
    means:
      'A mistake on the command line: an unknown command or option (named with the nearest known one), a missing or empty value, a value out of range, or an option of one value given twice.',
    todo: 'Do as the hint says; `audiences --help` and `audiences COMMAND --help` list the commands and options.',
  },
  INVALID_OPTION: {
    source: ['user'],
    means:
      'The HTTP client was given a concurrency that is not a whole number of at least 1, or a rate of requests outside 0.1 to 1000 a second. The command line checks both first (`error[USAGE]`).',
    todo: 'Give `--concurrency` a whole number of at least 1 and `--requests-per-second` a number from 0.1 to 1000.',
  },
  NO_SERVICE: {
    source: ['user', 'internal'],
    means:
      'No service to talk to: neither `--emulator` nor `ADS_API_URL` is set, or `IMAGEGEN_API_URL` is not set for a plan that generates images. As a bug: an operation was given no business lookup or image client that it needs.',
    todo: 'Pass `--emulator` to use the built-in emulator, or set `ADS_API_URL` (and `IMAGEGEN_API_URL` for images) to reach the real service.',
  },
  NO_CREDENTIAL: {
    source: ['user'],
    means: '`ADS_ACCESS_TOKEN` or `IMAGEGEN_API_KEY` is not set, and the service it is for is about to be used.',
    todo: 'Set it to the credential for the service, or pass `--emulator` to use the built-in emulator.',
  },
  INVALID_CREDENTIAL: {
    source: ['user'],
    means:
      '`ADS_ACCESS_TOKEN` or `IMAGEGEN_API_KEY` starts with its scheme word (`Bearer`, the image scheme), or holds a space, a line break or another character a request header cannot carry. Refused before any request.',
    todo: 'Set it to the credential alone, copied again without surrounding spaces or line breaks: the tool sends the scheme word itself.',
  },
  INVALID_URL: {
    source: ['user'],
    means:
      'A service URL (`ADS_API_URL`, `ADS_COMPANY_URL`, `IMAGEGEN_API_URL`, named in the summary), or the link image generation gives to a file, is not a valid URL, or not an `https://` one.',
    todo: 'Give the full address with its scheme, e.g. `https://api.example.com` (`http://` only for loopback).',
  },
  INSECURE_URL: {
    source: ['user'],
    means:
      'A service URL, or the link image generation gives to a file, is plain `http://` to a host that is not loopback: the credentials would travel in the clear.',
    todo: 'Use an `https://` URL; plain `http://` is accepted only for localhost, 127.0.0.0/8 and ::1.',
  },
  INVALID_SETTING: {
    source: ['user'],
    means:
      '`IMAGEGEN_MODEL_FAMILY` is not one path segment, `IMAGEGEN_AUTH_SCHEME` is not one word, or `ADS_COMPANY_PATH` is not a path from `/` without a query, spaces or control characters.',
    todo: 'Set it as the hint says, or unset it for the value the spec writes.',
  },
  NO_AD_ACCOUNT: {
    source: ['user'],
    means:
      '`audiences company` has no ad account to look the business up for: no `--ad-account`, and the desired-state file cannot be read, is not YAML or has no `adAccountId`.',
    todo: 'Pass `--ad-account ID`: the service wants the ad account with each lookup.',
  },
  NOT_APPROVED: {
    source: ['user'],
    means:
      '`audiences apply` has no terminal to ask for approval on (a pipeline), and neither `--auto-approve` nor a saved plan was given.',
    todo: 'Pass `--auto-approve` in a pipeline, or apply a plan saved with `audiences plan --out`.',
  },

  // Files.
  CONFIG_INVALID: {
    source: ['user'],
    means: 'A desired-state file is not valid; the detail lists every problem with its file, line and column.',
    todo: 'Fix the problems listed; `audiences validate` checks the files offline and shows the same ones.',
  },
  FILE_TOO_LARGE: {
    source: ['user'],
    means:
      'A desired-state file is larger than 8 MB, or a saved plan larger than 128 MB (by its size, or by a bounded read of a pipe or a device).',
    todo: 'Check that it is the right file.',
  },
  FILE_EXISTS: {
    source: ['user'],
    means:
      'A file the command writes is in the way: `import -o` names a file that exists (without `--force`), `plan --out` a file that is not a saved plan, or either a device, a FIFO or a socket.',
    todo: 'Choose another file name; `import --force` replaces a file, and `plan --out` replaces only a plan saved before (or an empty file).',
  },
  FILE_WRITE: {
    source: ['user'],
    means:
      'A file the command writes (`plan --out`, `import -o`, `.audiences/`, an image or its lock) cannot be written: its folder does not exist, permission is denied, the file system is read-only or the disk is full. No partial or temporary file is left.',
    todo: 'Do as the reason says: create the folder, choose a path you may write to, or free some space.',
  },
  FILE_SYSTEM: {
    source: ['user'],
    means:
      'The file system refused a file or folder the command used: it does not exist, a file is in the way, permission is denied, or the disk is full; the summary names the path.',
    todo: 'Do as the reason says: check the path, choose one you may write to, or free some space.',
  },
  IMAGE_LOCK: {
    source: ['user'],
    means:
      'As an apply writes images, or checks a saved plan, `images.lock.json` cannot be used: it is a link out of the project, not a regular file, cannot be read or parsed, or gives a key twice.',
    todo: 'Restore `images.lock.json` from version control (a file in the project, not a link out of it), or delete it to generate every image anew.',
  },
  IMAGE_PATH: {
    source: ['user'],
    means:
      'As an apply reads or writes an image file, its path leads out of the folder of the desired-state file: `..`, an absolute path, or a link to outside.',
    todo: 'Keep image files in the folder of the desired-state file or below it.',
  },

  PREVIEW_INVALID: {
    source: ['user'],
    means:
      "The file given to `plan --preview` or `show --preview` (what a pipeline's image preview did) cannot be read, is not JSON, or holds a field of the wrong shape: `requests` a whole number, `commit` a commit's hash or null, `notCommitted` one of fork, read-only, push-refused, `artifact` text, `urls` an object of image addresses (http or https, or a path from the root) by SHA-256.",
    todo: 'Write it as docs/pipelines.md shows, or leave out `--preview`: the comment then names each image without showing it.',
  },

  // Saved plans.
  PLAN_UNREADABLE: {
    source: ['user'],
    means: 'The saved plan given to `apply` or `show` cannot be read (it does not exist, or permission is denied).',
    todo: 'Check the path; save a plan with `audiences plan --out FILE`.',
  },
  PLAN_INVALID: {
    source: ['user'],
    means:
      'The file given as a saved plan is not one: a desired-state file or the image lock, not JSON, not of the plan schema, an empty array, two plans of one account, a plan at odds with itself, or, to apply, a plan of version 1 that lacks what applying needs.',
    todo: 'Save a plan with `audiences plan --out FILE` and do not edit it; to apply a desired-state file, run `audiences apply -f FILE`.',
  },
  PLAN_HAS_ERRORS: {
    source: ['user'],
    means: 'The saved plan holds errors, so it cannot be applied (`plan --out` never saves one).',
    todo: 'Fix the errors and plan again.',
  },
  PLAN_STALE: {
    source: ['user'],
    means:
      'Since the saved plan was made (or while the plan `apply` showed waited at its prompt), the ad account changed (an audience it touches was modified, deleted or re-linked, a name it creates was taken, or with prune an audience appeared), or so did the business or the image files; the detail says what. Nothing was changed.',
    todo: 'Run `audiences plan` again and review the new plan (`audiences apply` again, for a plan approved at its prompt).',
  },
  PLAN_FILES_NOT_FOUND: {
    source: ['user'],
    means:
      "A saved plan with images is applied, but the desired-state file it was made from, beside which its images and lock go, is found neither from the saved plan's folder nor from the folder it is applied in. Nothing was changed.",
    todo: 'Apply the plan from the folder it was made in, or keep it where `plan --out` saved it.',
  },
  BASE_NOT_IN_GIT: {
    source: ['user'],
    means:
      '`plan --base` reads each file at a git ref, but the file is in no git repository, or git is not installed (or not on PATH).',
    todo: 'Plan in a clone of the repository that holds the file, as a pipeline checks it out (with git installed), or leave out `--base`.',
  },
  BASE_REF_NOT_FOUND: {
    source: ['user'],
    means:
      "The ref given to `plan --base` is not a commit of the repository that holds the file; a shallow clone (a pipeline's checkout) may lack it.",
    todo: 'Name a branch, tag or commit the clone holds: fetch it (`git fetch origin REF`) or check out the whole history (GitHub: `fetch-depth: 0`).',
  },
  APPLY_LOCKED: {
    source: ['user'],
    means:
      'Another apply of the same ad account is running in this working folder: it holds `.audiences/apply-<account>.lock`. Applies of different accounts run side by side.',
    todo: 'Wait for it to finish, then plan again; a lock left by an apply that was killed is taken over 30 s after it stopped.',
  },

  // The business lookup (`audiences company`).
  BIZNUM_INVALID: {
    source: ['user'],
    means:
      'The business registration number is not of the form `XXX-XX-XXXXX`, is all zeros or has a wrong check digit: checked before any request.',
    todo: 'Correct the number as the hint says, against the business registration certificate.',
  },
  COMPANY_NOT_FOUND: {
    source: ['user'],
    means: 'No business is registered under the number.',
    todo: 'Check the number against the business registration certificate.',
  },

  // The services.
  API_UNREACHABLE: {
    source: ['remote'],
    means: 'No answer came from a service: the connection was refused or reset, the host is unknown, or TLS failed.',
    todo: 'Check that the service is reachable and that its URL (`ADS_API_URL`, `ADS_COMPANY_URL`, `IMAGEGEN_API_URL`, as the hint names) is right.',
  },
  API_TIMEOUT: {
    source: ['remote'],
    means: 'A service took too long: to connect, to send the response headers, or while sending the body.',
    todo: 'Try again later, and check the URL the hint names.',
  },
  API_INVALID_RESPONSE: {
    source: ['remote'],
    means:
      'A service answered with a body the tool cannot use: empty, not JSON, not the documented shape, or larger than any answer of its API.',
    todo: 'Check that the URL and path settings the hint names point at the service itself, not at a proxy or another service.',
  },
  API_UNAUTHORIZED: {
    source: ['remote'],
    means: 'A service answered 401: the credential is missing, malformed or expired.',
    todo: 'Check `ADS_ACCESS_TOKEN`, or for image generation `IMAGEGEN_API_KEY` and its scheme word `IMAGEGEN_AUTH_SCHEME`.',
  },
  API_FORBIDDEN: {
    source: ['remote'],
    means: 'A service answered 403: the credential may not do this.',
    todo: 'Check that the token in `ADS_ACCESS_TOKEN` may act on this ad account (`adAccountId`), or that the key in `IMAGEGEN_API_KEY` may use image generation.',
  },
  API_NOT_FOUND: {
    source: ['remote'],
    means:
      "A service answered 404: it does not know what was asked for, or, when the answer is not the service's error, nothing of the service is at this address.",
    todo: 'When the hint says so, check the URL and path settings it names; otherwise what was asked for is gone, and `audiences plan` shows the account as it is.',
  },
  API_RATE_LIMITED: {
    source: ['remote'],
    means:
      "The service's request quota is used up: it answered 429, or 400 with service code -10, until the retries stopped.",
    todo: 'Run again later, or pace the requests with `--requests-per-second N` or, for the audience API, `requestsPerSecond: N` in the file of the account (below the rate the service allows), and a lower `--concurrency`.',
  },
  API_SERVER_ERROR: {
    source: ['remote'],
    means: 'A service answered 5xx: it failed on its side.',
    todo: 'Try again later.',
  },
  API_REJECTED: {
    source: ['remote'],
    means:
      'A service refused the request with another 4xx status; the summary gives its message and the detail its codes.',
    todo: "Correct what the service's message names; the hint explains the detail codes that name the ad account or a permission.",
  },
  LIST_INCOMPLETE: {
    source: ['remote'],
    means:
      'The audience API did not answer a whole list (a page missing or malformed, counts that do not add up, an audience on two pages): the command stopped before changing or writing anything.',
    todo: 'Run it again (the account may have changed while it was read); if it goes on, check that `ADS_API_URL` is the audience API itself, and report the answer.',
  },
  LIST_DUPLICATE_IDS: {
    source: ['remote'],
    means:
      'The audience API listed an id more than once in one answer: the command stopped before changing or writing anything.',
    todo: 'Run it again; if it goes on, report the answer.',
  },
  OUTCOME_UNKNOWN: {
    source: ['remote'],
    means:
      "A change's request may have been carried out, but its answer was lost and looking could not settle it (the list that would tell failed too, or the retries ran out on lost answers); an apply reports the change as `UNKNOWN`.",
    todo: 'Run `audiences plan`: it shows whether the change was made, and `audiences apply` finishes the job.',
  },
  NOT_STARTED: {
    source: ['user'],
    means:
      'A request was not sent because the command was interrupted before its turn: nothing happened. An apply reports the change as `skipped`.',
    todo: 'Run the command again: `audiences apply` plans anew and finishes the job.',
  },

  // The emulator.
  EMULATOR_BUSY: {
    source: ['user'],
    means:
      "Another process holds the emulator's state file (`.audiences/emulator-state.json` with `--emulator`, or the `--state` file of `audiences emulator`) and did not let it go within the wait.",
    todo: 'Let the other command finish and run this one again; point the tool at an `audiences emulator --state` that serves the file with `ADS_API_URL` instead of `--emulator`.',
  },
  EMULATOR_STATE: {
    source: ['user'],
    means:
      "The emulator's state file cannot be used: it cannot be read, or it is corrupt (not JSON, or not the shape of a state).",
    todo: 'Repair the file, or delete it to start again from the seeded state.',
  },
  SEED_NAME_TAKEN: {
    source: ['user'],
    means:
      "`audiences emulator --seed FILE`: the emulator's account already holds audiences of names a seed file declares; nothing was seeded, of any file.",
    todo: "Delete the emulator's state file (`.audiences/emulator-state.json` for `--emulator`, or the `--state` file) to start again, or rename them in the seed file.",
  },
  SEED_LINK: {
    source: ['user'],
    means:
      '`audiences emulator --seed FILE`: the emulator refused to link an audience to an ad group of its `adGroups`; the detail lists what was seeded before, which the emulator keeps.',
    todo: "Name ad groups the emulator's account has, whose campaign allows the audience (the emulator's SPEC.md lists them).",
  },
  PORT_IN_USE: {
    source: ['user'],
    means: '`audiences emulator --port N`: the port is already in use.',
    todo: 'Choose another `--port`, or `--port 0` for any free port.',
  },

  // Bugs.
  IMPORT_INVALID: {
    source: ['internal'],
    means:
      'The file `import` made would not be valid, even without the audiences a file cannot hold; nothing was written.',
    todo: 'This is a bug of audiences: report it with the output of `--debug`.',
  },
  INTERNAL: {
    source: ['internal'],
    means: 'An error the tool did not expect, or a plan given a live state without a read it needs.',
    todo: 'This is a bug of audiences: report it with the command you ran and the output of `--debug`.',
  },
} satisfies Record<string, CommandErrorDoc>;

/** Every code an error that stops a command may have. */
export type ErrorCode = keyof typeof COMMAND_ERRORS;

/** The sources an error of `code` is raised with. */
export type SourceOf<C extends ErrorCode> = (typeof COMMAND_ERRORS)[C]['source'][number];

/** A warning of a plan says something to review; an error stops it: a plan with errors is never saved or applied. */
export interface PlanProblemDoc extends CodeDoc {
  severity: 'warning' | 'error';
}

/** The warnings and errors of a plan, printed `warning[CODE]:` or `error[CODE]:` with a hint, and kept in its JSON. */
export const PLAN_PROBLEMS = {
  // Which live audience an entry is.
  DUPLICATE_LIVE_NAME: {
    severity: 'error',
    means:
      'Several audiences of the ad account have the name of an entry that pins no `id:`, so the plan cannot tell which one the file manages.',
    todo: 'Add one of the `id:` lines the hint gives (an id past 2^53 in quotes, as the file must hold it), to say which one this file manages (`audiences import` shows them all).',
  },
  PINNED_ID_IGNORED: {
    severity: 'error',
    means:
      'An entry pins an `id:` whose audience has a name the `ignore` patterns cover: an ignored audience is never touched.',
    todo: 'To manage it, narrow the ignore patterns so they leave its name out; otherwise remove the `id:` line.',
  },
  PINNED_ID_DELETED: {
    severity: 'warning',
    means:
      'An entry pins an `id:` the ad account no longer has (deleted outside the tool): it is known by its name again, as the live audience of that name, or created anew.',
    todo: 'Write the id it now has in place of the old one (`audiences import` shows it), or remove the `id:` line; correct a mistyped id.',
  },
  RENAME_AMBIGUOUS: {
    severity: 'error',
    means:
      "A `renamedFrom` cannot be told apart: the old audience is another entry's, the account has both the new and the old name, or several audiences have the old name. Nothing is planned for the entry.",
    todo: 'Say which audience the entry is with `id:`, or remove `renamedFrom` (once the rename is applied, the old name is another audience).',
  },
  RENAMED_FROM_UNUSED: {
    severity: 'warning',
    means:
      'A `renamedFrom` names no live audience: the rename was applied already, or the account never had the old name and the audience is created as a new one.',
    todo: 'Once the rename is applied, remove `renamedFrom`; otherwise check the old name (`audiences import` writes the names of the account).',
  },
  LOOKS_LIKE_RENAME: {
    severity: 'warning',
    means:
      'The plan creates an audience with the definition of one it deletes: most likely a rename written without `renamedFrom`, which costs the audience its id and its ad groups.',
    todo: 'To rename it in place (same id, ad groups kept), add `renamedFrom:` with the old name to the entry.',
  },
  NAME_SPELLING: {
    severity: 'warning',
    means:
      "Names of the file and of the account print alike but are spelt with other characters (equal after NFC): one live audience is matched and gets the file's spelling, or, among several, none is taken for another.",
    todo: 'Spell the name in the file as the account does (`audiences import` writes it), or pin the audience the file means with `id:`.',
  },

  // What the plan would do.
  PROTECTED: {
    severity: 'error',
    means:
      'The plan would unlink ad groups from an audience with `protect: true`, or delete or unlink an audience a `protect:` glob names.',
    todo: 'Declare the audience or add the ad groups to its `adGroups`; to allow the change, remove `protect: true` or narrow the glob.',
  },
  MASS_DELETE: {
    severity: 'error',
    means:
      "The plan deletes more of the managed audiences than the guard allows (more than 30% once there are 10, unless the file sets `massDelete`; with `--base`, the stricter of the base's guard and the file's).",
    todo: 'Check `prune` and `ignore`; if the deletes are intended, pass `--allow-mass-delete` for this run, or set the guard in the file (`massDelete: { percent, minimum }`).',
  },
  MASS_DELETE_LOOSENED: {
    severity: 'warning',
    means:
      'The file loosens the mass-delete guard of the `--base` ref: until the change is merged, the stricter of the two holds.',
    todo: 'The loosened guard applies once the change is merged; if this change itself must delete more, pass `--allow-mass-delete` for one run.',
  },
  TARGET_UNMATCHED: {
    severity: 'warning',
    means:
      'A `--target` glob of a scoped `plan` or `apply` matches no audience or image of the file or of its ad account, declared or live: nothing is planned for it (as Terraform plans nothing for a `-target` its configuration lacks).',
    todo: 'Check the name: a glob matches whole names (`seoul-*`, not `seoul`); `audiences import` lists the names the account has.',
  },
  BASE_NOT_PLANNED: {
    severity: 'warning',
    means:
      "The file at the `--base` ref cannot be compared with (not valid there, of another ad account, not a file, too large or unreadable by git): no change is marked as made outside the tool, and the mass-delete guard is the stricter of the file's and the default.",
    todo: "Each change is shown as the change's own: check in the ad manager whether any reverts a change made there.",
  },
  CAMPAIGN_RULE: {
    severity: 'error',
    means:
      'An updated audience breaks a rule of the campaigns of the ad groups that use it: the overseas region `Z` in a business-board campaign, or friend-group targeting outside a messaging-channel reach campaign.',
    todo: 'Remove the value from the audience, or stop using the audience in that ad group.',
  },
  OMITTED_FIELDS: {
    severity: 'warning',
    means:
      "An update empties a criterion the account's audience has and the entry says nothing of: a field the file leaves out is empty.",
    todo: 'If that is not meant, write the criterion in the entry as the account has it (`audiences import --name` prints the audience as it is).',
  },
  LINK_MISSING: {
    severity: 'warning',
    means:
      'An audience declares ad groups in `adGroups` that do not use it, and the API cannot link ad groups (one warning per plan, naming every such audience).',
    todo: 'Link them in the ad manager, or remove them from `adGroups`.',
  },

  // What the plan read.
  AUDIENCE_STATUS: {
    severity: 'warning',
    means: 'A live audience the plan reads is `ERROR` (unusable) or `SEED_NOT_ENOUGH` (too few members to be used).',
    todo: 'Nothing stops the plan; look at the audience in the ad manager.',
  },
  AUDIENCE_GONE: {
    severity: 'warning',
    means:
      'An audience was deleted while the plan read the account (listed, then not found when read): it is planned as not there, and one the file declares by name is created anew.',
    todo: 'If it was deleted on purpose, remove it from the file; otherwise applying the plan makes it again.',
  },
  LIVE_UNREADABLE: {
    severity: 'error',
    means:
      "The service's answer for an audience has a field the plan needs in a shape the tool cannot use: nothing is planned for that audience, the others are.",
    todo: 'Check that `ADS_API_URL` is the audience API itself; if it is, report the answer: the service uses a shape the tool does not know yet.',
  },

  // The business.
  BUSINESS_NOT_FOUND: {
    severity: 'error',
    means: "No business is registered under the file's `business.registrationNumber`.",
    todo: 'Check the number against the business registration certificate (`audiences company NUMBER` looks a number up).',
  },
  BUSINESS_MISMATCH: {
    severity: 'error',
    means:
      "The business registered under the file's number has another value for a field the file expects under `business`.",
    todo: 'Check that the number is the right one for this account; if the business changed that field, update it in the file.',
  },

  // Images.
  IMAGE_LOCK: {
    severity: 'error',
    means:
      '`images.lock.json` cannot be used: it is a link out of the project, not a regular file, cannot be read or parsed, or gives a key twice (an entry or a field, as a merge may). Nothing is planned for images.',
    todo: 'Restore `images.lock.json` from version control (a file in the project, not a link out of it), or delete it to generate every image anew. For a key given twice, keep one of the two: `audiences apply --kind image` then rewrites the lock.',
  },
  IMAGE_PATH: {
    severity: 'error',
    means:
      "An image's output, or a local input, leads out of the folder of the desired-state file (through a link, say) or cannot be read.",
    todo: 'Keep image files in the folder of the desired-state file or below it, not through links that lead elsewhere.',
  },
  IMAGE_INPUT: {
    severity: 'error',
    means:
      'An input image does not exist, is not a format the operation takes (by its content), or, to inpaint, is larger than 1024 pixels a side.',
    todo: 'Check the path (it is relative to the desired-state file), convert the file, or scale it down, as the hint says.',
  },
  IMAGE_LEFT_ALONE: {
    severity: 'warning',
    means:
      'An image removed or moved with `pruneImages` has a file the tool did not write or cannot vouch for (a link, other bytes than the lock records, not an image, outside the project, or used by a declared image): it stays.',
    todo: 'The tool deletes only the files it wrote: delete it by hand if it should go.',
  },
  IMAGE_FILE_IN_THE_WAY: {
    severity: 'error',
    means:
      "An image would be generated or moved to a path where a file is that the lock does not record as the tool's (its entry was lost in a merge, or the file was put there by hand): the tool writes over no file it did not write.",
    todo: 'Move the file away, or delete it to let the tool write it; if the lock lost the entry in a merge, restore `images.lock.json` from version control.',
  },
} satisfies Record<ProblemCode, PlanProblemDoc>;

/** An outcome of a change, as its progress line shows it. */
export interface ApplyOutcomeDoc extends CodeDoc {
  shown: string;
}

/**
 * The five outcomes of an apply's changes, each counted apart in its summary; `todo` says what to do and what the next
 * plan holds.
 */
export const APPLY_OUTCOMES = {
  ok: {
    shown: '`ok`',
    means: 'The service answered that the change was made.',
    todo: 'Nothing: the next plan no longer has it.',
  },
  verified: {
    shown: '`ok …: verified: …`',
    means:
      'Its answer was lost (a reset, a timeout, a 5xx after the service may have acted), and the tool found out that it was made: it listed the account, or sent an update, delete or unlink again.',
    todo: 'Nothing: the next plan no longer has it.',
  },
  failed: {
    shown: '`FAILED`',
    means:
      "The service refused it; the line gives the service's message, its codes, the attempts, why the retries stopped, and the hint the same error has in a plan.",
    todo: 'Fix the cause and run `audiences apply` again (after a saved plan, `audiences plan` again): the next plan has it again.',
  },
  unknown: {
    shown: '`UNKNOWN`',
    means:
      'Its answer was lost and finding out failed too, or a second interrupt stopped the apply while it was in flight: it may or may not have been made; the line says what is known.',
    todo: 'Run `audiences plan`: it has the change again only if it was not made.',
  },
  skipped: {
    shown: '`skipped`',
    means:
      'Not started: the apply was interrupted before it was sent, or what it needed failed first (a delete whose unlink failed or is unknown).',
    todo: 'Run `audiences apply` again: it plans anew and finishes the job.',
  },
} satisfies Record<keyof ApplyResult['summary'], ApplyOutcomeDoc>;
