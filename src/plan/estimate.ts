import type { EstimatedRequests, Plan, PlanEstimate } from './types.js';

/**
 * The rate an apply is paced at: `--requests-per-second` paces every service's requests; the file's `requestsPerSecond`
 * (`audienceOnly`), the account's quota, only its requests to the audience API.
 */
export interface EstimateRate {
  requestsPerSecond: number;
  audienceOnly: boolean;
}

/** The batch delete takes this many ids a request (apply/kinds/audience.ts sends them so). */
const DELETE_BATCH_SIZE = 100;

/**
 * What `audiences apply PLAN` asks of the services for this plan, counted from the plan alone: the check that the
 * saved plan is not stale (also made by `apply -f` once approved at its prompt; unless `checked` is false: `apply -f
 * --auto-approve` applies the plan it has just made), the changes, and
 * the reads that verify them. It counts the calm case the reviewer plans
 * for: the account unchanged since the plan, every answer whole and at once (a list in one answer, as the spec shows
 * it); a retry, a lost answer or a paged list only adds requests. With a rate, each service it paces has its requests
 * spaced at it, so the one with the most takes at least (n - 1) / rate.
 */
export function estimateRequests(plan: Omit<Plan, 'estimate'>, rate?: EstimateRate, checked = true): PlanEstimate {
  const count = (action: string): number => plan.changes.filter((change) => change.action === action).length;
  const deleted = new Set(plan.changes.flatMap((change) => (change.action === 'delete' ? [change.id] : [])));
  const unlinks = plan.changes.filter((change) => change.action === 'unlink');
  const creates = count('create');
  const audienceChanges = creates + count('update') + deleted.size + unlinks.length;
  const generated = plan.changes.flatMap((change) => (change.action === 'generate' ? [change.after] : []));
  const fingerprinted = new Set(plan.fingerprint.audiences.map((entry) => entry.id));
  // The business is looked up again only by the check (planning looked it up already).
  const business = checked && plan.business ? 1 : 0;
  const requests: EstimatedRequests = {
    // The list, each update's audience read again (its date unmoved), each read ad-group list again, the business lookup
    // (see stale.ts).
    check: !checked
      ? 0
      : 1 +
        plan.changes.filter((change) => change.action === 'update' && fingerprinted.has(change.id)).length +
        plan.fingerprint.audiences.filter((entry) => entry.adGroupIds !== null).length +
        business,
    unlink: unlinks.length,
    create: creates,
    update: count('update'),
    delete: Math.ceil(deleted.size / DELETE_BATCH_SIZE),
    generate: generated.length,
    download: generated
      .filter((after) => after.request.params.return_type !== 'base64_string')
      .reduce((total, after) => total + after.outputs.length, 0),
    // The list after the creates settles their races and, with no delete after it, serves the check too; a write is
    // answered with the audience it made, so only an unlinked audience that stays is read again.
    verify:
      (creates > 0 ? 1 : 0) +
      (audienceChanges > 0 && (creates === 0 || deleted.size > 0) ? 1 : 0) +
      unlinks.filter((change) => !deleted.has(change.id)).length,
  };
  const total = Object.values(requests).reduce((sum, n) => sum + n, 0);
  if (rate === undefined) return { requests, total };
  const { requestsPerSecond } = rate;
  // Each service has its own transport and pacing: the one with the most requests bounds the time.
  const images = requests.generate + requests.download;
  const audience = total - business - images;
  const most = rate.audienceOnly ? audience : Math.max(audience, business, images);
  const leastSeconds = Math.floor((Math.max(0, most - 1) / requestsPerSecond) * 1000) / 1000;
  return { requests, total, requestsPerSecond, leastSeconds };
}
