import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { ingressclasses } from './networking-ingressclasses.js';
import { ingresses } from './networking-ingresses.js';

const messages = (errs: { message: string }[] | undefined) => (errs ?? []).map((e) => e.message);

function ingress(spec: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'web', namespace: 'default' }, spec };
}

const backend = { service: { name: 'web', port: { number: 80 } } };

describe('networking.k8s.io/v1 Ingresses and IngressClasses', () => {
  it('accepts a plain ingress and starts its status empty', () => {
    const obj = ingress({
      rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }],
    });
    ingresses.def.strategy.prepareForCreate?.(obj);
    assert.deepEqual(obj.status, { loadBalancer: {} });
    assert.deepEqual(ingresses.def.strategy.validate?.(obj), []);
  });

  it('validates rules, paths and backends with upstream text', () => {
    assert.deepEqual(messages(ingresses.def.strategy.validate?.(ingress({}))), [
      'spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified',
    ]);
    const obj = ingress({
      rules: [
        {
          host: '10.0.0.1',
          http: {
            paths: [
              { path: 'api', pathType: 'Prefix', backend },
              { path: '/', backend },
              {
                path: '/x',
                pathType: 'Exact',
                backend: { service: { name: 'web', port: { name: 'http', number: 80 } } },
              },
            ],
          },
        },
      ],
    });
    assert.deepEqual(messages(ingresses.def.strategy.validate?.(obj)), [
      'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
      'spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path',
      'spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified',
      'spec.rules[0].http.paths[2].backend: Invalid value: "": cannot set both port name & port number',
    ]);
  });

  it('checks the legacy class annotation against ingressClassName', () => {
    const obj = ingress({ ingressClassName: 'nginx', defaultBackend: backend });
    obj.metadata.annotations = { 'kubernetes.io/ingress.class': 'traefik' };
    assert.deepEqual(messages(ingresses.def.strategy.validate?.(obj)), [
      'annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified',
    ]);
  });

  it('prints CLASS HOSTS ADDRESS PORTS', () => {
    const obj = ingress({
      ingressClassName: 'nginx',
      tls: [{ hosts: ['a.example.com'] }],
      rules: [
        { host: 'a.example.com' },
        { host: 'b.example.com' },
        {},
        { host: 'c.example.com' },
        { host: 'd.example.com' },
      ],
    });
    obj.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    obj.status = {
      loadBalancer: { ingress: [{ ip: '192.0.2.2' }, { hostname: 'lb.example.com' }, { ip: '192.0.2.1' }] },
    };
    assert.deepEqual(ingresses.printer.cells(obj, Date.parse('2026-01-01T00:00:01Z')), [
      'web',
      'nginx',
      'a.example.com,b.example.com,c.example.com + 2 more...',
      '192.0.2.1,192.0.2.2,lb.example.com',
      '80, 443',
      '1s',
    ]);
  });

  it('defaults IngressClass parameter scope and keeps the controller immutable', () => {
    const ic: KubeObject = {
      metadata: { name: 'nginx', resourceVersion: '1' },
      spec: {
        controller: 'k8s.io/ingress-nginx',
        parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' },
      },
    };
    ingressclasses.def.strategy.default?.(ic);
    assert.equal((ic.spec as { parameters: { scope: string } }).parameters.scope, 'Cluster');
    assert.deepEqual(ingressclasses.def.strategy.validate?.(ic), []);
    const next = structuredClone(ic);
    (next.spec as { controller: string }).controller = 'example.com/other';
    assert.deepEqual(messages(ingressclasses.def.strategy.validateUpdate?.(next, ic)), [
      'spec.controller: Invalid value: "example.com/other": field is immutable',
    ]);
    const bad: KubeObject = { metadata: { name: 'x' }, spec: { controller: 'nginx' } };
    assert.deepEqual(messages(ingressclasses.def.strategy.validate?.(bad)), [
      'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")',
    ]);
    ic.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    assert.deepEqual(ingressclasses.printer.cells(ic, Date.parse('2026-01-01T00:00:02Z')), [
      'nginx',
      'k8s.io/ingress-nginx',
      'Params.k8s.example.com/p',
      '2s',
    ]);
  });
});
