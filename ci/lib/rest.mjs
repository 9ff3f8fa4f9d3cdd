// A small REST client on Node's own fetch, for the GitHub and GitLab APIs the pipeline
// scripts call: JSON in and out, errors that say what to change, and pagination that never
// sends the token to another host than the API's own.

/** A failed API call, with the status and the service's own message. */
export class ApiError extends Error {
  /**
   * @param {string} message
   * @param {number} status
   */
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/**
 * @param {{ baseUrl: string, headers: Record<string, string>, service: string }} options
 *   baseUrl: the API root (`GITHUB_API_URL`, `CI_API_V4_URL`); headers: the credential and the
 *   media type; service: how errors name the API.
 */
export function restClient({ baseUrl, headers, service }) {
  const root = baseUrl.replace(/\/+$/, '');
  const origin = new URL(root).origin;

  /**
   * @param {string} method
   * @param {string} pathOrUrl a path under the API root, or a full URL on the API's host
   * @param {unknown} [body]
   * @param {{ download?: boolean }} [options] download: a GET that may be redirected to another
   *   host (GitHub's artifacts, GitLab's object storage), followed there without the headers
   * @returns {Promise<Response>}
   */
  async function send(method, pathOrUrl, body, { download = false } = {}) {
    let url = pathOrUrl.startsWith('http') ? pathOrUrl : `${root}${pathOrUrl}`;
    // The credential goes to the API's host only (a Link header or a redirect never moves it):
    // fetch would follow a redirect elsewhere dropping only `authorization`, not `private-token`.
    if (new URL(url).origin !== origin)
      throw new Error(`${service}: refusing to send the token to ${new URL(url).origin}`);
    let response;
    for (let hops = 0; ; hops++) {
      try {
        // A form (an upload) sets its own content type, with the boundary of its parts.
        const json = body !== undefined && !(body instanceof FormData);
        response = await fetch(url, {
          method,
          headers: { ...headers, ...(json ? { 'content-type': 'application/json' } : {}) },
          body: json ? JSON.stringify(body) : /** @type {FormData | undefined} */ (body),
          signal: AbortSignal.timeout(60_000),
          redirect: 'manual',
        });
      } catch (error) {
        throw new ApiError(`${service}: ${method} ${new URL(url).pathname} failed: ${reason(error)}`, 0);
      }
      const location = REDIRECTS.includes(response.status) ? response.headers.get('location') : null;
      if (location === null) break;
      const next = new URL(location, url);
      if (method !== 'GET' || hops >= 5)
        throw new ApiError(
          `${service}: ${method} ${new URL(url).pathname} was redirected ${hops >= 5 ? 'too many times' : `to ${next.pathname}`}`,
          response.status,
        );
      if (next.origin !== origin) {
        if (download) return fetchElsewhere(next);
        throw new ApiError(
          `${service}: GET ${new URL(url).pathname} was redirected to ${next.origin}, where the token is not sent`,
          response.status,
        );
      }
      url = next.toString();
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      let message = text.slice(0, 500);
      try {
        const parsed = JSON.parse(text);
        message = String(parsed.message ?? parsed.error ?? message);
      } catch {
        // Not JSON: the text itself.
      }
      throw new ApiError(
        `${service} answered ${response.status} to ${method} ${new URL(url).pathname}: ${message}`,
        response.status,
      );
    }
    return response;
  }

  return {
    /**
     * One JSON request.
     * @param {string} method
     * @param {string} path
     * @param {unknown} [body]
     */
    async request(method, path, body) {
      const response = await send(method, path, body);
      const text = await response.text();
      return text ? JSON.parse(text) : undefined;
    },

    /**
     * Every item of a listed resource, page after page, following `Link: <…>; rel="next"`
     * (both services send it), up to `maxPages`.
     * @param {string} path
     * @param {{ maxPages?: number, items?: (page: any) => any[] }} [options]
     */
    async paginate(path, { maxPages = 100, items = (page) => page } = {}) {
      const all = [];
      /** @type {string | undefined} */
      let next = path;
      for (let page = 0; next && page < maxPages; page++) {
        const response = await send('GET', next);
        all.push(...items(await response.json()));
        next = nextLink(response.headers.get('link'));
      }
      return all;
    },

    /**
     * A file sent as the `file` part of a multipart form (GitLab's project uploads); the JSON answer.
     * @param {string} path
     * @param {string} name the file's name
     * @param {Uint8Array} bytes
     * @returns {Promise<any>}
     */
    async upload(path, name, bytes) {
      const form = new FormData();
      form.append('file', new Blob([bytes]), name);
      const response = await send('POST', path, form);
      return response.json();
    },

    /**
     * The raw bytes of a download, followed without the credential where a redirect leaves the
     * API's host (a signed URL is its own credential).
     * @param {string} path
     */
    async download(path) {
      const response = await send('GET', path, undefined, { download: true });
      return Buffer.from(await response.arrayBuffer());
    },
  };
}

/** The statuses whose `location` a client follows. */
const REDIRECTS = [301, 302, 303, 307, 308];

/**
 * A download from the host an API redirected it to, with none of the API's headers.
 * @param {URL} url
 */
async function fetchElsewhere(url) {
  const where = `${url.origin}${url.pathname}`;
  let response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    throw new ApiError(`the download from ${where} failed: ${reason(error)}`, 0);
  }
  if (!response.ok) throw new ApiError(`the download from ${where} answered ${response.status}`, response.status);
  return response;
}

/**
 * The `rel="next"` URL of a Link header.
 * @param {string | null} header
 */
export function nextLink(header) {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * Why a request could not be made: fetch's own error says only "fetch failed", its cause says why.
 * @param {unknown} error
 */
function reason(error) {
  const failed = /** @type {Error & { cause?: Error }} */ (error);
  return failed.cause?.message ?? failed.message;
}
