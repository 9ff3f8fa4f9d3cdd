import type { Style } from '../render/index.js';
import type { GlobalOptions } from './command.js';
import type { Io } from './io.js';

/** Colour only on a terminal, and never with --no-color or NO_COLOR. */
export async function outputStyle(args: GlobalOptions, io: Io): Promise<Style> {
  const { ansiStyle, plainStyle } = await import('../render/index.js');
  const colour = args.color && io.isTTY && !io.env.NO_COLOR;
  return colour ? ansiStyle : plainStyle;
}
