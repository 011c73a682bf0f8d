#!/usr/bin/env node
// Derives the Kubernetes protobuf wire table, src/api/generated/protobuf.json, from upstream's sources:
// the generated.proto files (field numbers, wire types, message references) and the Go types next to
// them (JSON names, pointer fields, omitempty, inlined embeds, kinds, custom JSON marshaling), which
// together say what JSON object a protobuf body stands for.
//
// The upstream repositories are not part of this repository or of CI; the generated file is committed.
// To regenerate, check out the v1.33 release of each repository and pass their roots:
//
//   for r in api apimachinery apiextensions-apiserver kube-aggregator; do
//     git clone --depth 1 --branch kubernetes-1.33.13 https://github.com/kubernetes/$r /tmp/k8s-src/$r
//   done
//   node scripts/gen-protobuf.mjs /tmp/k8s-src/api /tmp/k8s-src/apimachinery \
//     /tmp/k8s-src/apiextensions-apiserver /tmp/k8s-src/kube-aggregator
//
// The committed file was generated from tag kubernetes-1.33.13 of kubernetes/api (63b731b23fe7),
// kubernetes/apimachinery (f091036ab312), kubernetes/apiextensions-apiserver (81f55747e6f8) and
// kubernetes/kube-aggregator (cbbb69ed8ab5).
//
// Any number of roots may be given. Every generated.proto under them is considered; a package is kept
// when its group/version (GroupName in register.go, the directory name as version) is one of the
// groups src/api/generated/resources.json serves, and apimachinery's meta/v1, runtime, intstr and
// resource packages are always kept. The output is deterministic: same input, same bytes.
//
// Output shape:
//   { upstream, groupVersions: { "<group/version>": "<proto package>" },
//     messages: { "<package>.<Message>": { k?: 1, l?: 1, c?: 1, f: [field…] } } }
//   k: the Go type embeds TypeMeta (it is a kind); l: the Go type is a slice, its JSON is the `items`
//   array; c: the Go type marshals its own JSON (the decoder has a converter for each such message).
//   field: [number, protoName, type, flags, jsonName?] where type is a scalar (string, int32, int64, bool,
//   bytes, double), a message's full name, or "map<K,V>"; flags letters: r repeated, p Go pointer,
//   o omitempty, i inlined embed, x not in JSON (json:"-"); jsonName only when it differs from protoName.

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const UPSTREAM = 'kubernetes-1.33.13';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const ALWAYS_KEPT = [
  META,
  'k8s.io.apimachinery.pkg.runtime',
  'k8s.io.apimachinery.pkg.util.intstr',
  'k8s.io.apimachinery.pkg.api.resource',
];
const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'bytes', 'double']);
const SKIPPED_DIRS = new Set(['vendor', 'testdata', 'examples', 'test', '.git', 'hack']);

const repoRoot = new URL('..', import.meta.url);
const roots = process.argv.slice(2);
if (roots.length === 0) {
  console.error('usage: node scripts/gen-protobuf.mjs ROOT_OF_API ROOT_OF_APIMACHINERY [MORE_ROOTS…]');
  process.exit(2);
}

const resources = JSON.parse(readFileSync(new URL('src/api/generated/resources.json', repoRoot), 'utf8'));
const served = new Set(resources.groups.flatMap((g) => g.versions.map((v) => (g.name ? `${g.name}/${v}` : v))));

function findProtoFiles(dir, into = []) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) findProtoFiles(path, into);
    } else if (name === 'generated.proto') into.push(path);
  }
  return into;
}

/** The group of the Go package in dir (register.go's GroupName), or undefined. */
function groupName(dir) {
  let text;
  try {
    text = readFileSync(join(dir, 'register.go'), 'utf8');
  } catch {
    return undefined;
  }
  const m = /\bGroupName\s*=\s*"([^"]*)"/.exec(text);
  return m ? m[1] : undefined;
}

// ---- proto -------------------------------------------------------------------------------------

/** Top-level messages of a generated.proto with their fields, types as written. */
function parseProto(text) {
  const lines = text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((l) => l.replace(/\/\/.*$/, '').trim());
  const pkg = lines.map((l) => /^package\s+([\w.]+);/.exec(l)).find(Boolean)?.[1];
  if (!pkg) throw new Error('no package line');
  const messages = [];
  let current;
  for (const line of lines) {
    if (line === '') continue;
    const open = /^message\s+(\w+)\s*\{(\s*\})?$/.exec(line);
    if (open) {
      if (current) throw new Error(`nested message ${open[1]} is not supported`);
      current = { name: open[1], fields: [] };
      messages.push(current);
      if (open[2]) current = undefined;
      continue;
    }
    if (line === '}') {
      current = undefined;
      continue;
    }
    if (!current) {
      if (/^(syntax|package|import|option)\b/.test(line)) continue;
      throw new Error(`unexpected line outside a message: ${line}`);
    }
    const map = /^map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+);$/.exec(line);
    if (map) {
      current.fields.push({ number: Number(map[4]), name: map[3], key: map[1], type: map[2], label: 'map' });
      continue;
    }
    const field = /^(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+);$/.exec(line);
    if (!field) throw new Error(`unexpected line in message ${current.name}: ${line}`);
    current.fields.push({ number: Number(field[4]), name: field[3], type: field[2], label: field[1] });
  }
  return { pkg, messages };
}

// ---- Go ----------------------------------------------------------------------------------------

/** Struct fields with protobuf tags, slice-typed names, TypeMeta embeds and MarshalJSON owners in dir. */
function parseGo(dir) {
  const structs = new Map();
  const sliceTypes = new Set();
  const customJson = new Set();
  const definedAs = new Map();
  const files = readdirSync(dir).filter(
    (f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && f !== 'generated.pb.go',
  );
  for (const file of files.sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/^func \(\w+ \*?(\w+)\) MarshalJSON\(\)/gm)) customJson.add(m[1]);
    for (const m of text.matchAll(/^type (\w+) \[\][\w.]+\s*$/gm)) sliceTypes.add(m[1]);
    for (const m of text.matchAll(/^type (\w+) (?:(\w+)\.)?([A-Z]\w*)\s*$/gm))
      definedAs.set(m[1], { pkg: m[2], name: m[3] });
    for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      const fields = [];
      const embeds = [];
      for (const raw of m[2].split('\n')) {
        const line = raw.replace(/^\s*\/\/.*$/, '').trim();
        const f = /^(?:(\w+)\s+)?([^\s`]+)\s+`([^`]*)`$/.exec(line);
        if (!f) {
          if (/^\*?[\w.]+$/.test(line)) embeds.push(line.replace(/^\*/, ''));
          continue;
        }
        const [, goName, goType, tagText] = f;
        const tags = Object.fromEntries([...tagText.matchAll(/(\w+):"([^"]*)"/g)].map((t) => [t[1], t[2]]));
        const json = (tags.json ?? '').split(',');
        if (!goName && !tags.protobuf && json[0] === '') {
          embeds.push(goType.replace(/^\*/, ''));
          continue;
        }
        if (!tags.protobuf || tags.protobuf === '-') continue;
        const number = Number(tags.protobuf.split(',')[1]);
        const embedded = goName === undefined;
        fields.push({
          number,
          jsonName: json[0] || (embedded ? '' : goName),
          skip: json[0] === '-',
          omitempty: json.includes('omitempty'),
          pointer: goType.startsWith('*'),
          inline: embedded && json[0] === '',
        });
      }
      structs.set(m[1], { fields, embeds, kind: embeds.some((e) => /^(metav1\.)?TypeMeta$/.test(e)) });
    }
    for (const m of text.matchAll(/^type (\w+) struct ?\{\}/gm))
      structs.set(m[1], { fields: [], embeds: [], kind: false });
  }
  // A struct embedding a type that marshals its own JSON (untagged, so promoted) marshals like it.
  for (const [name, s] of structs) if (s.embeds.some((e) => customJson.has(e))) customJson.add(name);
  return { structs, sliceTypes, customJson, definedAs };
}

// ---- assemble ----------------------------------------------------------------------------------

/** The group/version a package serves ("v1", "apps/v1", "meta.k8s.io/v1"), or undefined for plain packages. */
function groupVersionOf(dir) {
  const group = groupName(dir);
  if (group === undefined) return undefined;
  return group ? `${group}/${basename(dir)}` : basename(dir);
}

const packages = [];
for (const root of roots) {
  for (const file of findProtoFiles(root)) {
    const dir = dirname(file);
    const proto = parseProto(readFileSync(file, 'utf8'));
    const gv = groupVersionOf(dir);
    if (gv !== undefined && served.has(gv)) packages.push({ ...proto, gv, dir });
    else if (ALWAYS_KEPT.includes(proto.pkg)) packages.push({ ...proto, gv: proto.pkg === META ? gv : undefined, dir });
  }
}
for (const pkg of ALWAYS_KEPT) {
  if (!packages.some((p) => p.pkg === pkg)) throw new Error(`no generated.proto found for ${pkg}`);
}
for (const gv of served) {
  if (!packages.some((p) => p.gv === gv)) throw new Error(`no generated.proto found for ${gv}`);
}

const known = new Set(packages.flatMap((p) => p.messages.map((m) => `${p.pkg}.${m.name}`)));

/** A type as written in package pkg, resolved to a scalar or a message's full name (proto scoping). */
function resolve(type, pkg) {
  if (SCALARS.has(type)) return type;
  if (type.startsWith('.')) {
    if (!known.has(type.slice(1))) throw new Error(`unknown message ${type}`);
    return type.slice(1);
  }
  const parts = pkg.split('.');
  for (let i = parts.length; i >= 0; i--) {
    const candidate = [...parts.slice(0, i), type].join('.');
    if (known.has(candidate)) return candidate;
  }
  throw new Error(`cannot resolve ${type} in ${pkg}`);
}

const goCache = new Map();
function goFacts(dir) {
  if (!goCache.has(dir)) goCache.set(dir, parseGo(dir));
  return goCache.get(dir);
}

/** The struct behind `type X metav1.Y` (a defined type has Y's fields; only metav1 is used this way). */
function definedStruct(go, name) {
  const def = go.definedAs.get(name);
  if (!def) return undefined;
  if (def.pkg === undefined) return go.structs.get(def.name);
  if (def.pkg !== 'metav1') throw new Error(`type ${name} defined from unsupported package ${def.pkg}`);
  const meta = packages.find((p) => p.pkg === META);
  return goFacts(meta.dir).structs.get(def.name);
}

const groupVersions = {};
const messages = {};
for (const p of packages.sort((a, b) => (a.pkg < b.pkg ? -1 : a.pkg > b.pkg ? 1 : 0))) {
  if (p.gv) groupVersions[p.gv] = p.pkg;
  const go = goFacts(p.dir);
  for (const m of p.messages) {
    const fullName = `${p.pkg}.${m.name}`;
    const entry = {};
    const custom = go.customJson.has(m.name);
    const list = go.sliceTypes.has(m.name);
    const struct = go.structs.get(m.name) ?? definedStruct(go, m.name);
    if (!custom && !list && !struct) throw new Error(`no Go type for ${fullName}`);
    if (struct?.kind) entry.k = 1;
    if (list) entry.l = 1;
    if (custom) entry.c = 1;
    entry.f = m.fields.map((f) => {
      const type =
        f.label === 'map' ? `map<${resolve(f.key, p.pkg)},${resolve(f.type, p.pkg)}>` : resolve(f.type, p.pkg);
      let flags = f.label === 'repeated' ? 'r' : '';
      let jsonName;
      if (!custom && !list) {
        const goField = struct.fields.find((g) => g.number === f.number);
        if (!goField) throw new Error(`${fullName}.${f.name}: no Go field with protobuf number ${f.number}`);
        if (goField.pointer) flags += 'p';
        if (goField.omitempty) flags += 'o';
        if (goField.inline) flags += 'i';
        if (goField.skip) flags += 'x';
        if (!goField.inline && !goField.skip && goField.jsonName !== f.name) jsonName = goField.jsonName;
      }
      return jsonName === undefined ? [f.number, f.name, type, flags] : [f.number, f.name, type, flags, jsonName];
    });
    if (struct && !custom && !list) {
      for (const g of struct.fields) {
        if (!m.fields.some((f) => f.number === g.number))
          throw new Error(`${fullName}: Go field ${g.number} not in proto`);
      }
    }
    messages[fullName] = entry;
  }
}

const sortedGroupVersions = Object.fromEntries(Object.entries(groupVersions).sort(([a], [b]) => (a < b ? -1 : 1)));
const lines = Object.entries(messages).map(([name, entry]) => `${JSON.stringify(name)}:${JSON.stringify(entry)}`);
const out = `{"upstream":${JSON.stringify(UPSTREAM)},\n"groupVersions":${JSON.stringify(sortedGroupVersions)},\n"messages":{\n${lines.join(',\n')}\n}}\n`;
writeFileSync(new URL('src/api/generated/protobuf.json', repoRoot), out);
console.log(`wrote src/api/generated/protobuf.json: ${lines.length} messages, ${out.length} bytes`);
