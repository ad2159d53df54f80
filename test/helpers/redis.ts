/**
 * A real, throwaway `redis-server` for the shared-limiter tests: a free port on 127.0.0.1, no
 * persistence, optionally a password. Tests skip (saying why) when redis-server is not installed;
 * `.ci/run` installs Debian's package.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const REDIS_SERVER = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

export const NO_REDIS_MESSAGE =
  'redis-server is not installed (apt-get install redis-server): skipping the Redis limiter tests';

export interface RedisServer {
  port: number;
  /** redis://[:password@]127.0.0.1:port?timeout=60 (the limiter URL's own bound, for a busy machine) */
  url: string;
  /** Runs one command through a fresh connection. */
  command(...args: string[]): Promise<unknown>;
  /** Starts MONITOR: every command the server runs, a line each, until `stop()` hands them over. */
  monitor(): Promise<{ stop(): Promise<string[]> }>;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** `tls`: a directory holding server.pem, server.key and ca.pem (test/helpers/certs.ts): TLS only. */
export async function startRedis(o: { password?: string; tls?: string } = {}): Promise<RedisServer> {
  if (!REDIS_SERVER) throw new Error(NO_REDIS_MESSAGE);
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (o.password) args.push('--requirepass', o.password);
  if (o.tls) {
    args.splice(1, 1, '0'); // no plain port
    args.push(
      '--tls-port',
      String(port),
      '--tls-cert-file',
      `${o.tls}/server.pem`,
      '--tls-key-file',
      `${o.tls}/server.key`,
    );
    args.push('--tls-ca-cert-file', `${o.tls}/ca.pem`, '--tls-auth-clients', 'no');
  }
  const child: ChildProcess = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${out}`));
    });
  });
  const url = `${o.tls ? 'rediss' : 'redis'}://${o.password ? `:${encodeURIComponent(o.password)}@` : ''}127.0.0.1:${port}`;
  let monitors = 0;
  const connect = async () => {
    const { createClient } = await import('@redis/client');
    const ca = o.tls ? readFileSync(`${o.tls}/ca.pem`) : undefined;
    const c = createClient({
      url,
      socket: ca ? { reconnectStrategy: false, tls: true, ca } : { reconnectStrategy: false },
    });
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  return {
    port,
    // prs gives up on a Redis slower than 2 s; a machine busy with other work is no reason to here.
    url: `${url}?timeout=60`,
    async command(...cmd) {
      const c = await connect();
      try {
        return await c.sendCommand(cmd);
      } finally {
        c.destroy();
      }
    },
    async monitor() {
      const c = await connect();
      const lines: string[] = [];
      const marker = `end-of-monitor-${process.pid}-${++monitors}`;
      let seen: () => void;
      const end = new Promise<void>((resolve) => {
        seen = resolve;
      });
      await c.monitor((line) => {
        if (line.includes(marker)) seen();
        else lines.push(line);
      });
      return {
        // Every command run before the marker has reached this connection once the marker has.
        async stop() {
          const marking = await connect();
          await marking.sendCommand(['ECHO', marker]);
          marking.destroy();
          await end;
          c.destroy();
          return lines;
        },
      };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
