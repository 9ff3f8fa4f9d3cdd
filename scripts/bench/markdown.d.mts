/** Types of markdown.mjs, for the smoke test. */
import type { BenchEntry } from './core.mjs';

export function renderMarkdown(results: BenchEntry[]): string;
