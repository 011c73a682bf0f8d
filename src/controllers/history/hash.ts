/**
 * How upstream's pkg/controller/history names and labels a ControllerRevision: the FNV-32 hash (Go's fnv.New32,
 * the FNV-1 variant) of the revision's data bytes, followed — when a collision count is given — by that count
 * written as decimal digits, rendered with the "safe" alphabet (rand.SafeEncodeString), and appended to the
 * parent's name (cut to 223 characters so the whole name fits in 253).
 *
 * A revision's data travels as JSON. Its bytes here are the canonical JSON of the data (object keys sorted at every
 * level), which is what upstream produces too: its patches are built as Go maps, and Go marshals map keys sorted.
 */

/** The label a revision made by NewControllerRevision carries its hash in (StatefulSets' revisions). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

/**
 * apps/v1 ControllerRevisionHashLabelKey: the label DaemonSet and StatefulSet pods (and a DaemonSet's revisions)
 * carry, naming the revision they were made from.
 */
export const CONTROLLER_REVISION_HASH_LABEL_KEY = 'controller-revision-hash';

/** The longest parent-name prefix a revision name keeps. */
const MAX_PREFIX = 223;

/** rand.SafeEncodeString's alphabet: no vowels, no look-alike characters. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1 (32 bit) over bytes, continuing from hash: multiply, then xor, per byte. */
export function fnv1_32(bytes: Uint8Array, hash = FNV32_OFFSET): number {
  let h = hash >>> 0;
  for (const b of bytes) {
    h = Math.imul(h, FNV32_PRIME) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h >>> 0;
}

/** Maps every character of s into the safe alphabet by its character code. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHABET[s.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/** JSON with object keys sorted at every level and undefined members left out (Go's encoding of maps). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The bytes a revision's data is hashed and compared by. */
export function revisionDataBytes(data: unknown): Uint8Array {
  if (data === undefined || data === null) return new Uint8Array();
  return new TextEncoder().encode(canonicalJson(data));
}

/** HashControllerRevision: the safe-encoded FNV-32 of the data, with the collision count (probe) when given. */
export function hashControllerRevision(revision: { data?: unknown }, probe?: number | null): string {
  let h = fnv1_32(revisionDataBytes(revision.data));
  if (probe !== undefined && probe !== null) h = fnv1_32(new TextEncoder().encode(String(Math.trunc(probe))), h);
  return safeEncodeString(String(h));
}

/** ControllerRevisionName: `<prefix>-<hash>`, the prefix cut to 223 characters. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > MAX_PREFIX ? prefix.slice(0, MAX_PREFIX) : prefix}-${hash}`;
}
