import type { AudienceClient } from '../api/audiences.js';
import type { EmulatorControl } from './emulator-control.js';
import { AppError, withDetail } from '../errors.js';
import { quoted, type Long } from '../model/index.js';
import { readValidDesiredStates } from './validate.js';

/** What a seed file put in the emulator's account. */
export interface SeededAccount {
  file: string;
  adAccountId: number;
  audiences: Array<{ name: string; id: Long; adGroupIds: Long[] }>;
  /** What the file declares that a seed does not make, said so that nobody expects it. */
  notes: string[];
}

export interface SeedDeps {
  audiences(adAccountId: number): AudienceClient;
  control: EmulatorControl;
}

/**
 * Seeds the emulator with the audiences of desired-state files, as if made in the ad manager:
 * each audience created through the service's API (so the emulator's rules apply, as to any
 * client), then linked to the ad groups its `adGroups` names. Names the account already holds
 * are refused before anything is made; a failure halfway says what was seeded.
 */
export async function seedEmulator(files: string[], cwd: string, deps: SeedDeps): Promise<SeededAccount[]> {
  const states = await readValidDesiredStates(files, cwd);
  // Every file's names are checked before anything is made, so that a refusal leaves the emulator as it was.
  for (const { file, desired } of states) {
    const taken = new Set((await deps.audiences(desired.adAccountId).list()).map((summary) => summary.name));
    const clashes = desired.audiences
      .filter((audience) => taken.has(audience.key))
      .map((audience) => quoted(audience.key));
    if (clashes.length > 0) {
      throw new AppError({
        code: 'SEED_NAME_TAKEN',
        source: 'user',
        summary: `ad account ${desired.adAccountId} already holds ${clashes.join(', ')}, which ${file} seeds; nothing was seeded`,
        hint: "delete the emulator's state file (.audiences/emulator-state.json for --emulator, or the --state file) to start again from the emulator's empty accounts, or rename them in the seed file",
      });
    }
  }
  const seeded: SeededAccount[] = [];
  for (const { file, desired } of states) {
    const client = deps.audiences(desired.adAccountId);
    const account: SeededAccount = { file, adAccountId: desired.adAccountId, audiences: [], notes: notesOf(desired) };
    seeded.push(account);
    for (const audience of desired.audiences) {
      const step = `audience ${quoted(audience.key)}`;
      try {
        const created = await client.create(audience.definition);
        const entry = { name: audience.key, id: created.id, adGroupIds: [] as Long[] };
        account.audiences.push(entry);
        for (const adGroupId of audience.adGroups ?? []) {
          await deps.control.link(desired.adAccountId, created.id, adGroupId).catch((error: unknown) => {
            throw new AppError({
              code: 'SEED_LINK',
              source: 'user',
              summary: `ad group ${adGroupId} cannot be linked to ${step}: ${(error as Error).message}`,
              hint: "name ad groups the emulator's account has, whose campaign allows the audience (the emulator's SPEC.md lists them)",
            });
          });
          entry.adGroupIds.push(adGroupId);
        }
      } catch (error) {
        throw halfway(error, seeded);
      }
    }
  }
  return seeded;
}

function notesOf(desired: { audiences: Array<{ id?: Long }>; images?: unknown; business?: unknown }): string[] {
  const notes: string[] = [];
  if (desired.audiences.some((audience) => audience.id !== undefined))
    notes.push("the file's `id:` values are not kept: the emulator gives its own ids");
  if (desired.business)
    notes.push("`business:` is not seeded: the emulator's companies are fixed (its SPEC.md lists them)");
  if (desired.images) notes.push('`images:` are not seeded: `apply` generates them');
  return notes;
}

/** An error halfway through a seed, with what was seeded before it (the emulator keeps it). */
function halfway(error: unknown, seeded: SeededAccount[]): unknown {
  const made = seeded.flatMap((account) =>
    account.audiences.map((audience) => `${quoted(audience.name)} (id ${audience.id})`),
  );
  if (!(error instanceof AppError) || made.length === 0) return error;
  return withDetail(error, [error.detail, `seeded before it, and kept: ${made.join(', ')}`].filter(Boolean).join('\n'));
}
