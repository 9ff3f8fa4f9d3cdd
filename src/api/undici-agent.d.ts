/**
 * undici's Agent by its own module, loaded by transport-agent.ts alone. The package's index
 * loads all of undici (fetch, WebSocket, caches, mocks, the cookie helpers that wake node's
 * own copy of undici), a large part of every start. The transport needs the Agent
 * and its `dispatch` only. The class is the one the package exports, so its type is too.
 */
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const AgentClass: typeof Agent;
  export default AgentClass;
}
