/**
 * The shared core suite against the Node entry, as `import … from '@rulvar/core'` gets it on
 * Node. streamable-http cases run in process and again over a real loopback listener.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { coreSuite } from '../core/suite.js';
import { inProcessWire } from '../core/wire.js';
import { loopbackWire, startLoopbackHost } from './loopback-wire.js';
import { startProviderHost } from './provider-host.js';

const host = await startLoopbackHost();
const providers = await startProviderHost();
afterAll(() => Promise.all([host.close(), providers.close()]));

coreSuite({ describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node', wires: [inProcessWire(), loopbackWire(host)], providerHost: () => providers });
