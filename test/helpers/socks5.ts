/** A SOCKS5 proxy (RFC 1928, CONNECT only; RFC 1929 user/password when `login` is given) on loopback. */
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

export interface Socks5Proxy {
  url: string;
  /** `host:port` of each tunnel opened; `user:password` of each login offered. */
  connects: string[];
  logins: string[];
  close(): Promise<void>;
}

export async function startSocks5(login?: string): Promise<Socks5Proxy> {
  const connects: string[] = [];
  const logins: string[] = [];
  const sockets = new Set<Socket>();
  // Each step reads one whole message: a client sends the next only after the answer to this one.
  const read = (socket: Socket) =>
    new Promise<Buffer>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk)));
  const server = createServer(async (client) => {
    sockets.add(client.on('error', () => {}).on('close', () => sockets.delete(client)));
    const methods = [...(await read(client)).subarray(2)];
    const method = login ? 0x02 : 0x00;
    if (!methods.includes(method)) return client.end(Buffer.from([5, 0xff]));
    client.write(Buffer.from([5, method]));
    if (login) {
      const m = await read(client);
      const user = m.subarray(2, 2 + m[1]!);
      const password = m.subarray(3 + m[1]!, 3 + m[1]! + m[2 + m[1]!]!);
      logins.push(`${user}:${password}`);
      if (`${user}:${password}` !== login) return client.end(Buffer.from([1, 1]));
      client.write(Buffer.from([1, 0]));
    }
    const req = await read(client);
    const type = req[3];
    const host =
      type === 1
        ? [...req.subarray(4, 8)].join('.')
        : type === 3
          ? req.subarray(5, 5 + req[4]!).toString()
          : (req.subarray(4, 20).toString('hex').match(/.{4}/g) ?? []).join(':');
    const port = req.readUInt16BE(req.length - 2);
    connects.push(`${host}:${port}`);
    const upstream = connect(port, host, () => {
      client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream.on('error', () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0]))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `socks5://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    logins,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
