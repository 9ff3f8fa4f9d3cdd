import { AppError } from '../errors.js';
import { createAudienceClient, type AudienceClient } from './audiences.js';
import { createHttpClient, type HttpClient } from './http.js';

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
  verbose: boolean;
  log: (line: string) => void;
}

/** The clients of the three services over one transport each, created on first use. */
export interface Services {
  audiences(adAccountId: number): AudienceClient;
  close(): Promise<void>;
}

export function createServices(endpoints: Endpoints, options: TransportOptions): Services {
  let audienceHttp: HttpClient | undefined;
  const clients = new Map<number, AudienceClient>();
  return {
    audiences(adAccountId) {
      audienceHttp ??= createHttpClient({
        service: 'audience',
        baseUrl: endpoints.apiUrl,
        headers: { Authorization: `Bearer ${requireCredential(endpoints.accessToken, 'ADS_ACCESS_TOKEN')}` },
        concurrency: options.concurrency,
        verbose: options.verbose,
        log: options.log,
      });
      let client = clients.get(adAccountId);
      if (!client) clients.set(adAccountId, (client = createAudienceClient(audienceHttp, adAccountId)));
      return client;
    },
    async close() {
      await audienceHttp?.close();
    },
  };
}

function requireCredential(value: string | undefined, variable: string): string {
  if (value) return value;
  throw new AppError({
    code: 'NO_CREDENTIAL',
    source: 'user',
    summary: `${variable} is not set`,
    hint: `set ${variable} to the credential for the service, or pass --emulator to use the built-in emulator`,
  });
}
