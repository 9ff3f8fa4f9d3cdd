/**
 * Preloaded into each measured child (`node --import`): when the process exits, its own
 * resource usage (CPU time of all its threads, peak resident set) goes to the file named by
 * BENCH_RUSAGE_FILE. Measuring inside the child needs no platform tool such as /usr/bin/time.
 */
import { writeFileSync } from 'node:fs';

const target = process.env.BENCH_RUSAGE_FILE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify({ userUs: usage.userCPUTime, systemUs: usage.systemCPUTime, maxRssKb: usage.maxRSS }),
    );
  });
}
