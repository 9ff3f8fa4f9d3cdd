import type { PlanProblem } from './types.js';

/** Refuse a plan that deletes more than `ratio` of the managed audiences, once there are `minManaged` of them. */
export interface MassDeleteThreshold {
  ratio: number;
  minManaged: number;
}

export const DEFAULT_MASS_DELETE: MassDeleteThreshold = { ratio: 0.3, minManaged: 10 };

export function checkMassDelete(deletes: number, managed: number, threshold: MassDeleteThreshold): PlanProblem | null {
  if (managed < threshold.minManaged || deletes <= managed * threshold.ratio) return null;
  const percent = Math.round((deletes / managed) * 100);
  return {
    code: 'MASS_DELETE',
    message: `the plan deletes ${deletes} of the ${managed} managed audiences (${percent}%), more than the ${Math.round(threshold.ratio * 100)}% allowed`,
    hint: 'check `prune` and `ignore`; if the deletes are intended, plan again with --allow-mass-delete',
  };
}
