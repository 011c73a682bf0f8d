/**
 * The WebSocket channel protocols of exec and attach (upstream's wsstream and remotecommand): each message is
 * one channel byte and the data. `channel.k8s.io` (v1) to `v5.channel.k8s.io` are binary; the `base64.` ones send
 * text with the channel as an ASCII digit and the data in base64. Channels: 0 stdin, 1 stdout, 2 stderr,
 * 3 error (a Status as JSON from v4 on, plain text before), 4 resize (v3 and later); v5 adds 255, the client's
 * "I closed this stream" signal, followed by the channel it closed.
 */

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;
export const STREAM_CLOSE = 255;

export interface ChannelProtocol {
  name: string;
  /** 1 for channel.k8s.io, then 2…5. */
  version: number;
  base64: boolean;
}

/** The protocols exec and attach accept, in upstream's order of preference. */
export const EXEC_PROTOCOLS: readonly ChannelProtocol[] = [
  { name: 'v5.channel.k8s.io', version: 5, base64: false },
  { name: 'v4.channel.k8s.io', version: 4, base64: false },
  { name: 'v4.base64.channel.k8s.io', version: 4, base64: true },
  { name: 'v3.channel.k8s.io', version: 3, base64: false },
  { name: 'v2.channel.k8s.io', version: 2, base64: false },
  { name: 'channel.k8s.io', version: 1, base64: false },
  { name: 'base64.channel.k8s.io', version: 1, base64: true },
];

/**
 * Picks the protocol for a WebSocket upgrade: the first the client offers that the server speaks, as upstream's
 * handshake does; a client that offers none gets channel.k8s.io.
 */
export function selectProtocol<T extends { name: string }>(
  offered: Iterable<string>,
  supported: readonly T[],
): T | undefined {
  const list = [...offered];
  if (list.length === 0) return supported.find((p) => p.name === 'channel.k8s.io');
  for (const name of list) {
    const p = supported.find((s) => s.name === name);
    if (p) return p;
  }
  return undefined;
}

/** One outgoing message: a binary buffer, or text for the base64 protocols. */
export function encodeMessage(
  protocol: ChannelProtocol,
  channel: number,
  data: Buffer | string,
): { data: Buffer | string; binary: boolean } {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (protocol.base64) return { data: String.fromCharCode(48 + channel) + bytes.toString('base64'), binary: false };
  const out = Buffer.allocUnsafe(bytes.length + 1);
  out[0] = channel;
  bytes.copy(out, 1);
  return { data: out, binary: true };
}

export type IncomingMessage = { channel: number; data: Buffer } | { closed: number };

/** Reads a message from the client; undefined for an empty or malformed one. */
export function decodeMessage(protocol: ChannelProtocol, message: Buffer): IncomingMessage | undefined {
  if (message.length === 0) return undefined;
  if (protocol.version >= 5 && message[0] === STREAM_CLOSE) {
    return message.length === 2 ? { closed: message[1] as number } : undefined;
  }
  if (protocol.base64) {
    const channel = (message[0] as number) - 48;
    if (channel < 0 || channel > 9) return undefined;
    return { channel, data: Buffer.from(message.subarray(1).toString('latin1'), 'base64') };
  }
  return { channel: message[0] as number, data: message.subarray(1) };
}

/** A Status as the kubelet writes it on the error channel (metav1.Status encoded without type meta). */
export interface ExecStatus {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: { reason?: string; message: string }[] };
}

export function successStatus(): ExecStatus {
  return { metadata: {}, status: 'Success' };
}

/**
 * The Status of a command that exited non-zero: reason NonZeroExitCode with the code as an ExitCode cause (what
 * kubectl turns into its own exit code). The message is the one containerd's exec error gives.
 */
export function exitCodeStatus(command: string[], code: number): ExecStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** An InternalError Status for a failure that is not an exit code. */
export function internalErrorStatus(message: string): ExecStatus & { code: number } {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

/**
 * What goes on the error channel at the end: v4 and later send the Status as JSON; older protocols send nothing
 * on success and the message text on failure.
 */
export function statusPayload(protocol: ChannelProtocol, status: ExecStatus): string | undefined {
  if (protocol.version >= 4) return JSON.stringify(status);
  return status.status === 'Success' ? undefined : (status.message ?? '');
}
