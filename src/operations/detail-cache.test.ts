import { describe, expect, it } from 'vitest';
import { cacheService, detailCachePath } from './detail-cache.js';

const endpoints = (apiUrl: string) => ({ apiUrl, companyUrl: undefined, imageUrl: undefined, accessToken: 'token', appKey: undefined });

describe('the service a read cache is kept for', () => {
  it('is the address requests go to: scheme, host, port and path, never a user name, password, query or fragment', () => {
    expect(cacheService({ emulated: false, endpoints: endpoints('https://someone:hunter2@ads.example.com:8443/base/?key=secret#top') })).toBe('https://ads.example.com:8443/base');
    expect(cacheService({ emulated: false, endpoints: endpoints('https://ads.example.com') })).toBe('https://ads.example.com');
  });

  it('is the state file for the built-in emulator, whose port changes every run', () => {
    const first = cacheService({ emulated: true, endpoints: endpoints('http://127.0.0.1:40001') });
    expect(cacheService({ emulated: true, endpoints: endpoints('http://127.0.0.1:40002') })).toBe(first);
    expect(first).toBe('emulator .audiences/emulator-state.json');
  });

  it('names one file per service and account', () => {
    const paths = [
      detailCachePath('/w', { service: 'https://a.example.com', adAccountId: 1 }),
      detailCachePath('/w', { service: 'https://b.example.com', adAccountId: 1 }),
      detailCachePath('/w', { service: 'https://a.example.com', adAccountId: 2 }),
    ];
    expect(new Set(paths).size).toBe(3);
    expect(paths[0]).toMatch(/^\/w\/\.audiences\/cache\/1-[0-9a-f]{16}\.json$/);
  });
});
