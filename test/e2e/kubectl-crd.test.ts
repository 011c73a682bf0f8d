import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
    - name: Color
      type: string
      jsonPath: .spec.color
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is a thing with a size and a color.
        properties:
          spec:
            type: object
            description: What the widget should be.
            required: [size]
            x-kubernetes-validations:
            - rule: self.size <= 10
              message: size must be at most 10
            properties:
              size:
                type: integer
                description: How big the widget is.
              color:
                type: string
                enum: [red, blue]
                default: red
              replicas:
                type: integer
          status:
            type: object
            properties:
              replicas:
                type: integer
`;

const WIDGETS = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
spec:
  size: 3
  color: blue
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w2
spec:
  size: 5
`;

describe('kubectl with CustomResourceDefinitions', () => {
  let cp: ControlPlane;
  let dir: string;
  before(async () => {
    cp = await startControlPlane();
    dir = cp.dataDir;
    writeFileSync(join(dir, 'crd.yaml'), CRD);
    writeFileSync(join(dir, 'widgets.yaml'), WIDGETS);
    writeFileSync(
      join(dir, 'bad.yaml'),
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\nspec:\n  size: 11\n',
    );
  });
  after(async () => {
    await cp?.stop();
  });

  it('applies the CRD, waits for Established, and lists the resource', async () => {
    const applied = await kubectl(cp, ['apply', '-f', join(dir, 'crd.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout, 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n');
    const wait = await kubectl(cp, ['wait', '--for', 'condition=Established', 'crd/widgets.example.com']);
    assert.equal(wait.code, 0, wait.stderr);
    const resources = await kubectl(cp, ['api-resources', '--api-group=example.com', '--no-headers']);
    assert.equal(resources.code, 0, resources.stderr);
    assert.match(resources.stdout, /^widgets\s+wd\s+example\.com\/v1\s+true\s+Widget\n$/);
  });

  it('creates custom resources and prints their columns, by short name too', async () => {
    const applied = await kubectl(cp, ['apply', '-f', join(dir, 'widgets.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout, 'widget.example.com/w1 created\nwidget.example.com/w2 created\n');
    const get = await eventually(async () => {
      const res = await kubectl(cp, ['get', 'wd']);
      assert.equal(res.code, 0, res.stderr);
      return res;
    });
    const lines = get.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+SIZE\s+COLOR$/);
    assert.match(lines[1] ?? '', /^w1\s+3\s+blue$/);
    assert.match(lines[2] ?? '', /^w2\s+5\s+red$/);
    writeFileSync(join(dir, 'w1.yaml'), WIDGETS.split('---\n')[0]?.replace('size: 3', 'size: 6') ?? '');
    const reapplied = await kubectl(cp, ['apply', '-f', join(dir, 'w1.yaml')]);
    assert.equal(reapplied.code, 0, reapplied.stderr);
    assert.equal(reapplied.stdout, 'widget.example.com/w1 configured\n');
    const size = await kubectl(cp, ['get', 'wd', 'w1', '-o', 'jsonpath={.spec.size}']);
    assert.equal(size.stdout, '6');
    const labeled = await kubectl(cp, ['label', 'wd', 'w2', 'tier=gold']);
    assert.equal(labeled.code, 0, labeled.stderr);
    assert.equal(labeled.stdout, 'widget.example.com/w2 labeled\n');
    const gold = await kubectl(cp, ['get', 'wd', '-l', 'tier=gold', '-o', 'name']);
    assert.equal(gold.stdout, 'widget.example.com/w2\n');
    const all = await kubectl(cp, ['get', 'all']);
    assert.match(all.stdout, /^widget\.example\.com\/w1\s/m);
  });

  it('refuses an invalid custom resource with the rule message', async () => {
    const res = await kubectl(cp, ['apply', '-f', join(dir, 'bad.yaml')]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /The Widget "bad" is invalid: spec: Invalid value: "object": size must be at most 10/);
  });

  it('explains the custom resource from its schema', async () => {
    const res = await kubectl(cp, ['explain', 'widget.spec']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^GROUP:\s+example\.com$/m);
    assert.match(res.stdout, /^KIND:\s+Widget$/m);
    assert.match(res.stdout, /What the widget should be\./);
    assert.match(res.stdout, /size\s+<integer> -required-/);
    assert.match(res.stdout, /How big the widget is\./);
  });

  it('scales through the scale subresource', async () => {
    const res = await kubectl(cp, ['scale', 'widget', 'w1', '--replicas=4']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, 'widget.example.com/w1 scaled\n');
    const replicas = await kubectl(cp, ['get', 'widget', 'w1', '-o', 'jsonpath={.spec.replicas}']);
    assert.equal(replicas.stdout, '4');
  });

  it('deletes the custom resources with their CRD', async () => {
    const res = await kubectl(cp, ['delete', 'crd', 'widgets.example.com']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, 'customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n');
    await eventually(async () => {
      const crds = await kubectl(cp, ['get', 'crd', '--no-headers']);
      assert.equal(crds.stdout, '');
    });
    assert.equal(await cp.storage.count('/registry/example.com/widgets/'), 0);
    // A fresh discovery cache: the one above still lists widgets, as kubectl's would against any server.
    const gone = await kubectl(cp, ['--cache-dir', join(dir, 'fresh-cache'), 'get', 'widgets']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /the server doesn't have a resource type "widgets"/);
  });
});
