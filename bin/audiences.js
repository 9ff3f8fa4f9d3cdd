#!/usr/bin/env node
// With --debug, stack traces name the TypeScript sources (the bundle carries source maps).
if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true);
const { main } = await import('../dist/bundle/audiences.js');

process.exitCode = await main(process.argv.slice(2));
