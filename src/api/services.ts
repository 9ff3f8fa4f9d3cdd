import { AppError } from '../errors.js';
import { createAudienceClient, type AudienceClient } from './audiences.js';
import { createBusinessClient, type BusinessClient } from './business.js';
import { DEFAULT_MAX_CONCURRENCY, RequestGate } from './gate.js';
import { createHttpLanes, type HttpClientOptions, type HttpLane, type HttpLanes } from './http.js';
import { createImageClient, type ImageClient } from './imagegen.js';
import { authSchemeSetting, companyPathSetting, modelFamilySetting } from './path-settings.js';

/** Where the three services are and the credentials for them. */
export interface Endpoints {
  apiUrl: string;
  /** The business service's own address; without it, the business service is reached at apiUrl. */
  companyUrl: string | undefined;
  imageUrl: string | undefined;
  accessToken: string | undefined;
  appKey: string | undefined;
  /** The path settings as set (see path-settings.ts); unset or empty, the spec's. */
  modelFamily?: string | undefined;
  imageAuthScheme?: string | undefined;
  companyPath?: string | undefined;
}

export interface TransportOptions {
  /** Requests in flight at once, per ad account (and for each of the business and image services). */
  concurrency: number;
  /** Requests in flight at once in all (default DEFAULT_MAX_CONCURRENCY), whatever the accounts and services. */
  maxConcurrency?: number | undefined;
  /**
   * Spaces request starts to stay under a known quota (each account and service has its own): `--requests-per-second`,
   * which wins over an account's own rate.
   */
  requestsPerSecond?: number | undefined;
  verbose: boolean;
  log: (line: string) => void;
}

/**
 * The clients of the three services, created on first use. The quota of the audience API is per ad
 * account, so each account's client has its own slots, adaptive rate and pacing (a lane), over the
 * connections of the service: one account held back by the service never slows another. The business
 * lookup keeps one limiter for all accounts (a command makes one lookup per account at most, too few to
 * pace), and so does the image service (its key, not an account, is what its quota counts). A gate
 * shared by all of them bounds the requests in flight in all (`--max-concurrency`).
 */
export interface Services {
  /**
   * `requestsPerSecond`: the account's own rate (its file's `requestsPerSecond`), which paces its requests unless the
   * command set a rate for all; given once the file is read, it paces the account's client from then on.
   */
  audiences(adAccountId: number, requestsPerSecond?: number): AudienceClient;
  business(adAccountId: number): BusinessClient;
  images(): ImageClient;
  /** An interrupt: no request of any service sends its first attempt any more (see HttpClient.stopStarting). */
  stopStarting(): void;
  close(): Promise<void>;
}

export function createServices(endpoints: Endpoints, options: TransportOptions): Services {
  const gate = new RequestGate(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
  const transports: HttpLanes[] = [];
  const lanes = (settings: Pick<HttpClientOptions, 'service' | 'baseUrl' | 'urlSetting' | 'headers'>): HttpLanes => {
    const http = createHttpLanes({
      ...settings,
      concurrency: options.concurrency,
      requestsPerSecond: options.requestsPerSecond,
      gate,
      verbose: options.verbose,
      log: options.log,
    });
    transports.push(http);
    return http;
  };
  /**
   * A service's clients, one per ad account, over its connections made on first use: each over a lane of its own
   * (`ownLane`), paced at the account's rate when given one, else all over one.
   */
  const perAccount = <C>(
    settings: () => Pick<HttpClientOptions, 'service' | 'baseUrl' | 'urlSetting' | 'headers'>,
    create: (http: HttpLane, adAccountId: number) => C,
    ownLane: boolean,
  ) => {
    let http: HttpLanes | undefined;
    let sharedLane: HttpLane | undefined;
    const clients = new Map<number, { client: C; lane: HttpLane }>();
    return (adAccountId: number, requestsPerSecond?: number): C => {
      http ??= lanes(settings());
      const known = clients.get(adAccountId);
      if (known !== undefined) {
        if (ownLane && requestsPerSecond !== undefined) known.lane.pace(requestsPerSecond);
        return known.client;
      }
      const lane = ownLane ? http.lane(requestsPerSecond) : (sharedLane ??= http.lane());
      const client = create(lane, adAccountId);
      clients.set(adAccountId, { client, lane });
      return client;
    };
  };
  const bearer = () => ({
    Authorization: `Bearer ${requireCredential(endpoints.accessToken, 'ADS_ACCESS_TOKEN', 'Bearer')}`,
  });
  const audiences = perAccount(
    () => ({ service: 'audience', baseUrl: endpoints.apiUrl, headers: bearer() }),
    createAudienceClient,
    true,
  );
  const business = perAccount(
    () => ({
      service: 'business',
      baseUrl: endpoints.companyUrl ?? endpoints.apiUrl,
      urlSetting: endpoints.companyUrl === undefined ? 'ADS_API_URL' : 'ADS_COMPANY_URL',
      headers: bearer(),
    }),
    (http, adAccountId) => createBusinessClient(http, adAccountId, companyPathSetting(endpoints.companyPath)),
    false,
  );
  let images: ImageClient | undefined;
  return {
    // The command line's rate is every account's; without it, each account's own.
    audiences: (adAccountId, requestsPerSecond) =>
      audiences(adAccountId, options.requestsPerSecond === undefined ? requestsPerSecond : undefined),
    business,
    images() {
      if (images) return images;
      const scheme = authSchemeSetting(endpoints.imageAuthScheme);
      const modelFamily = modelFamilySetting(endpoints.modelFamily);
      images = createImageClient(
        lanes({
          service: 'imagegen',
          baseUrl: requireSetting(endpoints.imageUrl, 'IMAGEGEN_API_URL'),
          headers: { Authorization: `${scheme} ${requireCredential(endpoints.appKey, 'IMAGEGEN_API_KEY', scheme)}` },
        }).lane(),
        modelFamily,
      );
      return images;
    },
    stopStarting() {
      for (const http of transports) http.stopStarting();
    },
    async close() {
      await Promise.all(transports.map((http) => http.close()));
    },
  };
}

function requireSetting(value: string | undefined, variable: string): string {
  if (value) return value;
  const url = variable.endsWith('_URL');
  throw new AppError({
    code: url ? 'NO_SERVICE' : 'NO_CREDENTIAL',
    source: 'user',
    summary: `${variable} is not set`,
    hint: `set ${variable} to ${url ? 'the address of' : 'the credential for'} the service, or pass --emulator to use the built-in emulator`,
  });
}

/**
 * A token or key as it goes into the Authorization header: visible ASCII without spaces. A
 * pasted line break or the scheme word pasted with it is named here, not left to fail (and be
 * retried) as a network error.
 */
function requireCredential(value: string | undefined, variable: string, scheme: string): string {
  const credential = requireSetting(value, variable);
  if (/^[\x21-\x7e]+$/.test(credential)) return credential;
  const withScheme = credential.toLowerCase().startsWith(`${scheme.toLowerCase()} `);
  throw new AppError({
    code: 'INVALID_CREDENTIAL',
    source: 'user',
    summary: withScheme
      ? `${variable} starts with the word ${scheme}`
      : `${variable} has a space, a line break or another character a request header cannot carry`,
    hint: withScheme
      ? `set ${variable} to the credential alone: audiences sends "Authorization: ${scheme} <${variable}>" itself`
      : `copy the credential into ${variable} again, without surrounding spaces or line breaks`,
  });
}
