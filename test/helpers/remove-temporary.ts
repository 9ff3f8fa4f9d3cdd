/**
 * A setup file of the unit and integration projects (vitest.config.ts): after each test
 * file, the folders its tests made with `temporaryDir` are removed.
 */
import { afterAll } from 'vitest';
import { removeTemporaryDirs } from './temporary.js';

afterAll(removeTemporaryDirs);
