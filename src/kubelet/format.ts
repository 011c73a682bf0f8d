/**
 * Small formatting helpers shared by the kubelet: Go's time.Duration text (as upstream prints back-off delays and
 * pull times in messages), meta/v1 Time and MicroTime, `name_namespace(uid)` (upstream's format.Pod), and the
 * names a container runtime reports for images and containers.
 */
import { createHash } from 'node:crypto';
import { BoundedMemo } from '../util/bounded-memo.js';

export { formatMicroTime, formatTime } from '../client/events/event.js';

/** Go's Duration.String() for a whole number of milliseconds: 0s, 500ms, 10s, 1m20s, 5m0s, 1h0m0s. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(Math.round(ms));
  if (rest < 1000) return `${sign}${rest}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  const secondsText = `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3).replace(/0+$/, '')}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${sign}${minutes}m${secondsText}`;
  return `${sign}${secondsText}`;
}

/** Upstream's format.Pod: `name_namespace(uid)`. */
export function formatPod(pod: { metadata: { name?: string; namespace?: string; uid?: string } }): string {
  const m = pod.metadata;
  return `${m.name ?? ''}_${m.namespace ?? ''}(${m.uid ?? ''})`;
}

/**
 * The fully qualified reference a CRI runtime reports for an image (`nginx` → `docker.io/library/nginx:latest`,
 * `registry.k8s.io/pause:3.10` stays as it is), as containerd normalises Docker references.
 */
export function normalizeImage(image: string): string {
  let ref = image.trim();
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  const hasRegistry = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasRegistry) ref = `docker.io/${slash < 0 ? 'library/' : ''}${ref}`;
  const lastSlash = ref.lastIndexOf('/');
  const tail = ref.slice(lastSlash + 1);
  if (!tail.includes(':') && !tail.includes('@')) ref = `${ref}:latest`;
  return ref;
}

/** A stable sha256 for a name, as hex. */
export function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The digest of each normalized image reference, worked out once: a node starts the same few images over and over
 * (cleared when it grows large, so a stream of distinct images cannot make it grow without end).
 */
const imageDigests = new BoundedMemo<string, string>(1024);

function imageDigestOf(ref: string): string {
  return imageDigests.get(ref) ?? imageDigests.remember(ref, digestOf(ref));
}

/** The imageID a runtime reports: `<repository>@sha256:<digest>` (the digest made up from the reference). */
export function imageIdOf(image: string): string {
  const ref = normalizeImage(image);
  const at = ref.indexOf('@');
  if (at >= 0) return ref;
  const lastSlash = ref.lastIndexOf('/');
  const colon = ref.indexOf(':', lastSlash + 1);
  const repo = colon < 0 ? ref : ref.slice(0, colon);
  return `${repo}@sha256:${imageDigestOf(ref)}`;
}

/** A made-up image size in bytes, stable per image (between 5 and 200 MB), for Pulled events and node images. */
export function imageSizeOf(image: string): number {
  const h = Number.parseInt(imageDigestOf(normalizeImage(image)).slice(0, 8), 16);
  return 5_000_000 + (h % 195_000_000);
}

let containerSeq = 0;

/** A new container ID in the runtime's URL form: `sim://<64 hex digits>`. */
export function newContainerId(seed: string): string {
  containerSeq = (containerSeq + 1) % Number.MAX_SAFE_INTEGER;
  return `sim://${digestOf(`${seed}/${containerSeq}/${Math.random()}`)}`;
}
