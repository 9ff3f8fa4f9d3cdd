/**
 * The model: the canonical domain types both sides of a plan reduce to, and the pure
 * functions that put them in canonical form. It depends on nothing else in the project.
 */
export * from './audience.js';
export * from './canonicalize.js';
export * from './company.js';
export * from './image.js';
export * from './json.js';
export * from './long.js';
export * from './state.js';
export * from './names.js';
export * from './business.js';
export * from './images.js';
export * from './kinds.js';
export * from './visible.js';
