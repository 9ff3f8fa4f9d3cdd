import type { Style } from '../render/index.js';
import type { GlobalOptions } from './command.js';
import type { Io } from './io.js';

/**
 * Whether to colour the output, the first that applies: --color or --no-color; FORCE_COLOR
 * (on, unless it is 0 or false); NO_COLOR (off, when not empty); TERM=dumb (off); on a
 * terminal.
 */
export function wantsColour(args: Pick<GlobalOptions, 'color'>, io: Pick<Io, 'isTTY' | 'env'>): boolean {
  if (args.color !== undefined) return args.color;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.trim().toLowerCase());
  if (io.env.NO_COLOR) return false;
  if (io.env.TERM === 'dumb') return false;
  return io.isTTY;
}

export async function outputStyle(args: GlobalOptions, io: Io): Promise<Style> {
  const { ansiStyle, plainStyle } = await import('../render/index.js');
  return wantsColour(args, io) ? ansiStyle : plainStyle;
}
