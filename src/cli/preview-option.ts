import { fileOption } from './command.js';
import type { Io } from './io.js';
import type { PreviewRun } from '../render/previews.js';

/** `--preview FILE`: what a pipeline's image preview did, which the Markdown comment shows (see PreviewRun). */
export const PREVIEW_OPTION = {
  type: 'string',
  requiresArg: true,
  describe:
    "What a pipeline's image preview did (JSON: requests, commit, notCommitted, artifact, urls by SHA-256): the Markdown comment shows the images of the change with it",
} as const;

/** The preview of --preview, read and checked; undefined without the option. */
export async function previewOf(
  args: Record<string, unknown>,
  io: Io,
  example: string,
): Promise<PreviewRun | undefined> {
  const file = fileOption(args, 'preview', '--preview', example);
  if (file === undefined) return undefined;
  const { readPreviewRun } = await import('../operations/preview-run.js');
  return readPreviewRun(file, io.cwd);
}
