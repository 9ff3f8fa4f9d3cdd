/**
 * Test support for the service clients: a transport with fast retries, a scripted proxy in
 * front of the emulator (to lose answers at chosen moments), a tiny scripted server (for
 * answers the emulator never gives), and readers of the emulator's test routes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpClient, type HttpClient, type HttpClientOptions } from '../../src/api/http.js';
import type { RunningEmulator } from '../../src/emulator/server.js';

export const FAST_RETRY = { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 5, budgetMs: 10_000 };

export function transport(options: Partial<HttpClientOptions> & Pick<HttpClientOptions, 'baseUrl'>): HttpClient {
  return createHttpClient({ service: 'audience', retry: FAST_RETRY, ...options });
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * What the proxy does with one request:
 * - `pass`: forward it and relay the answer;
 * - `500-before` / `reset-before`: fail without forwarding (the service never saw it);
 * - `500-after` / `reset-after`: forward it (the service acts), then lose the answer;
 * - `refuse`: answer 403 without forwarding (a refusal the client does not retry);
 * - `{status, body, headers}`: answer that without forwarding (the real service's answers the emulator never gives).
 */
export type ProxyAction =
  | 'pass'
  | '500-before'
  | 'reset-before'
  | '500-after'
  | 'reset-after'
  | 'refuse'
  | { status: number; body: unknown; headers?: Record<string, string> };

export interface Proxy {
  url: string;
  /** Every request, as "METHOD /path?query", in arrival order. */
  seen: string[];
  close(): Promise<void>;
}

/** `decide` sees each request as "METHOD /path?query", its index in arrival order and its body. */
export async function startProxy(
  target: string,
  decide: (request: string, index: number, body: string) => ProxyAction,
): Promise<Proxy> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = await readBody(req);
      const request = `${req.method ?? ''} ${req.url ?? ''}`;
      seen.push(request);
      const action = decide(request, seen.length - 1, body.toString('utf8'));
      const fail500 = () => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            code: -500,
            msg: 'Internal Server Error',
            extras: { detailCode: 8002, detailMsg: 'injected by the test proxy' },
          }),
        );
      };
      if (action === '500-before') return fail500();
      if (action === 'refuse') {
        res.writeHead(403, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            code: -403,
            msg: 'Forbidden',
            extras: { detailCode: 1003, detailMsg: 'refused by the test proxy' },
          }),
        );
      }
      if (action === 'reset-before') return req.socket.destroy();
      if (typeof action === 'object') {
        res.writeHead(action.status, { 'content-type': 'application/json;charset=UTF-8', ...action.headers });
        return res.end(JSON.stringify(action.body));
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          (entry): entry is [string, string] =>
            typeof entry[1] === 'string' && !['host', 'connection', 'content-length'].includes(entry[0]),
        ),
      );
      const answer = await fetch(`${target}${req.url ?? ''}`, {
        method: req.method,
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const bytes = Buffer.from(await answer.arrayBuffer());
      if (action === '500-after') return fail500();
      if (action === 'reset-after') return req.socket.destroy();
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/octet-stream',
        'content-length': String(bytes.length),
      });
      res.end(bytes);
    })();
  });
  const url = await listen(server);
  return { url, seen, close: () => stop(server) };
}

/** One scripted answer; it sees the request and its body. */
export type Script = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface ScriptedServer {
  url: string;
  seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  /** Answers by request index; the last one repeats. */
  answers: Script[];
  close(): Promise<void>;
}

export async function startScripted(answers: Script[] = []): Promise<ScriptedServer> {
  const state: ScriptedServer = { url: '', seen: [], answers, close: async () => undefined };
  const server = createServer((req, res) => {
    void readBody(req).then((buffer) => {
      const body = buffer.toString('utf8');
      state.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = state.answers[Math.min(state.seen.length - 1, state.answers.length - 1)];
      if (answer) answer(req, res, body);
      else res.writeHead(500).end();
    });
  });
  state.url = await listen(server);
  state.close = () => stop(server);
  return state;
}

export function reply(status: number, body: unknown, headers: Record<string, string> = {}): Script {
  return (_req, res) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers });
    res.end(text);
  };
}

export function replyBytes(status: number, bytes: Uint8Array, contentType: string): Script {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType, 'content-length': String(bytes.length) });
    res.end(Buffer.from(bytes));
  };
}

/** Never answers: for timeouts. */
export const silence: Script = () => undefined;

interface StoredAudience {
  id: number;
  adAccountId: number;
  name: string;
  genders: string[];
  [field: string]: unknown;
}

/** The emulator's audiences of one account, as stored. */
export async function storedAudiences(emulator: RunningEmulator, adAccountId: number): Promise<StoredAudience[]> {
  const response = await fetch(`${emulator.url}/_emulator/state`);
  const state = (await response.json()) as { audiences: StoredAudience[] };
  return state.audiences.filter((audience) => audience.adAccountId === adAccountId);
}

export async function emulatorCall(
  emulator: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${String(response.status)} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
