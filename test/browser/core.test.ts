/**
 * The shared core suite in real Chromium (vitest browser mode), against the edge entry that
 * the `browser` export condition selects.
 *
 * streamable-http runs on the in-process wire only (the handler called as `http.fetch`): a
 * browser page cannot listen on a socket, so there is no loopback server for it to reach.
 * Node and workerd run the same cases over a real loopback socket as well. The adapter cases
 * that need a real wire reach the provider host Node runs for this project (test/node/provider-host.setup.ts).
 */
import { describe, expect, inject, it } from 'vitest';
import { coreSuite } from '../core/suite.js';
import { inProcessWire } from '../core/wire.js';

coreSuite({ describe, it, expect, lib: await import('../../src/edge/index.js'), runtime: 'chromium', wires: [inProcessWire()], providerHost: () => inject('providerHost') });
