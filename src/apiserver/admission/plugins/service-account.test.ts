import { after, before, describe, it } from 'node:test';
import {
  type AdmissionTestCluster,
  admissionTestCluster,
  refusalMessage as refusal,
  runPlugin,
} from '../../../testing/admission-registry.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { ClusterReader } from './cluster-reader.js';
import { DEFAULT_API_TOKEN_MOUNT_PATH, serviceAccount, tokenVolumeSource } from './service-account.js';

type Rec = Record<string, unknown>;

function pod(spec: Rec, meta: Rec = {}): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'app', ...meta },
    spec: { containers: [{ name: 'c', image: 'i' }], ...spec },
  };
}

describe('ServiceAccount admission', () => {
  let cluster: AdmissionTestCluster;
  let plugin: ReturnType<typeof serviceAccount>;
  const create = (obj: KubeObject) => cluster.attrs('', 'v1', 'pods', { operation: 'CREATE', object: obj });

  before(async () => {
    cluster = admissionTestCluster();
    await cluster.put('', 'v1', 'namespaces', { metadata: { name: 'app' } });
    await cluster.put('', 'v1', 'serviceaccounts', {
      metadata: { name: 'default', namespace: 'app' },
      imagePullSecrets: [{ name: 'regcred' }],
    });
    await cluster.put('', 'v1', 'serviceaccounts', {
      metadata: { name: 'quiet', namespace: 'app' },
      automountServiceAccountToken: false,
    });
    await cluster.put('', 'v1', 'serviceaccounts', {
      metadata: {
        name: 'strict',
        namespace: 'app',
        annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' },
      },
      secrets: [{ name: 'allowed' }],
    });
    await cluster.settle();
    plugin = serviceAccount(new ClusterReader(cluster.registry), { retryDelayMs: () => 1, attempts: 3 });
  });
  after(() => cluster.close());

  it('defaults the account to default and mounts the projected token volume in every container', async () => {
    const p = pod({ initContainers: [{ name: 'init', image: 'i' }] });
    await runPlugin(plugin, create(p));
    const spec = p.spec as Rec;
    assert.equal(spec.serviceAccountName, 'default');
    const volumes = spec.volumes as Rec[];
    assert.equal(volumes.length, 1);
    const name = volumes[0]?.name as string;
    assert.match(name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const projected = volumes[0]?.projected as Rec;
    assert.deepEqual(projected, tokenVolumeSource());
    assert.deepEqual(projected.sources, [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ]);
    assert.equal(projected.defaultMode, 420);
    for (const field of ['containers', 'initContainers']) {
      assert.deepEqual((spec[field] as Rec[])[0]?.volumeMounts, [
        { name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
      ]);
    }
    assert.deepEqual(spec.imagePullSecrets, [{ name: 'regcred' }]);
  });

  it('mounts nothing when the pod or its account opts out, and keeps a container that mounts the path itself', async () => {
    const optedOut = pod({ automountServiceAccountToken: false });
    await runPlugin(plugin, create(optedOut));
    assert.equal((optedOut.spec as Rec).volumes, undefined);
    const quiet = pod({ serviceAccountName: 'quiet' });
    await runPlugin(plugin, create(quiet));
    assert.equal((quiet.spec as Rec).volumes, undefined);
    const podWins = pod({ serviceAccountName: 'quiet', automountServiceAccountToken: true });
    await runPlugin(plugin, create(podWins));
    assert.equal(((podWins.spec as Rec).volumes as Rec[]).length, 1);
    const own = pod({
      containers: [
        { name: 'c', image: 'i', volumeMounts: [{ name: 'mine', mountPath: DEFAULT_API_TOKEN_MOUNT_PATH }] },
      ],
      volumes: [{ name: 'mine', emptyDir: {} }],
    });
    await runPlugin(plugin, create(own));
    assert.deepEqual((own.spec as Rec).volumes, [{ name: 'mine', emptyDir: {} }]);
  });

  it('refuses a pod whose account does not exist, with upstream message', async () => {
    assert.equal(
      await refusal(runPlugin(plugin, create(pod({ serviceAccountName: 'ghost' })))),
      'pods "web" is forbidden: error looking up service account app/ghost: serviceaccount "ghost" not found',
    );
    const elsewhere = pod({}, { namespace: 'empty' });
    assert.equal(
      await refusal(runPlugin(plugin, cluster.attrs('', 'v1', 'pods', { operation: 'CREATE', object: elsewhere }))),
      'pods "web" is forbidden: error looking up service account empty/default: serviceaccount "default" not found',
    );
  });

  it('finds a default account made while it waits', async () => {
    const p = pod({}, { namespace: 'later' });
    const slow = serviceAccount(new ClusterReader(cluster.registry), { retryDelayMs: () => 20, attempts: 10 });
    const admitted = runPlugin(slow, cluster.attrs('', 'v1', 'pods', { operation: 'CREATE', object: p }));
    await cluster.put('', 'v1', 'serviceaccounts', { metadata: { name: 'default', namespace: 'later' } });
    await admitted;
    assert.equal((p.spec as Rec).serviceAccountName, 'default');
  });

  it('limits secrets to the account’s own when it enforces mountable secrets', async () => {
    const volume = pod({ serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] });
    assert.equal(
      await refusal(runPlugin(plugin, create(volume))),
      'pods "web" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    const env = pod({
      serviceAccountName: 'strict',
      containers: [
        { name: 'c', image: 'i', env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] },
      ],
    });
    assert.equal(
      await refusal(runPlugin(plugin, create(env))),
      'pods "web" is forbidden: container c with envVar PW referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    await runPlugin(
      plugin,
      create(pod({ serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }] })),
    );
    const ephemeral = pod({
      serviceAccountName: 'strict',
      ephemeralContainers: [{ name: 'dbg', image: 'i', envFrom: [{ secretRef: { name: 'other' } }] }],
    });
    assert.equal(
      await refusal(
        runPlugin(
          plugin,
          cluster.attrs('', 'v1', 'pods', {
            operation: 'UPDATE',
            subresource: 'ephemeralcontainers',
            object: ephemeral,
            oldObject: pod({ serviceAccountName: 'strict' }),
          }),
        ),
      ),
      'pods "web" is forbidden: ephemeral container dbg with envFrom referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
  });

  it('leaves mirror pods unchanged and refuses ones that use accounts or secrets', async () => {
    const mirror = { 'kubernetes.io/config.mirror': 'abc' };
    const plain = pod({}, { annotations: mirror });
    await runPlugin(plugin, create(plain));
    assert.equal((plain.spec as Rec).serviceAccountName, undefined);
    assert.equal(
      await refusal(runPlugin(plugin, create(pod({ serviceAccountName: 'default' }, { annotations: mirror })))),
      'pods "web" is forbidden: a mirror pod may not reference service accounts',
    );
    assert.equal(
      await refusal(
        runPlugin(
          plugin,
          create(pod({ volumes: [{ name: 's', secret: { secretName: 'x' } }] }, { annotations: mirror })),
        ),
      ),
      'pods "web" is forbidden: a mirror pod may not reference secrets',
    );
    // Refused in the mutating phase already, as upstream's Admit validates mirror pods: ahead of the plugins that
    // run later in that phase (NodeRestriction's "can not create pods that reference a service account").
    assert.equal(
      await refusal(
        Promise.resolve().then(() =>
          plugin.admit?.(create(pod({ serviceAccountName: 'default' }, { annotations: mirror }))),
        ),
      ),
      'pods "web" is forbidden: a mirror pod may not reference service accounts',
    );
  });
});
