import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { resourcesOf, servedGroupVersions } from './catalog.js';
import { schemaForDefinition, schemaForKind } from './schema.js';
import type { SchemaNode } from './schema-node.js';

/** Follows a path of property names; '[]' steps into array items. */
function walk(node: SchemaNode | undefined, ...path: string[]): SchemaNode {
  let current = node;
  for (const step of path) {
    assert.ok(current, `no node before ${step}`);
    current = step === '[]' ? current.items : current.property(step);
  }
  assert.ok(current, `no node at ${path.join('.')}`);
  return current;
}

const deployment = () => schemaForKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
const pod = () => schemaForKind({ group: '', version: 'v1', kind: 'Pod' });

describe('schema patch metadata', () => {
  it('merges Deployment containers by name', () => {
    const containers = walk(deployment(), 'spec', 'template', 'spec', 'containers');
    assert.equal(containers.type, 'array');
    assert.equal(containers.patchStrategy, 'merge');
    assert.equal(containers.patchMergeKey, 'name');
    assert.equal(containers.listType, 'map');
    assert.deepEqual(containers.listMapKeys, ['name']);
    assert.equal(containers.items?.definition, 'io.k8s.api.core.v1.Container');
    assert.ok(containers.items?.required?.includes('name'));
  });

  it('keys Pod container ports by containerPort and protocol', () => {
    const ports = walk(pod(), 'spec', 'containers', '[]', 'ports');
    assert.deepEqual(ports.listMapKeys, ['containerPort', 'protocol']);
    assert.equal(ports.patchMergeKey, 'containerPort');
    assert.equal(walk(ports, '[]', 'containerPort').type, 'integer');
    assert.equal(walk(ports, '[]', 'containerPort').format, 'int32');
  });

  it('keeps a property’s own metadata on a referenced definition', () => {
    const strategy = walk(deployment(), 'spec', 'strategy');
    assert.equal(strategy.patchStrategy, 'retainKeys');
    assert.equal(strategy.definition, 'io.k8s.api.apps.v1.DeploymentStrategy');
    assert.ok(strategy.property('rollingUpdate'));
    // The shared definition node itself carries no property-level metadata.
    assert.equal(schemaForDefinition('io.k8s.api.apps.v1.DeploymentStrategy')?.patchStrategy, undefined);
  });

  it('reports map and list types', () => {
    const nodeSelector = walk(pod(), 'spec', 'nodeSelector');
    assert.equal(nodeSelector.type, 'object');
    assert.equal(nodeSelector.mapType, 'atomic');
    assert.equal(nodeSelector.additionalProperties?.type, 'string');
    assert.equal(walk(deployment(), 'spec', 'selector').mapType, 'atomic');
    assert.equal(walk(pod(), 'spec', 'containers', '[]', 'args').listType, 'atomic');
    assert.equal(walk(pod(), 'metadata', 'finalizers').listType, 'set');
  });
});

describe('schema special types', () => {
  it('types IntOrString as a string with format int-or-string', () => {
    const maxSurge = walk(deployment(), 'spec', 'strategy', 'rollingUpdate', 'maxSurge');
    assert.equal(maxSurge.type, 'string');
    assert.equal(maxSurge.format, 'int-or-string');
  });

  it('types Quantity as a string and Time as a date-time string', () => {
    const limit = walk(pod(), 'spec', 'containers', '[]', 'resources', 'limits').additionalProperties;
    assert.equal(limit?.type, 'string');
    assert.equal(limit?.definition, 'io.k8s.apimachinery.pkg.api.resource.Quantity');
    const created = walk(pod(), 'metadata', 'creationTimestamp');
    assert.equal(created.type, 'string');
    assert.equal(created.format, 'date-time');
  });

  it('lets free-form objects keep unknown fields', () => {
    const data = walk(schemaForKind({ group: 'apps', version: 'v1', kind: 'ControllerRevision' }), 'data');
    assert.equal(data.type, 'object');
    assert.equal(data.preserveUnknownFields, true);
    assert.equal(walk(pod(), 'spec').preserveUnknownFields, undefined);
    const json = schemaForDefinition('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON');
    assert.equal(json?.type, 'any');
  });
});

describe('schema lookups', () => {
  it('finds kinds by group, version and kind', () => {
    assert.equal(
      schemaForKind({ group: 'autoscaling', version: 'v1', kind: 'Scale' })?.definition,
      'io.k8s.api.autoscaling.v1.Scale',
    );
    assert.equal(schemaForKind({ group: 'apps', version: 'v1beta1', kind: 'Deployment' }), undefined);
    assert.equal(schemaForKind({ group: 'apps', version: 'v1', kind: 'Nope' }), undefined);
    assert.equal(schemaForDefinition('constructor'), undefined);
    assert.equal(walk(pod(), 'spec').property('constructor'), undefined);
    assert.equal(walk(pod(), 'spec').property('nope'), undefined);
  });

  it('builds each node once', () => {
    assert.equal(pod(), pod());
    assert.equal(walk(pod(), 'spec'), walk(pod(), 'spec'));
    assert.equal(walk(pod(), 'spec'), schemaForDefinition('io.k8s.api.core.v1.PodSpec'));
    assert.ok(pod()?.propertyNames?.includes('status'));
  });

  it('has a schema for every served kind and every subresource body kind', () => {
    // Connect subresources (exec, attach, portforward, proxy) take their *Options as query
    // parameters; the document has no definition for those.
    const connectOptions = /^(Node|Pod|Service)(Attach|Exec|PortForward|Proxy)Options$/;
    for (const g of servedGroupVersions()) {
      for (const version of g.versions) {
        for (const r of resourcesOf(g.group, version)) {
          assert.ok(schemaForKind({ group: g.group, version, kind: r.kind }), `${g.group}/${version} ${r.kind}`);
          for (const s of r.subresources) {
            const found = schemaForKind(s) !== undefined;
            assert.equal(
              found,
              !connectOptions.test(s.kind),
              `${r.resource}/${s.name} ${s.group}/${s.version} ${s.kind}`,
            );
          }
        }
      }
    }
  });
});

describe('generated definitions', () => {
  const text = readFileSync(new URL('./generated/definitions.json', import.meta.url), 'utf8');

  it('carries no description texts', () => {
    assert.doesNotMatch(text, /"description":"/);
  });

  it('resolves every reference', () => {
    const defs = JSON.parse(text) as Record<string, unknown>;
    const missing: string[] = [];
    for (const match of text.matchAll(/"r":"([^"]+)"/g)) {
      const name = match[1] ?? '';
      if (!Object.hasOwn(defs, name)) missing.push(name);
    }
    assert.deepEqual(missing, []);
    assert.equal(
      Object.keys(defs).some((name) => /v\d+(alpha|beta)\d+/.test(name)),
      false,
    );
  });
});
