import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { serviceEnvironment } from './service-env.js';

const service = (namespace: string, name: string, clusterIP: string, ports: unknown[]): KubeObject => ({
  metadata: { name, namespace },
  spec: { clusterIP, ports },
});
const pod = (namespace: string, enableServiceLinks?: boolean): KubeObject => ({
  metadata: { name: 'p', namespace },
  spec: enableServiceLinks === undefined ? {} : { enableServiceLinks },
});

describe('Service environment variables', () => {
  const all = [
    service('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]),
    service('default', 'other', '10.96.0.9', [{ port: 80 }]),
    service('shop', 'web-front', 'fd00::5', [{ port: 8080 }]),
  ];

  it("gives the namespace's Services and the default namespace's kubernetes, not other namespaces' Services", () => {
    const env = serviceEnvironment(pod('shop'), all);
    assert.deepEqual(
      [...env.keys()].filter((k) => k.endsWith('_SERVICE_HOST')),
      ['KUBERNETES_SERVICE_HOST', 'WEB_FRONT_SERVICE_HOST'],
    );
    assert.equal(env.get('WEB_FRONT_PORT'), 'tcp://[fd00::5]:8080', 'an IPv6 address in brackets');
    assert.equal(env.get('WEB_FRONT_PORT_8080_TCP_ADDR'), 'fd00::5');
  });

  it('gives only the master Service when the pod turns service links off', () => {
    const env = serviceEnvironment(pod('default', false), all);
    assert.deepEqual(
      [...env.keys()].filter((k) => k.endsWith('_SERVICE_HOST')),
      ['KUBERNETES_SERVICE_HOST'],
    );
    assert.equal(serviceEnvironment(pod('default'), all).get('OTHER_SERVICE_PORT'), '80');
  });
});
