import type { Change } from './generated/plan.js';

/**
 * The plan: plain JSON data, in the format users save (`plan --out`). Its types are generated
 * from schemas/plan.schema.json, the one source of truth: the applier reads `action`, `kind`,
 * `id`, `adGroupId` and `after`; everything under `display` is only for people.
 */
export type {
  AdGroupRef,
  AdGroupUnlink,
  AudienceCreate,
  AudienceDelete,
  AudienceUpdate,
  Change,
  FieldChange,
  Fingerprint,
  ImageGenerate,
  ImageGenerateReason,
  ImageMove,
  ImagePreview,
  ImagePreviewStatus,
  ImageRemove,
  Plan,
  PlanBusiness,
  PlanProblem,
  PlanSummary,
  ProblemCode,
  PlanOrigin,
  PlanScope,
  PlanEstimate,
  EstimatedRequests,
  ScopeKind,
  ServiceCheck,
  ServiceCheckWhat,
} from './generated/plan.js';

export type ChangeAction = Change['action'];
