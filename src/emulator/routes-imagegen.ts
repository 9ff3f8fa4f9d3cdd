/**
 * The image-generation routes (imagegen-api.md): the three operations under the configured model
 * family (the spec's `imagegen` by default) behind the app key, and the files their URLs name.
 */
import { authorizeImages } from './auth.js';
import type { EmulatorContext } from './context.js';
import { detailCodes as codes, failure } from './http-error.js';
import { jsonBody } from './http-plumbing.js';
import { escapePattern, type Route } from './router.js';

export function imagegenRoutes(emulator: EmulatorContext): Route[] {
  return [
    {
      pattern: new RegExp(`^/v2/inference/${escapePattern(emulator.paths.modelFamily)}/(t2i|variations|inpainting)$`),
      methods: {
        POST: async (call) => {
          authorizeImages(emulator, call.headers);
          const operation = call.params[0] as 't2i' | 'variations' | 'inpainting';
          const result = await emulator.imagegen.handle(operation, jsonBody(call));
          return { status: result.status, json: result.body };
        },
      },
    },
    {
      // No auth (SPEC.md, Routes): a client fetches a returned URL as it is, with no credential.
      pattern: /^\/images\/([^/]+)$/,
      methods: {
        GET: async (call) => {
          const name = call.params[0] ?? '';
          const file = emulator.imagegen.file(name);
          if (!file) throw failure(404, codes.imageNotFound, `image ${name} is unknown or its URL has expired`);
          return { status: 200, file };
        },
      },
    },
  ];
}
