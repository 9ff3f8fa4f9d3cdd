/**
 * One request from the socket to its answer, in the order of SPEC.md (Order of checks): read the
 * body; once the state file's lock is lost, every request is a 500; a test-only route is answered
 * at once; a service request goes rate limit → fault draw → route (auth, body checks, operation,
 * write) → log → latency → answer, or a reset connection.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EmulatorContext } from './context.js';
import { serveUnderFaults } from './http-faults.js';
import { errorReply, readCall, send } from './http-plumbing.js';
import type { Call, Handler, Reply } from './http-plumbing.js';
import { createRouter } from './router.js';
import { audienceRoutes } from './routes-audiences.js';
import { companyRoutes } from './routes-company.js';
import { controlRoutes, isControlPath } from './routes-control.js';
import { imagegenRoutes } from './routes-imagegen.js';

/** The two routers of a running emulator: the services', and the test-only routes'. */
interface Routers {
  services: Handler;
  control: Handler;
}

/** The server's request listener; a failure that escapes every route is still answered, as a 500, if it can be. */
export function requestListener(emulator: EmulatorContext): RequestListener {
  const routers: Routers = {
    services: createRouter([...audienceRoutes(emulator), ...companyRoutes(emulator), ...imagegenRoutes(emulator)]),
    control: controlRoutes(emulator),
  };
  return (req, res) => {
    answer(emulator, routers, req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) send(res, errorReply(error));
    });
  };
}

/** Reads the request, routes it and sends its reply, or resets the connection when a fault says so. */
async function answer(
  emulator: EmulatorContext,
  routers: Routers,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = performance.now();
  const call = await readCall(req);
  // A state that can no longer be written is not answered from: its answers would claim changes
  // that are on no disk (SPEC.md, State file).
  const lost = emulator.store.lost();
  if (lost) {
    send(res, errorReply(lost));
    return;
  }
  if (isControlPath(call.url.pathname)) {
    send(res, await routers.control(call));
    return;
  }
  const reply = await serviceReply(emulator, routers.services, call, started);
  if (reply.reset) {
    req.socket.resetAndDestroy();
    return;
  }
  send(res, reply);
}

/** A service request's reply under load and faults, logged, once its latency is due. */
async function serviceReply(emulator: EmulatorContext, services: Handler, call: Call, started: number): Promise<Reply> {
  // The answer leaves `delay` ms after the request arrived, the emulator's own work
  // included, so a run's requests can take exactly the latency they were given.
  const answerAt = started + emulator.faults.delayMs();
  const answered = await serveUnderFaults(emulator.faults, call, services, emulator.paths.imageAuthScheme);
  emulator.log.record(call, answered, emulator.now(), Math.round(Math.max(answerAt, performance.now()) - started));
  await waitUntil(answerAt);
  return answered.reply;
}

/**
 * Timers count whole milliseconds from a clock read at the start of the loop's turn, so one may
 * fire a little early: wait again until the answer is due, never answer early.
 */
async function waitUntil(due: number): Promise<void> {
  for (let remaining = due - performance.now(); remaining > 0; remaining = due - performance.now()) {
    await sleep(Math.ceil(remaining));
  }
}
