/** Types of core.mjs, for the smoke test (test/bench-smoke.test.ts). */
export interface BenchOptions {
  /** Numbers of managed audiences to run the network scenarios with. */
  sizes: number[];
  /** Fixed latency the emulator adds to every request. */
  latencyMs: number;
  /** Passed to the command as --concurrency. */
  concurrency: number;
  /** The sizes at which the naive sequential client runs too. */
  naiveSizes: number[];
  /**
   * Applies of `creates` audiences to a fresh account whose writes the emulator limits to
   * `rateLimit` per second (quota answers spelled `quotaStatus`, without Retry-After); `paced`:
   * with `--requests-per-second rateLimit`. null: none.
   */
  quota: { creates: number; runs: QuotaRunSettings[] } | null;
  /** Plans with no changes at no latency (each with its floor) at these sizes; none when left out. */
  noLatencySizes?: number[];
  /**
   * Runs over `count` accounts: one plan of `audiences` in each, one apply of `creates` to each under `rateLimit` writes
   * a second per account (0 creates: no apply); null or left out: none.
   */
  accounts?: { count: number; audiences: number; creates: number; rateLimit: number } | null;
  /** Cold starts of `--help` and of `validate` on files of these sizes (medians of `runs`); null: none. */
  coldStart: { runs: number; validateSizes: number[] } | null;
  /** Audiences planned offline (no network); 0: none. */
  offlineSize: number;
  /** How many times each plan and apply of up to 1000 audiences (with its floor) and each quota run at 50 writes a second or more is measured; 1 when left out. */
  repeat?: number;
  outFile: string;
  log?: (entry: BenchEntry | { note: string }) => void;
}

export interface QuotaRunSettings {
  rateLimit: number;
  quotaStatus: 429 | 400;
  paced: boolean;
}

/** One run; figures that do not apply to it (e.g. the lower bound of a cold start) are null. */
export interface BenchEntry {
  name: string;
  n: number;
  requests: number;
  wallMs: number | null;
  lowerBoundMs: number | null;
  ratio: number | null;
  cpuMs: number | null;
  peakRssMb: number | null;
  ok: boolean;
  problem?: string;
  /** Requests per phase (network runs). */
  byPhase?: Record<'list' | 'read' | 'linkRead' | 'unlink' | 'write' | 'delete' | 'other', number>;
  [more: string]: unknown;
}

export const FULL_OPTIONS: Readonly<Omit<BenchOptions, 'outFile' | 'log'>>;
export const QUICK_OPTIONS: Readonly<Omit<BenchOptions, 'outFile' | 'log'>>;
export function runBench(options: BenchOptions): Promise<BenchEntry[]>;
