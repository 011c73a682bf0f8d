/**
 * Kubernetes protobuf bodies (Content-Type application/vnd.kubernetes.protobuf) as the JSON object a JSON client
 * would have sent. A body is the 4-byte prefix `k8s\0` and a runtime.Unknown message: the object's apiVersion and
 * kind, and in `raw` the object's own message, whose type is found from apiVersion and kind in the table.
 */
import { FieldSet } from './field-set.js';
import { MessageDecoder } from './message.js';
import { ProtobufError } from './protobuf-error.js';
import { kubernetesProtoTable, type ProtoTable } from './table.js';
import { hasKubernetesPrefix, KUBERNETES_PROTOBUF_PREFIX } from './wire.js';

export interface DecodedObject {
  readonly apiVersion: string;
  readonly kind: string;
  /** The object with `kind` and `apiVersion` set from the envelope. */
  readonly object: Record<string, unknown>;
}

const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown';
const TYPE_META = 'k8s.io.apimachinery.pkg.runtime.TypeMeta';
const META_PACKAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1';
// metav1.AddToGroupVersion registers these meta types in every group version, and the unversioned ones in "v1".
const KINDS_IN_EVERY_VERSION = new Set([
  'WatchEvent',
  'ListOptions',
  'GetOptions',
  'DeleteOptions',
  'CreateOptions',
  'UpdateOptions',
  'PatchOptions',
]);
const UNVERSIONED_KINDS = new Set(['Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList']);

/** The full name of the message that holds objects of apiVersion and kind. */
export function messageTypeOf(table: ProtoTable, apiVersion: string, kind: string): string {
  const pkg = table.packageOf(apiVersion);
  if (pkg === undefined)
    throw new ProtobufError(`no protobuf types are known for apiVersion ${JSON.stringify(apiVersion)}`);
  const own = table.message(`${pkg}.${kind}`);
  if (own?.kind) return own.name;
  const meta = `${META_PACKAGE}.${kind}`;
  if (KINDS_IN_EVERY_VERSION.has(kind) || (apiVersion === 'v1' && UNVERSIONED_KINDS.has(kind))) {
    if (table.message(meta)) return meta;
  }
  throw new ProtobufError(
    `no protobuf type is known for kind ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)}`,
  );
}

function envelopeOf(table: ProtoTable, body: Uint8Array): { apiVersion: string; kind: string; raw: Uint8Array } {
  if (body.length === 0) throw new ProtobufError('the protobuf body is empty');
  if (body.length < KUBERNETES_PROTOBUF_PREFIX.length || !hasKubernetesPrefix(body)) {
    throw new ProtobufError('the body does not start with the Kubernetes protobuf prefix "k8s\\x00"');
  }
  if (body.length === KUBERNETES_PROTOBUF_PREFIX.length)
    throw new ProtobufError('the protobuf body has a prefix and nothing else');
  const unknownFacts = table.message(UNKNOWN);
  const typeMetaFacts = table.message(TYPE_META);
  if (!unknownFacts || !typeMetaFacts) throw new ProtobufError('the table lacks runtime.Unknown or runtime.TypeMeta');
  const unknown = new FieldSet(unknownFacts, body.subarray(KUBERNETES_PROTOBUF_PREFIX.length));
  const typeMeta = new FieldSet(typeMetaFacts, unknown.message(unknown.field('typeMeta')) ?? new Uint8Array(0));
  const apiVersion = String(typeMeta.scalar('apiVersion') ?? '');
  const kind = String(typeMeta.scalar('kind') ?? '');
  const encoding = String(unknown.scalar('contentEncoding') ?? '');
  if (encoding !== '') throw new ProtobufError(`content encoding ${JSON.stringify(encoding)} is not supported`);
  if (kind === '') throw new ProtobufError('the protobuf envelope names no kind');
  if (apiVersion === '') throw new ProtobufError(`the protobuf envelope of kind ${kind} names no apiVersion`);
  return { apiVersion, kind, raw: unknown.bytes('raw') ?? new Uint8Array(0) };
}

function decodeWith(table: ProtoTable, body: Uint8Array, depth: number): DecodedObject {
  const { apiVersion, kind, raw } = envelopeOf(table, body);
  const typeName = messageTypeOf(table, apiVersion, kind);
  const decoder = new MessageDecoder(table, (inner, innerDepth) => decodeWith(table, inner, innerDepth).object);
  const decoded = decoder.decode(typeName, raw, depth);
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) {
    throw new ProtobufError(`${typeName} does not decode to an object`);
  }
  return { apiVersion, kind, object: { kind, apiVersion, ...(decoded as Record<string, unknown>) } };
}

/**
 * Decodes a Kubernetes protobuf body into its apiVersion, kind and JSON object. Throws ProtobufError when the body
 * is malformed or holds a type the table does not know.
 */
export function decodeKubernetesProtobuf(body: Uint8Array, table: ProtoTable = kubernetesProtoTable()): DecodedObject {
  return decodeWith(table, body, 0);
}
