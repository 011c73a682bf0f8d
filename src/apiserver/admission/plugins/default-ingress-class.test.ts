import { after, before, describe, it } from 'node:test';
import { type AdmissionTestCluster, admissionTestCluster, runPlugin } from '../../../testing/admission-registry.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { ClusterReader } from './cluster-reader.js';
import { defaultIngressClass, defaultIngressClassPlugin } from './default-ingress-class.js';

const ingress = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
});

describe('DefaultIngressClass admission', () => {
  let cluster: AdmissionTestCluster;
  let plugin: ReturnType<typeof defaultIngressClassPlugin>;
  const create = (obj: KubeObject) =>
    runPlugin(plugin, cluster.attrs('networking.k8s.io', 'v1', 'ingresses', { operation: 'CREATE', object: obj }));

  before(async () => {
    cluster = admissionTestCluster();
    plugin = defaultIngressClassPlugin(new ClusterReader(cluster.registry));
  });
  after(() => cluster.close());

  it('leaves ingresses alone while no class is the default', async () => {
    await cluster.put('networking.k8s.io', 'v1', 'ingressclasses', {
      metadata: { name: 'plain' },
      spec: { controller: 'x.io/c' },
    });
    await cluster.settle();
    const i = ingress();
    await create(i);
    assert.equal((i.spec as Record<string, unknown>).ingressClassName, undefined);
  });

  it('sets the default class on ingresses that name none, but not on ones with a class or the old annotation', async () => {
    await cluster.put('networking.k8s.io', 'v1', 'ingressclasses', {
      metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
      spec: { controller: 'k8s.io/ingress-nginx' },
    });
    await cluster.settle();
    const i = ingress();
    await create(i);
    assert.equal((i.spec as Record<string, unknown>).ingressClassName, 'nginx');
    const named = ingress({ ingressClassName: 'plain' });
    await create(named);
    assert.equal((named.spec as Record<string, unknown>).ingressClassName, 'plain');
    const annotated = ingress({}, { 'kubernetes.io/ingress.class': 'traefik' });
    await create(annotated);
    assert.equal((annotated.spec as Record<string, unknown>).ingressClassName, undefined);
  });

  it('picks the newest of several default classes', () => {
    const c = (name: string, creationTimestamp: string): KubeObject => ({
      metadata: { name, creationTimestamp, annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
    });
    assert.equal(
      defaultIngressClass([
        c('old', '2026-01-01T00:00:00Z'),
        c('new', '2026-02-01T00:00:00Z'),
        c('mid', '2026-01-15T00:00:00Z'),
      ])?.metadata.name,
      'new',
    );
  });
});
