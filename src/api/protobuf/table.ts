/**
 * The protobuf facts of the served types, read from generated/protobuf.json (written by scripts/gen-protobuf.mjs
 * from upstream's generated.proto files and Go types): per message its fields with wire facts (number, type,
 * repeated, map) and the facts Go's JSON encoding of the same struct depends on (JSON name, pointer, omitempty,
 * inlined embed).
 */
import { readGeneratedJson } from '../generated-files.js';
import { ProtobufError } from './protobuf-error.js';

export interface FieldFacts {
  readonly number: number;
  /** The field's name in the .proto file. */
  readonly protoName: string;
  /** The key Go's JSON encoding writes (the JSON tag's name). */
  readonly jsonName: string;
  /** A scalar (string, int32, int64, bool, bytes, double) or a message's full name; for a map, its value type. */
  readonly type: string;
  /** For a map field, the key type. */
  readonly mapKey?: string;
  readonly repeated: boolean;
  /** The Go field is a pointer: present-but-zero differs from absent. */
  readonly pointer: boolean;
  readonly omitempty: boolean;
  /** An embedded Go struct whose fields appear at the level of the parent in JSON. */
  readonly inline: boolean;
  /** The Go field is left out of JSON (json:"-"). */
  readonly skip: boolean;
}

export interface MessageFacts {
  readonly name: string;
  /** The Go type embeds TypeMeta: it is a kind that may stand alone in a body. */
  readonly kind: boolean;
  /** The Go type is a slice; its JSON is the array of its `items` field. */
  readonly list: boolean;
  /** The Go type writes its own JSON; a converter for it lives in custom-json.ts. */
  readonly custom: boolean;
  readonly fields: readonly FieldFacts[];
  readonly byNumber: ReadonlyMap<number, FieldFacts>;
}

/** The generated file's shape. A field is [number, protoName, type, flags, jsonName?]. */
export interface RawProtoTable {
  readonly upstream?: string;
  readonly groupVersions: Readonly<Record<string, string>>;
  readonly messages: Readonly<
    Record<
      string,
      { k?: number; l?: number; c?: number; f: readonly (readonly [number, string, string, string, string?])[] }
    >
  >;
}

export interface ProtoTable {
  /** The facts of a message by its full name, e.g. k8s.io.api.core.v1.ConfigMap. */
  message(name: string): MessageFacts | undefined;
  /** The proto package of a served group/version ("v1", "apps/v1", "meta.k8s.io/v1"), if any. */
  packageOf(apiVersion: string): string | undefined;
  readonly messageNames: readonly string[];
}

const MAP_TYPE = /^map<([^,]+),(.+)>$/;

function fieldFacts(owner: string, raw: readonly [number, string, string, string, string?]): FieldFacts {
  const [number, protoName, type, flags, jsonName] = raw;
  const map = MAP_TYPE.exec(type);
  const base = {
    number,
    protoName,
    jsonName: jsonName ?? protoName,
    repeated: flags.includes('r'),
    pointer: flags.includes('p'),
    omitempty: flags.includes('o'),
    inline: flags.includes('i'),
    skip: flags.includes('x'),
  };
  if (!map) return { ...base, type };
  if (map[1] !== 'string')
    throw new ProtobufError(`${owner}.${protoName}: map keys of type ${map[1]} are not supported`);
  return { ...base, type: map[2] as string, mapKey: map[1] };
}

/** Builds a table from the generated form (tests pass their own small tables). */
export function buildProtoTable(raw: RawProtoTable): ProtoTable {
  const built = new Map<string, MessageFacts>();
  const message = (name: string): MessageFacts | undefined => {
    const cached = built.get(name);
    if (cached) return cached;
    if (!Object.hasOwn(raw.messages, name)) return undefined;
    const entry = raw.messages[name];
    if (!entry) return undefined;
    const fields = entry.f.map((f) => fieldFacts(name, f));
    const facts: MessageFacts = {
      name,
      kind: entry.k === 1,
      list: entry.l === 1,
      custom: entry.c === 1,
      fields,
      byNumber: new Map(fields.map((f) => [f.number, f])),
    };
    built.set(name, facts);
    return facts;
  };
  return {
    message,
    packageOf: (apiVersion) =>
      Object.hasOwn(raw.groupVersions, apiVersion) ? raw.groupVersions[apiVersion] : undefined,
    messageNames: Object.keys(raw.messages),
  };
}

let generated: ProtoTable | undefined;

/** The table of the served v1.33 types. */
export function kubernetesProtoTable(): ProtoTable {
  generated ??= buildProtoTable(readGeneratedJson<RawProtoTable>('protobuf.json'));
  return generated;
}
