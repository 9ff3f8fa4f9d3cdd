/** Types of bound.mjs, for the smoke test. */
export type Phase = 'list' | 'read' | 'linkRead' | 'unlink' | 'write' | 'delete' | 'other';
export const PHASES: Phase[];
export function phaseOf(request: { method: string; path: string }): Phase;
export function countPhases(requests: Array<{ method: string; path: string }>): Record<Phase, number>;
export function stagesOf<T extends { method: string; path: string }>(requests: T[]): T[][];
export function describeStages(stages: Array<Array<{ method: string; path: string }>>): string[];
export function samePhases(
  a: Partial<Record<Phase, number>> | undefined,
  b: Partial<Record<Phase, number>> | undefined,
): boolean;
export function lowerBoundMs(
  counts: Partial<Record<Phase, number>>,
  options: { concurrency: number; latencyMs: number },
): number;
export function timeline(
  requests: Array<{ method: string; path: string; at: string; durationMs: number }>,
  run: { startedAt: number; endedAt: number },
): {
  beforeFirstRequestMs: number;
  requestsMs: number;
  afterLastRequestMs: number;
  meanInFlight: number;
  meanRequestMs: number;
  phases: Partial<Record<Phase, { fromMs: number; toMs: number; meanInFlight: number }>>;
};
