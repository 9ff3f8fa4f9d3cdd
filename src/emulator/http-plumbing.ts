/**
 * The HTTP plumbing every route shares: a request read into a `Call` (its body capped), the
 * JSON body and query parameters as the spec asks them to be checked, and a `Reply` written back.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse, stringify } from 'lossless-json';
import { EmulatorError, detailCodes as codes, failure, invalid } from './http-error.js';

export const MAX_BODY_BYTES = 25 * 1024 * 1024;
const JSON_TYPE = 'application/json;charset=UTF-8';

/** One request as the routes see it: `params` are the groups its route's pattern captured. */
export interface Call {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer | 'too-large';
  params: string[];
}

/** One answer: JSON, a file or nothing; `reset` resets the connection instead. */
export interface Reply {
  status: number;
  json?: unknown;
  file?: { contentType: string; bytes: Buffer };
  headers?: Record<string, string>;
  reset?: boolean;
}

export type Handler = (call: Call) => Promise<Reply>;

/** The request with its whole body read (see readBody); no route's params yet. */
export async function readCall(req: IncomingMessage): Promise<Call> {
  const body = await readBody(req);
  return {
    method: req.method ?? 'GET',
    url: new URL(req.url ?? '/', 'http://127.0.0.1'),
    headers: req.headers,
    body,
    params: [],
  };
}

/** Reads the whole body; beyond the limit it keeps draining (so the client can finish sending) but keeps nothing. */
async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks);
}

/** The JSON object of a service request: 415 unless application/json, 413 beyond the limit, 400 when malformed. */
export function jsonBody(call: Call): unknown {
  const type = call.headers['content-type'];
  if (type === undefined || !/^application\/json\s*(;|$)/i.test(type)) {
    throw failure(
      415,
      codes.unsupportedMediaType,
      `the body must be application/json, got ${type === undefined ? 'no Content-Type' : `'${type}'`}`,
    );
  }
  if (call.body === 'too-large') throw failure(413, codes.bodyTooLarge, `the body exceeds ${MAX_BODY_BYTES} bytes`);
  const text = call.body.toString('utf8');
  if (text.trim() === '') throw invalid(codes.malformedJson, 'the body is empty; a JSON object is required');
  return parseJson(text);
}

/**
 * A body's JSON with every digit of its integers: one past 2^53 (an id) is a bigint, any other
 * number a number. A key given twice keeps its last value, as most JSON readers do.
 */
function parseJson(text: string): unknown {
  try {
    return parse(text, null, {
      parseNumber: (digits) =>
        /^-?\d+$/.test(digits) && !Number.isSafeInteger(Number(digits)) ? BigInt(digits) : Number(digits),
      onDuplicateKey: ({ newValue }) => newValue,
    });
  } catch (error) {
    throw invalid(codes.malformedJson, `malformed JSON: ${(error as Error).message}`);
  }
}

/** Test routes take JSON whatever the Content-Type says, to keep test code short. */
export function lenientJson(call: Call): unknown {
  if (call.body === 'too-large') throw failure(413, codes.bodyTooLarge, `the body exceeds ${MAX_BODY_BYTES} bytes`);
  return parseJson(call.body.toString('utf8'));
}

/** A query parameter sent at most once: a repeated one is refused, not read by its first value. */
export function queryParam(call: Call, name: string): string | null {
  const values = call.url.searchParams.getAll(name);
  if (values.length > 1)
    throw invalid(codes.badQuery, `query parameter '${name}' is sent ${String(values.length)} times; send it once`);
  return values[0] ?? null;
}

/** A header's first value: node gives a list for a few headers sent more than once. */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A 200 with a JSON body. */
export function ok(json: unknown): Reply {
  return { status: 200, json };
}

/** The answer to a thrown error: its own status and body, or a 500 (8003) for anything not an EmulatorError. */
export function errorReply(error: unknown): Reply {
  if (error instanceof EmulatorError) return { status: error.status, json: error.body };
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, json: failure(500, codes.internal, `emulator failure: ${message}`).body };
}

/** Writes the reply with its Content-Type and Content-Length, unless the client has gone. */
export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const headers: Record<string, string | number> = { ...reply.headers };
  let payload: Buffer;
  if (reply.file) {
    headers['Content-Type'] = reply.file.contentType;
    payload = reply.file.bytes;
  } else if (reply.json !== undefined) {
    headers['Content-Type'] = JSON_TYPE;
    // Ids are bigints in answers (ids.ts): written as numbers with every digit.
    payload = Buffer.from(stringify(reply.json) ?? 'null', 'utf8');
  } else {
    payload = Buffer.alloc(0);
  }
  headers['Content-Length'] = payload.length;
  res.writeHead(reply.status, headers);
  res.end(payload);
}
