import { AppError } from '../errors.js';
import { createAudienceClient, type AudienceClient } from './audiences.js';
import { createBusinessClient, type BusinessClient } from './business.js';
import { createHttpClient, type HttpClient, type HttpClientOptions } from './http.js';
import { createImageClient, type ImageClient } from './imagegen.js';

/** Where the three services are and the credentials for them. */
export interface Endpoints {
  apiUrl: string;
  companyUrl: string;
  imageUrl: string | undefined;
  accessToken: string | undefined;
  appKey: string | undefined;
}

export interface TransportOptions {
  concurrency: number;
  /** Spaces request starts to stay under a known quota (each service has its own). */
  requestsPerSecond?: number | undefined;
  verbose: boolean;
  log: (line: string) => void;
}

/** The clients of the three services over one transport each, created on first use. */
export interface Services {
  audiences(adAccountId: number): AudienceClient;
  business(adAccountId: number): BusinessClient;
  images(): ImageClient;
  close(): Promise<void>;
}

export function createServices(endpoints: Endpoints, options: TransportOptions): Services {
  const transports: HttpClient[] = [];
  const transport = (settings: Pick<HttpClientOptions, 'service' | 'baseUrl' | 'headers'>): HttpClient => {
    const http = createHttpClient({
      ...settings,
      concurrency: options.concurrency,
      requestsPerSecond: options.requestsPerSecond,
      verbose: options.verbose,
      log: options.log,
    });
    transports.push(http);
    return http;
  };
  let audienceHttp: HttpClient | undefined;
  let businessHttp: HttpClient | undefined;
  let images: ImageClient | undefined;
  const audienceClients = new Map<number, AudienceClient>();
  const businessClients = new Map<number, BusinessClient>();
  return {
    audiences(adAccountId) {
      audienceHttp ??= transport({
        service: 'audience',
        baseUrl: endpoints.apiUrl,
        headers: { Authorization: `Bearer ${requireSetting(endpoints.accessToken, 'ADS_ACCESS_TOKEN')}` },
      });
      let client = audienceClients.get(adAccountId);
      if (!client) audienceClients.set(adAccountId, (client = createAudienceClient(audienceHttp, adAccountId)));
      return client;
    },
    business(adAccountId) {
      businessHttp ??= transport({
        service: 'business',
        baseUrl: endpoints.companyUrl,
        headers: { Authorization: `Bearer ${requireSetting(endpoints.accessToken, 'ADS_ACCESS_TOKEN')}` },
      });
      let client = businessClients.get(adAccountId);
      if (!client) businessClients.set(adAccountId, (client = createBusinessClient(businessHttp, adAccountId)));
      return client;
    },
    images() {
      images ??= createImageClient(
        transport({
          service: 'imagegen',
          baseUrl: requireSetting(endpoints.imageUrl, 'IMAGEGEN_API_URL'),
          headers: { Authorization: `AppKey ${requireSetting(endpoints.appKey, 'IMAGEGEN_API_KEY')}` },
        }),
      );
      return images;
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
