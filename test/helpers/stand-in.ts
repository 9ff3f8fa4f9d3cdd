import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';

/** One request a stand-in received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface StandIn {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Answer = { status?: number; headers?: Record<string, string>; json?: unknown; bytes?: Buffer } | undefined;

/**
 * A loopback HTTP server standing in for a remote API (GitHub's, GitLab's, a registry): it
 * records every request and answers with `handle`'s answer (404 when it has none).
 */
export async function standIn(
  handle: (request: RecordedRequest, url: URL) => Answer | Promise<Answer>,
): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON: kept as text.
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: `${url.pathname}${url.search}`,
        headers: req.headers,
        body,
      };
      requests.push(request);
      Promise.resolve(handle(request, url))
        .then((answer) => {
          if (!answer) {
            res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not Found' }));
            return;
          }
          const payload =
            answer.bytes ?? (answer.json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(answer.json)));
          res
            .writeHead(answer.status ?? 200, {
              ...(answer.json === undefined ? {} : { 'content-type': 'application/json' }),
              ...answer.headers,
            })
            .end(payload);
        })
        .catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A zip archive of these files, deflated, as GitHub serves an artifact. */
export function zip(files: Record<string, Buffer | string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Runs a program; never throws: its exit code and output. */
export function run(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        maxBuffer: 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 60_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
        }),
    );
  });
}

/** Runs git in a folder and returns its trimmed output; throws on failure. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await run('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'dev',
      GIT_AUTHOR_EMAIL: 'dev@example.test',
      GIT_COMMITTER_NAME: 'dev',
      GIT_COMMITTER_EMAIL: 'dev@example.test',
    },
  });
  if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * A folder, made in `dir`, holding an `rsync` that runs the stand-in of test/helpers/rsync.mjs
 * with this Node: put first on gitlab-ci-local's PATH, it copies files as rsync does for the
 * invocations gitlab-ci-local makes, so that the GitLab example's test needs no rsync installed.
 */
export async function rsyncStandIn(dir: string): Promise<string> {
  const bin = join(dir, 'rsync-stand-in');
  await mkdir(bin, { recursive: true });
  const shellWord = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  const script = fileURLToPath(new URL('rsync.mjs', import.meta.url));
  const wrapper = `#!/bin/sh\nexec ${shellWord(process.execPath)} ${shellWord(script)} "$@"\n`;
  await writeFile(join(bin, 'rsync'), wrapper, { mode: 0o755 });
  return bin;
}
