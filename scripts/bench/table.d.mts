/** Types of table.mjs, for the smoke test. */
import type { BenchEntry } from './core.mjs';

export const FLOORED_RUNS: string[];
export function label(entry: BenchEntry): string;
export function renderTable(results: BenchEntry[]): string;
export function renderTargets(results: BenchEntry[]): string;
export function floorOfRun(results: BenchEntry[], entry: BenchEntry, pacing?: string): BenchEntry | undefined;
