import type { DesiredState } from '../model/index.js';
import type { PlanBase } from './kind.js';
import type { PlanProblem } from './types.js';

/** Refuse a plan that deletes more than `ratio` of the managed audiences, once there are `minManaged` of them. */
export interface MassDeleteThreshold {
  ratio: number;
  minManaged: number;
}

export const DEFAULT_MASS_DELETE: MassDeleteThreshold = { ratio: 0.3, minManaged: 10 };

/** The guard a plan is held to, and whether it is the base's (the file loosens it). */
export interface MassDeleteGuard {
  threshold: MassDeleteThreshold;
  /** The warning that the file loosens the base's guard, which still applies; absent when it does not. */
  loosened?: PlanProblem;
}

/**
 * The mass-delete guard of a file: its own, or with a base, the stricter of the base's and its
 * own in each part (the smaller share, the smaller minimum). A change cannot loosen the guard it
 * is itself checked by: a file raising `massDelete` in the change that deletes everything would
 * otherwise pass with no word. The loosened guard takes effect once the change is merged. A base
 * without a usable file (none of that name at the ref, or one that cannot be planned) sets the
 * default guard as the floor, so renaming or breaking the file in the change cannot loosen it either.
 */
export function massDeleteGuard(desired: DesiredState, base: PlanBase | undefined): MassDeleteGuard {
  const own = thresholdOf(desired);
  if (!base) return { threshold: own };
  const floor = 'desired' in base ? thresholdOf(base.desired) : DEFAULT_MASS_DELETE;
  const atBase =
    'desired' in base
      ? guardText(floor)
      : `${'absent' in base ? 'no file of this name' : 'no file it can plan'}, so the default, ${guardText(floor)}`;
  const threshold = { ratio: Math.min(own.ratio, floor.ratio), minManaged: Math.min(own.minManaged, floor.minManaged) };
  if (threshold.ratio === own.ratio && threshold.minManaged === own.minManaged) return { threshold };
  return {
    threshold,
    loosened: {
      code: 'MASS_DELETE_LOOSENED',
      message: `the file loosens the mass-delete guard (massDelete ${guardText(own)}; at ${base.ref}, ${atBase}): until the change is merged, the stricter of the two holds, ${guardText(threshold)}`,
      hint: 'the loosened guard applies once this change is merged; if this change itself must delete more, allow it for one run (--allow-mass-delete)',
    },
  };
}

function thresholdOf(desired: DesiredState): MassDeleteThreshold {
  return { ...DEFAULT_MASS_DELETE, ...desired.massDelete };
}

/** `percent 30, minimum 10`, as the file writes the guard. */
function guardText(threshold: MassDeleteThreshold): string {
  return `percent ${percentOf(threshold.ratio)}, minimum ${threshold.minManaged}`;
}

/** A share as the percent a file writes (0.07 is 7, not 7.000000000000001). */
function percentOf(ratio: number): number {
  return Math.round(ratio * 1e6) / 1e4;
}

export function checkMassDelete(deletes: number, managed: number, guard: MassDeleteGuard): PlanProblem | null {
  const { threshold } = guard;
  if (managed < threshold.minManaged || deletes <= managed * threshold.ratio) return null;
  const percent = Math.round((deletes / managed) * 100);
  const whose = guard.loosened
    ? ' (held to the stricter guard of the base until the change is merged: see MASS_DELETE_LOOSENED)'
    : '';
  return {
    code: 'MASS_DELETE',
    message: `the plan deletes ${deletes} of the ${managed} managed audiences (${percent}%), more than the ${percentOf(threshold.ratio)}% allowed${whose}`,
    hint: "check `prune` and `ignore`; if the deletes are intended, allow them for this run with --allow-mass-delete, or set the account's guard in the file (`massDelete: { percent, minimum }`)",
  };
}
