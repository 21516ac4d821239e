/**
 * A loopback TCP proxy in front of a real PostgreSQL server, for what a server cannot be
 * asked to do on cue: hang (`freeze`: bytes stop flowing both ways and wait, connections stay
 * open, as with a stalled host; `thaw` lets them flow on). Connections made while frozen
 * hang too. Closing it destroys every connection through it.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface PostgresProxy {
  /** The URL of the server, through the proxy. */
  readonly url: string;
  freeze(): void;
  /** Freezes the connections open now, leaving new ones to flow (a black-holed connection). */
  freezeOpen(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startProxy(serverUrl: string): Promise<PostgresProxy> {
  const target = new URL(serverUrl);
  const pairs = new Set<[Socket, Socket]>();
  let frozen = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const [from, to] of [pair, [upstream, client] as const]) {
      from.on('data', (chunk: Buffer) => to.write(chunk));
      from.on('error', end);
      from.on('close', end);
      if (frozen) from.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no port');
  const url = new URL(serverUrl);
  url.port = String(address.port);
  const cut = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    url: url.toString(),
    freeze() {
      frozen = true;
      for (const pair of pairs) for (const socket of pair) socket.pause();
    },
    freezeOpen() {
      for (const pair of pairs) for (const socket of pair) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) for (const socket of pair) socket.resume();
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
