import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import assert from './assert.js';

/** The wheelhouse command of this checkout. */
export const WHEELHOUSE_BIN = join(import.meta.dirname, '..', '..', 'bin', 'wheelhouse.mjs');

export interface WheelhouseProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  out(): string;
  /** The URL it said it serves at. */
  url(): string;
  exited: Promise<number | null>;
  /** SIGINT, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `wheelhouse <command> --secure-port 0 ...args` as a child process and waits until it says it is ready
 * (its "Press Ctrl-C" line).
 */
export async function startWheelhouse(command: string, args: string[]): Promise<WheelhouseProcess> {
  const child = spawn(process.execPath, [WHEELHOUSE_BIN, command, '--secure-port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!out.includes('Press Ctrl-C') && Date.now() < deadline && child.exitCode === null) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.match(out, /Press Ctrl-C/, out);
  return {
    child,
    out: () => out,
    url: () => /ready at (https:\/\/[\d.]+:\d+)/.exec(out)?.[1] ?? '',
    exited,
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}
