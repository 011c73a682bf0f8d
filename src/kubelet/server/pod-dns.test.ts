import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { DEFAULT_POD_DNS, hostsFile, podHostname, resolvConf } from './pod-dns.js';

const pod = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'web-0', namespace: 'shop' },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
  status: { podIP: '10.244.1.7', podIPs: [{ ip: '10.244.1.7' }], ...status },
});

describe("a pod's resolv.conf and hosts file", () => {
  it('ClusterFirst: the cluster DNS, the namespace, service and cluster search domains, ndots:5', () => {
    assert.equal(
      resolvConf(pod(), DEFAULT_POD_DNS),
      'search shop.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
    // ClusterFirst with hostNetwork, and Default, use the node's DNS: none on a simulated node.
    const node = 'search .\nnameserver 127.0.0.1\n';
    assert.equal(resolvConf(pod({ hostNetwork: true }), DEFAULT_POD_DNS), node);
    assert.equal(resolvConf(pod({ dnsPolicy: 'Default' }), DEFAULT_POD_DNS), node);
    assert.equal(resolvConf(pod(), { clusterDNS: [], clusterDomain: 'cluster.local' }), node);
    assert.equal(
      resolvConf(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), DEFAULT_POD_DNS),
      'search shop.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
  });

  it('dnsConfig adds nameservers, searches and options; None takes only dnsConfig', () => {
    const dnsConfig = {
      nameservers: ['192.0.2.1', '10.96.0.10', '192.0.2.2', '192.0.2.3'],
      searches: ['corp.example', 'svc.cluster.local'],
      options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }],
    };
    assert.equal(
      resolvConf(pod({ dnsConfig }), DEFAULT_POD_DNS),
      [
        'search shop.svc.cluster.local svc.cluster.local cluster.local corp.example',
        'nameserver 10.96.0.10',
        'nameserver 192.0.2.1',
        'nameserver 192.0.2.2',
        'options ndots:2 edns0',
        '',
      ].join('\n'),
    );
    assert.equal(
      resolvConf(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['192.0.2.9'] } }), DEFAULT_POD_DNS),
      'nameserver 192.0.2.9\n',
    );
  });

  it("writes /etc/hosts as the kubelet manages it, with the pod's subdomain and hostAliases", () => {
    const header = [
      '# Kubernetes-managed hosts file.',
      '127.0.0.1\tlocalhost',
      '::1\tlocalhost ip6-localhost ip6-loopback',
      'fe00::0\tip6-localnet',
      'fe00::0\tip6-mcastprefix',
      'fe00::1\tip6-allnodes',
      'fe00::2\tip6-allrouters',
    ].join('\n');
    assert.equal(hostsFile(pod(), 'cluster.local'), `${header}\n10.244.1.7\tweb-0\n`);
    const stateful = pod({
      hostname: 'web-0',
      subdomain: 'web',
      hostAliases: [{ ip: '192.0.2.5', hostnames: ['db', 'db.local'] }],
    });
    assert.equal(
      hostsFile(stateful, 'cluster.local'),
      `${header}\n10.244.1.7\tweb-0.web.shop.svc.cluster.local\tweb-0\n\n# Entries added by HostAliases.\n192.0.2.5\tdb\tdb.local\n`,
    );
    assert.equal(podHostname(stateful, 'cluster.local'), 'web-0');
    assert.equal(
      podHostname(pod({ subdomain: 'web', setHostnameAsFQDN: true }), 'cluster.local'),
      'web-0.web.shop.svc.cluster.local',
    );
    assert.equal(podHostname(pod({ hostNetwork: true, nodeName: 'node-2' }), 'cluster.local'), 'node-2');
    const long = { ...pod(), metadata: { name: `${'a'.repeat(62)}-b`, namespace: 'shop' } };
    assert.equal(podHostname(long, 'cluster.local'), 'a'.repeat(62));
  });
});
