/**
 * The pod-template-hash that names a Deployment's ReplicaSets (`<deployment>-<hash>`), and template equality.
 *
 * Upstream hashes the Go struct's printed form with FNV-32a, mixes in status.collisionCount, and renders the
 * decimal number with the "safe" alphabet (no vowels, no look-alike digits). We cannot print Go structs, so the
 * hash here is FNV-32a of the template as canonical JSON (keys sorted): stable across restarts and processes,
 * which is what matters, since the name only has to be deterministic; a clash with another template is resolved
 * by bumping collisionCount, as upstream does.
 */
import { semanticEqual } from '../../../api/semantic-equal.js';
import { withoutServiceAccountAlias } from '../../common/pods.js';
import { POD_TEMPLATE_HASH_LABEL, type PodTemplate } from './types.js';

/** The alphabet of upstream's rand.SafeEncodeString. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

function fnv32a(bytes: Uint8Array, hash = FNV32_OFFSET): number {
  let h = hash;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
  }
  return h >>> 0;
}

/** JSON with object keys sorted at every level, undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** rand.SafeEncodeString: every character mapped into the safe alphabet by its code. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHABET[s.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/** controller.ComputeHash: the pod-template-hash of a template, given the Deployment's collisionCount. */
export function computeHash(template: PodTemplate | undefined, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonicalJson(template ?? {})));
  if (collisionCount !== undefined && collisionCount !== null) {
    // As upstream: the count as a little-endian uint32 in an 8-byte buffer.
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(bytes, h);
  }
  return safeEncodeString(String(h));
}

/**
 * The template without its pod-template-hash label, and without the pod spec's `serviceAccount`: an alias the
 * apiserver keeps equal to `serviceAccountName`, missing from templates stored before wheelhouse wrote it (upstream,
 * converting on every read, never sees such a difference).
 */
function withoutHashLabel(t: PodTemplate | undefined): PodTemplate {
  const labels = { ...(t?.metadata?.labels ?? {}) };
  delete labels[POD_TEMPLATE_HASH_LABEL];
  const out: PodTemplate = { ...t, metadata: { ...t?.metadata, labels } };
  if (t?.spec) out.spec = withoutServiceAccountAlias(t.spec);
  return out;
}

/** EqualIgnoreHash: the templates are equal once the pod-template-hash label is taken out of both. */
export function equalIgnoreHash(a: PodTemplate | undefined, b: PodTemplate | undefined): boolean {
  return semanticEqual(withoutHashLabel(a), withoutHashLabel(b));
}
