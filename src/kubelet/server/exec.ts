/**
 * Exec and attach sessions: the stream options of a request, running the command (the runtime's own exec, else
 * the built-in command set against the pod's spec) or attaching to the container's output, and carrying the
 * streams over a WebSocket channel protocol or over SPDY streams, ending with the Status on the error stream as
 * the kubelet does.
 */
import type { WebSocket } from 'ws';
import type { KubeObject } from '../../client/types.js';
import {
  type ChannelProtocol,
  decodeMessage,
  ERROR,
  type ExecStatus,
  encodeMessage,
  exitCodeStatus,
  internalErrorStatus,
  STDERR,
  STDIN,
  STDOUT,
  statusPayload,
  successStatus,
} from './channel.js';
import type { PodDNSSettings } from './pod-dns.js';
import { containerEnvironment, containerFiles, findContainer } from './pod-files.js';
import { runCommand } from './shell.js';
import type { SpdyStream } from './spdy.js';
import type { ExecIO, ObjectSource, PodRuntime } from './types.js';

export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

const flag = (q: URLSearchParams, name: string) => {
  const v = q.get(name);
  return v === '1' || v === 'true';
};

/** The kubelet's stream options from a request's query; a string is why they are refused. */
export function parseStreamOptions(q: URLSearchParams): StreamOptions | string {
  const opts = { stdin: flag(q, 'stdin'), stdout: flag(q, 'stdout'), stderr: flag(q, 'stderr'), tty: flag(q, 'tty') };
  // A terminal has no separate stderr: upstream drops it.
  if (opts.tty) opts.stderr = false;
  if (!opts.stdin && !opts.stdout && !opts.stderr) return 'you must specify at least 1 of stdin, stdout, stderr';
  return opts;
}

/** The client's stdin as an async iterable, fed by the transport. */
export class InputQueue implements AsyncIterable<Buffer> {
  private readonly chunks: Buffer[] = [];
  private ended = false;
  private wake: (() => void) | undefined;

  push(data: Buffer): void {
    if (this.ended) return;
    this.chunks.push(data);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      const next = this.chunks.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}

/** What an exec or attach session runs once its streams are ready. */
export type SessionBody = (io: ExecIO) => Promise<ExecStatus>;

/** A running container's session body: the command. */
export function execBody(
  runtime: PodRuntime,
  objects: ObjectSource | undefined,
  pod: KubeObject,
  container: string,
  command: string[],
  dns?: PodDNSSettings,
): SessionBody {
  return async (io) => {
    const ns = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    try {
      let code: number;
      if (runtime.exec) code = await runtime.exec(ns, name, container, command, io);
      else {
        const [env, files] = await Promise.all([
          containerEnvironment(pod, container, objects, dns),
          containerFiles(pod, container, objects, dns),
        ]);
        const cwd = findContainer(pod, container)?.workingDir || '/';
        code = await runCommand(command, { env, files, io, cwd });
      }
      return code === 0 ? successStatus() : exitCodeStatus(command, code);
    } catch (err) {
      return internalErrorStatus(`error executing command in container: ${(err as Error)?.message ?? String(err)}`);
    }
  };
}

/** Attach: what the container writes from now on, until its run ends or the client leaves. */
export function attachBody(runtime: PodRuntime, pod: KubeObject, container: string): SessionBody {
  return async (io) => {
    const log = runtime.containerLog(pod.metadata.namespace ?? '', pod.metadata.name ?? '', container, false);
    // What the client types goes nowhere: a simulated container reads no input.
    if (io.stdin) drain(io.stdin);
    if (!log || log.ended) return successStatus();
    await new Promise<void>((resolve) => {
      const stop = log.follow({
        onLine: (line) => (line.stream === 'stderr' ? io.stderr : io.stdout)(`${line.text}\n`),
        onEnd: () => resolve(),
      });
      io.signal.addEventListener('abort', () => {
        stop();
        resolve();
      });
    });
    return successStatus();
  };
}

function drain(input: AsyncIterable<Buffer>): void {
  (async () => {
    for await (const _ of input) {
      // discarded
    }
  })().catch(() => {});
}

/** Writes as a terminal does: every newline becomes CR LF. */
function terminalText(data: string | Buffer): Buffer {
  const text = typeof data === 'string' ? data : data.toString('utf8');
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'utf8');
}

/** Runs a session over a WebSocket speaking one of the channel protocols; closes the socket at the end. */
export function serveWebSocketSession(
  ws: WebSocket,
  protocol: ChannelProtocol,
  opts: StreamOptions,
  body: SessionBody,
): Promise<void> {
  const abort = new AbortController();
  const stdin = opts.stdin ? new InputQueue() : undefined;
  const sendNow = (channel: number, data: Buffer | string) => {
    if (ws.readyState !== ws.OPEN) return;
    const m = encodeMessage(protocol, channel, data);
    ws.send(m.data, { binary: m.binary });
  };
  // client-go's WebSocket executor starts reading before it has made its streams: a message that arrives first is
  // dropped ("Unknown stream id"), and a close that arrives first fails the command ("closed all streams"). A real
  // container takes that long to start an exec; a simulated one answers at once, so what the session writes in its
  // first moments is held back until then.
  let held: [number, Buffer | string][] | undefined = [];
  const send = (channel: number, data: Buffer | string) => {
    if (held) held.push([channel, data]);
    else sendNow(channel, data);
  };
  const settled = new Promise<void>((resolve) => setTimeout(resolve, STREAMS_SETTLE_MS)).then(() => {
    const messages = held ?? [];
    held = undefined;
    for (const [channel, data] of messages) sendNow(channel, data);
  });
  ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
    const buf = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw as ArrayBuffer);
    const m = decodeMessage(protocol, buf);
    if (!m) return;
    if ('closed' in m) {
      if (m.closed === STDIN) stdin?.end();
      return;
    }
    // Other channels (RESIZE): the simulated terminal has no size to change.
    if (m.channel === STDIN) stdin?.push(m.data);
  });
  ws.on('close', () => {
    stdin?.end();
    abort.abort();
  });
  ws.on('error', () => {});
  const io: ExecIO = {
    stdin,
    tty: opts.tty,
    signal: abort.signal,
    stdout: (d) => {
      if (opts.stdout) send(STDOUT, opts.tty ? terminalText(d) : d);
    },
    stderr: (d) => {
      if (opts.tty) {
        if (opts.stdout) send(STDOUT, terminalText(d));
      } else if (opts.stderr) send(STDERR, d);
    },
  };
  // Tell the client the streams are ready: an empty message on the lowest channel it will read.
  send(opts.stdout ? STDOUT : opts.stderr ? STDERR : ERROR, Buffer.alloc(0));
  return Promise.all([body(io), settled]).then(([status]) => {
    const payload = statusPayload(protocol, status);
    if (payload !== undefined) send(ERROR, payload);
    if (ws.readyState === ws.OPEN) ws.close(1000);
  });
}

/** How long a WebSocket session holds its first messages back, for the client to have made its streams. */
const STREAMS_SETTLE_MS = 100;

/** The streams a SPDY remote-command client opens, by streamType. */
interface SpdyStreams {
  error?: SpdyStream;
  stdin?: SpdyStream;
  stdout?: SpdyStream;
  stderr?: SpdyStream;
  resize?: SpdyStream;
}

/**
 * Collects the SPDY streams of an exec or attach (the client opens error, then stdin/stdout/stderr/resize as
 * asked) and runs the session once all expected streams are there.
 */
export class SpdyExecSession {
  private readonly streams: SpdyStreams = {};
  private readonly abort = new AbortController();
  private started = false;

  constructor(
    private readonly protocolVersion: number,
    private readonly opts: StreamOptions,
    private readonly body: SessionBody,
    private readonly done: () => void,
  ) {}

  stream(stream: SpdyStream): void {
    const type = stream.header('streamType') as keyof SpdyStreams | undefined;
    if (!type || !['error', 'stdin', 'stdout', 'stderr', 'resize'].includes(type)) {
      stream.reset();
      return;
    }
    this.streams[type] = stream;
    if (this.ready()) void this.run();
  }

  private ready(): boolean {
    const s = this.streams;
    if (this.started || !s.error) return false;
    if (this.opts.stdin && !s.stdin) return false;
    if (this.opts.stdout && !s.stdout) return false;
    if (this.opts.stderr && !s.stderr) return false;
    if (this.opts.tty && this.protocolVersion >= 3 && !s.resize) return false;
    return true;
  }

  private async run(): Promise<void> {
    this.started = true;
    const s = this.streams;
    const abort = this.abort;
    let stdin: InputQueue | undefined;
    if (s.stdin) {
      const queue = new InputQueue();
      stdin = queue;
      s.stdin.onData((d) => queue.push(d));
      s.stdin.onEnd(() => queue.end());
    }
    s.error?.onEnd(() => {});
    const io: ExecIO = {
      stdin,
      tty: this.opts.tty,
      signal: abort.signal,
      stdout: (d) => s.stdout?.write(this.opts.tty ? terminalText(d) : d),
      stderr: (d) => {
        if (this.opts.tty) s.stdout?.write(terminalText(d));
        else s.stderr?.write(d);
      },
    };
    const status = await this.body(io);
    s.stdout?.end();
    s.stderr?.end();
    const payload = statusPayload({ name: '', version: this.protocolVersion, base64: false }, status);
    if (payload !== undefined) s.error?.write(payload);
    s.error?.end();
    abort.abort();
    this.done();
  }

  /** The connection went away. */
  terminate(): void {
    this.abort.abort();
    this.streams.stdin?.remoteEnd();
  }
}
