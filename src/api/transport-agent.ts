/**
 * The transport's connection pool, and the one place that loads it: undici's Agent by its
 * own module (see undici-agent.d.ts) instead of the package's index, which loads all of
 * undici: every networked start is shorter for it (bench/NOTES.md). Everything else
 * sees only the agent's `dispatch` and `close`, so the simple version (`import { Agent }
 * from 'undici'`) would change this file alone.
 */
import type { Agent } from 'undici';
import UndiciAgent from 'undici/lib/dispatcher/agent.js';

export interface Timeouts {
  /** Establishing the connection (TCP and TLS). */
  connectMs: number;
  /** From sending the request to the end of the response headers. */
  headersMs: number;
  /** The longest silence between two chunks of the response body. */
  bodyMs: number;
  /** One attempt in all, from sending to the last byte: a body that drips a byte at a time ends here. */
  totalMs: number;
}

/** What the transport uses of the agent: sending one request, and closing the kept-alive connections. */
export type TransportAgent = Pick<Agent, 'dispatch' | 'close'>;

/** An agent that keeps connections alive, at most `connections` per origin, with these timeouts. */
export function createTransportAgent(connections: number, timeouts: Timeouts): TransportAgent {
  return new UndiciAgent({
    connections,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  });
}
