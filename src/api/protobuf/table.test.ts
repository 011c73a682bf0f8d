import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { customJsonConverter } from './custom-json.js';
import { messageTypeOf } from './decode.js';
import { kubernetesProtoTable, type MessageFacts } from './table.js';

interface Definition {
  p?: Record<string, unknown>;
  gvk?: [string, string, string][];
}
interface Resources {
  groups: { name: string; versions: string[] }[];
  resources: Record<string, { kind: string; name: string }[]>;
}

const read = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../generated/${name}`, import.meta.url), 'utf8')) as T;
const definitions = read<Record<string, Definition>>('definitions.json');
const resources = read<Resources>('resources.json');
const table = kubernetesProtoTable();

/** The OpenAPI definition of a proto message: k8s.io.api.core.v1.X is io.k8s.api.core.v1.X. */
const definitionOf = (name: string): Definition | undefined =>
  definitions[`io.k8s.${name.slice('k8s.io.'.length).replaceAll('_', '-')}`];

/** The JSON property names Go writes for a message, inlined embeds expanded. */
function jsonNames(facts: MessageFacts): string[] {
  return facts.fields.flatMap((f) => {
    if (f.skip) return [];
    if (!f.inline) return [f.jsonName];
    const inner = table.message(f.type);
    assert.ok(inner, f.type);
    return jsonNames(inner);
  });
}

describe('the generated protobuf table', () => {
  it('has a package for every served group version', () => {
    for (const group of resources.groups) {
      for (const version of group.versions) {
        const gv = group.name ? `${group.name}/${version}` : version;
        assert.ok(table.packageOf(gv), gv);
      }
    }
  });

  it('has a message for the kind of every served resource', () => {
    for (const [gv, list] of Object.entries(resources.resources)) {
      for (const r of list) assert.doesNotThrow(() => messageTypeOf(table, gv, r.kind), `${gv} ${r.kind}`);
    }
  });

  it('names the same JSON properties as the OpenAPI definitions', () => {
    let compared = 0;
    for (const name of table.messageNames) {
      const facts = table.message(name);
      const definition = definitionOf(name);
      if (!facts || facts.custom || facts.list || !definition?.p) continue;
      const expected = Object.keys(definition.p).filter((p) => !(facts.kind && (p === 'kind' || p === 'apiVersion')));
      assert.deepEqual(jsonNames(facts).sort(), expected.sort(), name);
      compared++;
    }
    assert.ok(compared > 400, `compared ${compared} messages`);
  });

  it('knows how to write every type that has its own JSON', () => {
    const custom = table.messageNames.filter((n) => table.message(n)?.custom);
    assert.ok(custom.includes('k8s.io.apimachinery.pkg.apis.meta.v1.Time'));
    for (const name of custom) assert.ok(customJsonConverter(name), name);
  });

  it('marks kinds and slice-typed wrappers', () => {
    assert.equal(table.message('k8s.io.api.core.v1.ConfigMap')?.kind, true);
    assert.equal(table.message('k8s.io.api.core.v1.Container')?.kind, false);
    assert.equal(table.message('k8s.io.apimachinery.pkg.apis.meta.v1.Verbs')?.list, true);
    const replicas = table.message('k8s.io.api.apps.v1.DeploymentSpec')?.byNumber.get(1);
    assert.deepEqual(replicas && [replicas.jsonName, replicas.type, replicas.pointer, replicas.omitempty], [
      'replicas',
      'int32',
      true,
      true,
    ]);
  });
});
