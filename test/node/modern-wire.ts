/**
 * The shared suites' wires on the 2026-07-28 revision (Node): the workbench scenario, and any
 * fixture a suite brings, behind the v2 SDK's modern front (test/fixtures/modern-bridge.ts),
 * in process (`http.fetch`) and over the loopback host; and a harness whose `mcp` speaks
 * 2026-07-28 unless a case says otherwise.
 */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import type { SuiteHarness } from '../core/harness.js';
import type { Wire, WireEndpoint } from '../core/wire.js';
import { modernBridge, type LegacyFixture } from '../fixtures/modern-bridge.js';
import { playScenario, type ScenarioEndpoint, type ScenarioParams } from '../fixtures/wire-scenarios.js';
import type { LoopbackHost } from './loopback-wire.js';

function endpointFor(params: ScenarioParams | undefined): ScenarioEndpoint {
  const bridge = modernBridge(createWorkbenchServer);
  return playScenario({ handle: (request) => bridge.fetch(request), sessions: { size: 0 }, forgetSessions: async () => undefined }, params);
}

function endpoint(scenario: ScenarioEndpoint, url: string, http: WireEndpoint['http'], unmount: () => void = () => undefined): WireEndpoint {
  const close = async () => unmount();
  return { url, http, log: async () => scenario.log(), forget: () => scenario.forget(), close, [Symbol.asyncDispose]: close };
}

export function modernWires(host: LoopbackHost): Wire[] {
  const inProcess: Wire = {
    socket: false,
    async serve(_scenario, params) {
      const scenario = endpointFor(params);
      return endpoint(scenario, 'https://workbench-modern.test/mcp', { fetch: (input, init) => scenario.handle(new Request(input, init), null) });
    },
    local: (makeServer) => {
      const bridge = modernBridge(makeServer as () => LegacyFixture);
      return { url: 'https://hostile-modern.test/mcp', http: { fetch: (input, init) => bridge.fetch(new Request(input, init)) } };
    },
  };
  const loopback: Wire = {
    socket: true,
    async serve(_scenario, params) {
      const scenario = endpointFor(params);
      const { url, unmount } = host.mount(scenario.handle);
      return endpoint(scenario, url, {}, unmount);
    },
    local: (makeServer) => {
      const bridge = modernBridge(makeServer as () => LegacyFixture);
      return { url: host.mount((request) => bridge.fetch(request)).url, http: {} };
    },
  };
  return [inProcess, loopback];
}

/** `base`, on the 2026-07-28 wire. */
export function modernHarness(base: SuiteHarness, host: LoopbackHost): SuiteHarness {
  const mcp: SuiteHarness['lib']['mcp'] = (config) => base.lib.mcp({ protocol: '2026-07-28', ...config });
  return { ...base, lib: { ...base.lib, mcp }, wires: modernWires(host), modern: { bridge: (makeServer) => modernBridge(makeServer as () => LegacyFixture) } };
}
