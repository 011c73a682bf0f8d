import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: store
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: store
  labels:
    app: web
data:
  color: green
---
apiVersion: v1
kind: Secret
metadata:
  name: web-secret
  namespace: store
type: Opaque
data:
  token: c2VjcmV0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: store
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: store
spec:
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 80
`;

describe('kubectl apply, diff, edit, explain and field validation against wheelhouse', () => {
  let cp: ControlPlane;
  let manifest: string;
  before(async () => {
    cp = await startControlPlane();
    manifest = join(cp.dataDir, 'app.yaml');
    writeFileSync(manifest, MANIFEST);
  });
  after(async () => {
    await cp?.stop();
  });

  it('applies a multi-document file: created, then unchanged', async () => {
    const first = await kubectl(cp, ['apply', '-f', manifest]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(
      first.stdout,
      'namespace/store created\nconfigmap/web-config created\nsecret/web-secret created\ndeployment.apps/web created\nservice/web created\n',
    );
    const second = await kubectl(cp, ['apply', '-f', manifest]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(
      second.stdout,
      'namespace/store unchanged\nconfigmap/web-config unchanged\nsecret/web-secret unchanged\ndeployment.apps/web unchanged\nservice/web unchanged\n',
    );
    const cm = JSON.parse((await kubectl(cp, ['get', 'cm', 'web-config', '-n', 'store', '-o', 'json'])).stdout);
    assert.ok(cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  });

  it('diffs against a server-side dry run', async () => {
    const same = await kubectl(cp, ['diff', '-f', manifest]);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.stdout, '');
    const changed = join(cp.dataDir, 'changed.yaml');
    writeFileSync(changed, MANIFEST.replace('color: green', 'color: orange'));
    const diff = await kubectl(cp, ['diff', '-f', changed]);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /^-\s+color: green$/m);
    assert.match(diff.stdout, /^\+\s+color: orange$/m);
    const live = await kubectl(cp, ['get', 'cm', 'web-config', '-n', 'store', '-o', 'jsonpath={.data.color}']);
    assert.equal(live.stdout, 'green', 'diff changed nothing');
    const applied = await kubectl(cp, ['apply', '-f', changed]);
    assert.match(applied.stdout, /^configmap\/web-config configured$/m);
  });

  it('edits with $EDITOR', async () => {
    const editor = join(cp.dataDir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/color: orange/color: purple/" "$1"\n', { mode: 0o755 });
    const res = await kubectl(cp, ['edit', 'cm', 'web-config', '-n', 'store'], {
      env: { EDITOR: editor, KUBE_EDITOR: editor },
    });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, 'configmap/web-config edited\n');
    const jp = await kubectl(cp, ['get', 'cm', 'web-config', '-n', 'store', '-o', 'jsonpath={.data.color}']);
    assert.equal(jp.stdout, 'purple');
  });

  it('explains fields from the OpenAPI v3 documents', async () => {
    const res = await kubectl(cp, ['explain', 'configmap.data']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^KIND:\s+ConfigMap$/m);
    assert.match(res.stdout, /^FIELD: data <map\[string\]string>$/m);
    const bad = await kubectl(cp, ['explain', 'configmap.nope']);
    assert.notEqual(bad.code, 0);
  });

  it('rejects unknown fields with server-side field validation, as upstream words it', async () => {
    const file = join(cp.dataDir, 'typo.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\n  namespace: store\ndata2:\n  a: b\n',
    );
    const strict = await kubectl(cp, ['create', '-f', file]);
    assert.equal(strict.code, 1);
    assert.match(
      strict.stderr,
      /Error from server \(BadRequest\): error when creating ".*typo\.yaml": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "data2"/,
    );
    const warn = await kubectl(cp, ['create', '-f', file, '--validate=warn']);
    assert.equal(warn.code, 0, warn.stderr);
    assert.match(warn.stderr, /Warning: unknown field "data2"/);
    const stored = JSON.parse((await kubectl(cp, ['get', 'cm', 'typo', '-n', 'store', '-o', 'json'])).stdout);
    assert.equal(stored.data2, undefined, 'unknown fields are dropped');
    const ignored = await kubectl(cp, ['apply', '-f', file, '--validate=false']);
    assert.equal(ignored.code, 0, ignored.stderr);
  });

  it('scales a deployment through its scale subresource', async () => {
    const scaled = await kubectl(cp, ['scale', 'deployment', 'web', '-n', 'store', '--replicas=4']);
    assert.equal(scaled.stdout, 'deployment.apps/web scaled\n');
    const dep = JSON.parse((await kubectl(cp, ['get', 'deploy', 'web', '-n', 'store', '-o', 'json'])).stdout);
    assert.equal(dep.spec.replicas, 4);
    assert.equal(dep.metadata.generation, 2, 'scaling changed the spec');
  });
});
