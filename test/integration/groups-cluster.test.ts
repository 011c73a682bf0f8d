import { after, before, describe, it } from 'node:test';
import { kubernetesServiceCIDR } from '../../src/apiserver/registry/resources/groups-index.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

describe('networking, policy, scheduling, storage, rbac, coordination and discovery through the HTTP API', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('answers a StorageClass DELETE with the deleted object', async () => {
    const sc = await apiRequest(cp, 'POST', '/apis/storage.k8s.io/v1/storageclasses', {
      body: { metadata: { name: 'fast' }, provisioner: 'example.com/ssd' },
    });
    assert.equal(sc.status, 201, sc.text);
    assert.equal(sc.body.reclaimPolicy, 'Delete');
    assert.equal(sc.body.volumeBindingMode, 'Immediate');
    assert.equal(sc.body.metadata.generation, undefined, 'storage classes do not track generation');
    const del = await apiRequest(cp, 'DELETE', '/apis/storage.k8s.io/v1/storageclasses/fast');
    assert.equal(del.status, 200);
    assert.equal(del.body.kind, 'StorageClass');
    assert.equal(del.body.metadata.name, 'fast');
  });

  it('refuses user priority classes in the system range, and a roleRef change', async () => {
    const pc = await apiRequest(cp, 'POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
      body: { metadata: { name: 'system-mine' }, value: 10 },
    });
    assert.equal(pc.status, 422);
    assert.equal(
      pc.body.message,
      `PriorityClass.scheduling.k8s.io "system-mine" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class`,
    );
    const rbs = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';
    const created = await apiRequest(cp, 'POST', rbs, {
      body: {
        metadata: { name: 'ops' },
        roleRef: { kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'Group', name: 'ops' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.roleRef.apiGroup, 'rbac.authorization.k8s.io');
    assert.equal(created.body.subjects[0].apiGroup, 'rbac.authorization.k8s.io');
    const changed = await apiRequest(cp, 'PUT', `${rbs}/ops`, {
      body: { ...created.body, roleRef: { ...created.body.roleRef, name: 'edit' } },
    });
    assert.equal(changed.status, 422);
    assert.equal(
      changed.body.message,
      'ClusterRoleBinding.rbac.authorization.k8s.io "ops" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    );
  });

  it('has the kubernetes ServiceCIDR from the bootstrap and prints Ingress and EndpointSlice tables', async () => {
    const again = await apiRequest(cp, 'POST', '/apis/networking.k8s.io/v1/servicecidrs', {
      body: kubernetesServiceCIDR('10.96.0.0/12'),
    });
    assert.equal(again.status, 409, again.text);
    const cidr = await apiRequest(cp, 'GET', '/apis/networking.k8s.io/v1/servicecidrs/kubernetes');
    assert.deepEqual(cidr.body.spec.cidrs, ['10.96.0.0/12']);
    const ing = await apiRequest(cp, 'POST', '/apis/networking.k8s.io/v1/namespaces/default/ingresses', {
      body: {
        metadata: { name: 'web' },
        spec: {
          rules: [
            {
              host: 'web.example.com',
              http: {
                paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
              },
            },
          ],
        },
      },
    });
    assert.equal(ing.status, 201, ing.text);
    const table = await apiRequest(cp, 'GET', '/apis/networking.k8s.io/v1/namespaces/default/ingresses', {
      headers: TABLE,
    });
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age'],
    );
    assert.deepEqual(table.body.rows[0].cells.slice(0, 5), ['web', '<none>', 'web.example.com', '', '80']);
    const slice = await apiRequest(cp, 'POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      body: {
        metadata: { name: 'web-1' },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.5'] }],
        ports: [{ port: 8080 }],
      },
    });
    assert.equal(slice.status, 201, slice.text);
    assert.deepEqual(slice.body.ports, [{ port: 8080, name: '', protocol: 'TCP' }]);
    const slices = await apiRequest(cp, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      headers: TABLE,
    });
    const webRow = slices.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'web-1');
    assert.deepEqual(webRow.cells.slice(0, 4), ['web-1', 'IPv4', '8080', '10.0.0.5']);
  });

  it('defaults NetworkPolicy types and validates PodDisruptionBudgets', async () => {
    const np = await apiRequest(cp, 'POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', {
      body: { metadata: { name: 'deny-all' }, spec: { podSelector: {} } },
    });
    assert.equal(np.status, 201, np.text);
    assert.deepEqual(np.body.spec.policyTypes, ['Ingress']);
    const pdb = await apiRequest(cp, 'POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', {
      body: { metadata: { name: 'web' }, spec: { maxUnavailable: 'half', selector: { matchLabels: { app: 'web' } } } },
    });
    assert.equal(pdb.status, 422);
    assert.equal(
      pdb.body.message,
      `PodDisruptionBudget.policy "web" is invalid: spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
    );
  });

  it('stores Leases without a generation', async () => {
    const lease = await apiRequest(cp, 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      body: { metadata: { name: 'node-a' }, spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40 } },
    });
    assert.equal(lease.status, 201, lease.text);
    assert.equal(lease.body.metadata.generation, undefined);
  });
});
