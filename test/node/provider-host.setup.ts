/**
 * Global setup of the chromium project (Node code, so it lives with the Node tests): the
 * provider host (provider-host.ts) runs in Node, and its origins are handed to the page
 * through vitest's provide/inject, so the adapter cases reach it with Chromium's own fetch.
 */
import type { TestProject } from 'vitest/node';
import type { ProviderOrigins } from '../core/harness.js';
import { startProviderHost } from './provider-host.js';

declare module 'vitest' {
  export interface ProvidedContext {
    providerHost: ProviderOrigins;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const host = await startProviderHost();
  project.provide('providerHost', { provider: host.provider, elsewhere: host.elsewhere });
  return () => host.close();
}
