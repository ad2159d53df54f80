/**
 * A real terminal for e2e tests: the built `prs` runs in a detached tmux session on a private socket,
 * keys go in with send-keys, the screen comes back with capture-pane. Every wait polls against a
 * deadline; nothing sleeps a fixed time.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PRS_BIN } from './run.js';

const exec = promisify(execFile);

/** tmux is on PATH (CI installs it; elsewhere the terminal tests skip). */
export const HAS_TMUX = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

export interface TerminalOptions {
  /** Arguments after `node bin/prs.js`. */
  args: string[];
  /** Added to the clean environment (PRS_CONFIG_DIR and the like). */
  env?: Record<string, string>;
  width?: number;
  height?: number;
}

interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

type Match = string | RegExp | ((screen: string) => boolean);

const SESSION = 'prs';

/**
 * The environment of the tmux server, and so of prs: only what a terminal session needs. No PRS_*,
 * proxy, colour or NODE_* variable of the test runner gets through.
 */
function terminalEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    ...extra,
  };
}

const shQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Terminal {
  /** Every screen captured so far, in order: for "never appeared" checks. */
  readonly screens: string[] = [];
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly socket: string,
    private readonly env: Record<string, string>,
    /** The pane's process (a session leader: its group holds prs), to end it by id. */
    readonly pid: number,
  ) {}

  private get statusFile(): string {
    return join(this.dir, 'status');
  }

  /** Starts `node bin/prs.js ...args` in a fresh width × height terminal (160 × 50 by default). */
  static async open(o: TerminalOptions): Promise<Terminal> {
    const dir = mkdtempSync(join(tmpdir(), 'prs-tmux-'));
    const socket = join(dir, 'sock');
    const conf = join(dir, 'tmux.conf');
    // remain-on-exit keeps the screen after prs ends; no status line, so the pane is width × height.
    writeFileSync(
      conf,
      'set -g remain-on-exit on\nset -g status off\nset -g default-terminal xterm-256color\n',
    );
    const env = terminalEnv(dir, o.env);
    // tmux 3.3 can lose #{pane_dead_status} when the pty closes before the child is reaped, so a
    // shell around prs writes the exit status to a file.
    const script = `"$@"; echo $? > ${shQuote(join(dir, 'status'))}`;
    const size = ['-x', String(o.width ?? 160), '-y', String(o.height ?? 50)];
    try {
      await exec(
        'tmux',
        ['-u', '-S', socket, '-f', conf, 'new-session', '-d', '-s', SESSION, ...size, '--'].concat([
          '/bin/sh',
          '-c',
          script,
          'sh',
          process.execPath,
          PRS_BIN,
          ...o.args,
        ]),
        { env },
      );
      const shown = await exec(
        'tmux',
        ['-S', socket, 'display-message', '-p', '-t', SESSION, '#{pane_pid}'],
        {
          env,
        },
      );
      return new Terminal(dir, socket, env, Number(shown.stdout));
    } catch (err) {
      spawnSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore', env });
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  private async tmux(...args: string[]): Promise<string> {
    return (await exec('tmux', ['-S', this.socket, ...args], { env: this.env })).stdout;
  }

  /**
   * The screen as text: wrapped lines joined (-J), trailing blanks and tmux's "Pane is dead" line
   * dropped. From the start of the history (-S -): to print that line tmux scrolls the screen up by
   * one, and the top line would otherwise be lost.
   */
  async screen(): Promise<string> {
    const raw = await this.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', SESSION);
    const lines = raw
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => !/^Pane is dead/.test(l));
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    const text = lines.join('\n');
    this.screens.push(text);
    return text;
  }

  /** The screen with its colours and attributes as escape sequences (capture-pane -e): colour checks. */
  async styled(): Promise<string> {
    return this.tmux('capture-pane', '-p', '-e', '-J', '-S', '-', '-t', SESSION);
  }

  /** Polls the screen until it matches; throws with the last screen when the deadline passes. */
  async waitFor(match: Match, o: WaitOptions = {}): Promise<string> {
    const test =
      typeof match === 'string'
        ? (s: string) => s.includes(match)
        : match instanceof RegExp
          ? (s: string) => match.test(s)
          : match;
    const deadline = Date.now() + (o.timeoutMs ?? 10_000);
    for (;;) {
      const s = await this.screen();
      if (test(s)) return s;
      if (Date.now() > deadline) {
        throw new Error(`terminal: timed out waiting for ${String(match)}; the screen:\n${s}`);
      }
      await pause(o.intervalMs ?? 50);
    }
  }

  /** Types text literally (no key names). */
  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', SESSION, '-l', text);
  }

  /** Presses keys by tmux name: Enter, BSpace, C-c. */
  async press(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', SESSION, ...keys);
  }

  private async paneDead(): Promise<boolean> {
    return (await this.tmux('display-message', '-p', '-t', SESSION, '#{pane_dead}')).trim() === '1';
  }

  /**
   * The exit status of prs once it has ended and tmux has closed the pane. Each poll also captures
   * the screen, so `screens` samples the whole run (every 50 ms by default).
   */
  async exitCode(o: WaitOptions = {}): Promise<number> {
    const deadline = Date.now() + (o.timeoutMs ?? 10_000);
    for (;;) {
      await this.screen();
      if (existsSync(this.statusFile) && (await this.paneDead())) {
        // The last output came before the pane closed: capture once more so `screens` ends with it.
        await this.screen();
        return Number(readFileSync(this.statusFile, 'utf8').trim());
      }
      if (Date.now() > deadline)
        throw new Error(`terminal: prs still running; the screen:\n${await this.screen()}`);
      await pause(o.intervalMs ?? 50);
    }
  }

  /** Ends prs if still running, the tmux server, and the temp dir. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const alive = spawnSync(
      'tmux',
      ['-S', this.socket, 'display-message', '-p', '-t', SESSION, '#{pane_dead}'],
      {
        env: this.env,
        encoding: 'utf8',
      },
    );
    // Only while the pane lives: an ended pid may already belong to another process.
    if (alive.status === 0 && alive.stdout.trim() === '0') {
      try {
        process.kill(-this.pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
    spawnSync('tmux', ['-S', this.socket, 'kill-server'], { stdio: 'ignore', env: this.env });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
