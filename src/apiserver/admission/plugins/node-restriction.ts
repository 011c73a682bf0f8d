/**
 * NodeRestriction (upstream's plugin/pkg/admission/noderestriction): what the Node authorizer lets every kubelet do,
 * narrowed to the kubelet's own objects. A node (`system:node:<name>` in `system:nodes`) may change only its own
 * Node (never its taints, its configSource, or labels outside the kubelet's set), create and delete only mirror pods
 * bound to itself, update the status of and evict only its own pods, ask tokens only for its own pods, update only
 * the status of claims, and touch only its own Lease and CSINode. Requests from anyone else pass untouched.
 */
import { deepEqual } from '../../../api/patch/json-value.js';
import { statusErrors } from '../../../api/status-error.js';
import { podConfigMapNames, podSecretNames } from '../../authz/node/graph.js';
import { nodeIdentity } from '../../authz/node/identity.js';
import { isObject, type KubeObject } from '../../registry/object.js';
import type { AdmissionOptions } from '../options.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionForbidden } from '../types.js';
import type { ClusterReader } from './cluster-reader.js';
import { MIRROR_POD_ANNOTATION } from './service-account.js';

export const NODE_RESTRICTION = 'NodeRestriction';

const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const PODS = { group: '', version: 'v1', resource: 'pods' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };

/** The labels a kubelet may set on its Node (upstream's kubelet/pkg/apis IsKubeletLabel). */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const labelNamespace = (key: string): string => {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
};
const inNamespace = (ns: string, domain: string): boolean => ns === domain || ns.endsWith(`.${domain}`);

function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const ns = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((d) => inNamespace(ns, d));
}

/** The modified label keys a node may not set: node-restriction.kubernetes.io ones, and unknown kubernetes ones. */
export function forbiddenNodeLabels(labels: Record<string, string>, old: Record<string, string>): string[] {
  const modified = new Set<string>();
  for (const [k, v] of Object.entries(labels)) if (old[k] !== v) modified.add(k);
  for (const [k, v] of Object.entries(old)) if (labels[k] !== v) modified.add(k);
  return [...modified]
    .filter((key) => {
      const ns = labelNamespace(key);
      if (inNamespace(ns, 'node-restriction.kubernetes.io')) return true;
      const kubernetes = inNamespace(ns, 'kubernetes.io') || inNamespace(ns, 'k8s.io');
      return kubernetes && !isKubeletLabel(key);
    })
    .sort();
}

const spec = (obj: KubeObject | undefined): Record<string, unknown> =>
  obj && isObject(obj.spec) ? obj.spec : ({} as Record<string, unknown>);
const labelsOf = (obj: KubeObject | undefined): Record<string, string> => obj?.metadata.labels ?? {};
const nodeNameOf = (pod: KubeObject | undefined): string => String(spec(pod).nodeName ?? '');
/** Semantic equality as upstream's: a missing list or map equals an empty one. */
const empty = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
const sameish = (a: unknown, b: unknown): boolean => (empty(a) && empty(b)) || deepEqual(a, b);

export function nodeRestriction(reader: Pick<ClusterReader, 'get'>): AdmissionPlugin {
  const forbid = (attrs: AdmissionAttributes, message: string) => admissionForbidden(attrs, message);
  const unexpectedOperation = (attrs: AdmissionAttributes) =>
    forbid(attrs, `unexpected operation ${JSON.stringify(attrs.operation)}`);

  /** The pod as the cache or storage has it; a missing one is upstream's NotFound. */
  async function existingPod(attrs: AdmissionAttributes, name: string): Promise<KubeObject> {
    const pod = await reader.get(PODS, attrs.namespace, name);
    if (!pod) {
      throw statusErrors.notFound({ group: '', resource: 'pods' }, name);
    }
    return pod;
  }

  async function admitPodCreate(node: string, attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object as KubeObject;
    if (!Object.hasOwn(pod.metadata.annotations ?? {}, MIRROR_POD_ANNOTATION)) {
      throw forbid(
        attrs,
        `pod does not have ${JSON.stringify(MIRROR_POD_ANNOTATION)} annotation, node ${JSON.stringify(node)} can only create mirror pods`,
      );
    }
    if (nodeNameOf(pod) !== node) {
      throw forbid(attrs, `node ${JSON.stringify(node)} can only create pods with spec.nodeName set to itself`);
    }
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length > 1) {
      throw forbid(
        attrs,
        `node ${JSON.stringify(node)} can only create pods with a single owner reference set to itself`,
      );
    }
    const owner = owners[0];
    if (owner?.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
      throw forbid(attrs, `node ${JSON.stringify(node)} can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) {
      throw forbid(
        attrs,
        `node ${JSON.stringify(node)} can only create pods with a controller owner reference set to itself`,
      );
    }
    if (owner.blockOwnerDeletion === true) {
      throw forbid(attrs, `node ${JSON.stringify(node)} must not set blockOwnerDeletion on an owner reference`);
    }
    const nodeObj = await reader.get(NODES, '', node);
    if (!nodeObj) {
      throw statusErrors.notFound({ group: '', resource: 'nodes' }, node);
    }
    if (owner.uid !== nodeObj.metadata.uid) {
      throw forbid(attrs, `node ${node} UID mismatch: expected ${owner.uid} got ${nodeObj.metadata.uid ?? ''}`);
    }
    const s = spec(pod);
    if (s.serviceAccountName) {
      throw forbid(attrs, `node ${JSON.stringify(node)} can not create pods that reference a service account`);
    }
    if (podSecretNames(pod).length > 0) {
      throw forbid(attrs, `node ${JSON.stringify(node)} can not create pods that reference secrets`);
    }
    if (podConfigMapNames(pod).length > 0) {
      throw forbid(attrs, `node ${JSON.stringify(node)} can not create pods that reference configmaps`);
    }
    const volumes = Array.isArray(s.volumes) ? s.volumes.filter(isObject) : [];
    for (const vol of volumes) {
      const sources = isObject(vol.projected) && Array.isArray(vol.projected.sources) ? vol.projected.sources : [];
      if (sources.some((src) => isObject(src) && src.clusterTrustBundle)) {
        throw forbid(attrs, `node ${JSON.stringify(node)} can not create pods that reference clustertrustbundles`);
      }
    }
    if (volumes.some((vol) => vol.persistentVolumeClaim)) {
      throw forbid(attrs, `node ${JSON.stringify(node)} can not create pods that reference persistentvolumeclaims`);
    }
  }

  async function admitPod(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation === 'CREATE') return admitPodCreate(node, attrs);
    if (attrs.operation === 'DELETE') {
      const pod = await existingPod(attrs, attrs.name);
      if (nodeNameOf(pod) !== node) {
        throw forbid(attrs, `node ${JSON.stringify(node)} can only delete pods with spec.nodeName set to itself`);
      }
      return;
    }
    throw forbid(
      attrs,
      `unexpected operation ${JSON.stringify(attrs.operation)}, node ${JSON.stringify(node)} can only create and delete mirror pods`,
    );
  }

  function admitPodStatus(node: string, attrs: AdmissionAttributes): void {
    if (attrs.operation !== 'UPDATE') throw unexpectedOperation(attrs);
    if (nodeNameOf(attrs.oldObject) !== node) {
      throw forbid(
        attrs,
        `node ${JSON.stringify(node)} can only update pod status for pods with spec.nodeName set to itself`,
      );
    }
    if (!sameish(labelsOf(attrs.oldObject), labelsOf(attrs.object))) {
      throw forbid(attrs, `node ${JSON.stringify(node)} cannot update labels through pod status`);
    }
    const claims = (obj: KubeObject | undefined) =>
      obj && isObject(obj.status) ? obj.status.resourceClaimStatuses : undefined;
    if (!sameish(claims(attrs.oldObject), claims(attrs.object))) {
      throw forbid(attrs, `node ${JSON.stringify(node)} cannot update resource claim statues`);
    }
  }

  async function admitPodEviction(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== 'CREATE') throw forbid(attrs, `unexpected operation ${attrs.operation}`);
    const podName = attrs.name || (attrs.object?.metadata.name ?? '');
    if (!podName) throw forbid(attrs, 'could not determine pod from request data');
    const pod = await existingPod(attrs, podName);
    if (nodeNameOf(pod) !== node) {
      throw forbid(attrs, `node ${node} can only evict pods with spec.nodeName set to itself`);
    }
  }

  function admitPVCStatus(node: string, attrs: AdmissionAttributes): void {
    if (attrs.operation !== 'UPDATE') throw unexpectedOperation(attrs);
    const comparable = (obj: KubeObject | undefined) => {
      const copy = structuredClone(obj ?? { metadata: {} }) as KubeObject;
      delete copy.metadata.resourceVersion;
      delete copy.metadata.managedFields;
      if (isObject(copy.status)) {
        for (const key of ['capacity', 'conditions', 'allocatedResourceStatuses', 'allocatedResources']) {
          delete copy.status[key];
        }
      }
      return copy;
    };
    const before = comparable(attrs.oldObject);
    const after = comparable(attrs.object);
    if (!deepEqual(before, after)) {
      throw forbid(
        attrs,
        `node ${JSON.stringify(node)} is not allowed to update fields other than status.capacity and status.conditions: ${changedFields(before, after).join(', ')}`,
      );
    }
  }

  function admitNode(node: string, attrs: AdmissionAttributes): void {
    if (attrs.name !== node) {
      throw forbid(attrs, `node ${JSON.stringify(node)} is not allowed to modify node ${JSON.stringify(attrs.name)}`);
    }
    if (attrs.operation === 'CREATE') {
      if (spec(attrs.object).configSource) {
        throw forbid(attrs, `node ${JSON.stringify(node)} is not allowed to create pods with a non-nil configSource`);
      }
      const forbidden = forbiddenNodeLabels(labelsOf(attrs.object), {});
      if (forbidden.length > 0) {
        throw forbid(
          attrs,
          `node ${JSON.stringify(node)} is not allowed to set the following labels: ${forbidden.join(', ')}`,
        );
      }
    }
    if (attrs.operation === 'UPDATE') {
      const source = spec(attrs.object).configSource;
      if (source && !deepEqual(source, spec(attrs.oldObject).configSource)) {
        throw forbid(
          attrs,
          `node ${JSON.stringify(node)} is not allowed to update configSource to a new non-nil configSource`,
        );
      }
      if (!sameish(spec(attrs.object).taints, spec(attrs.oldObject).taints)) {
        throw forbid(attrs, `node ${JSON.stringify(node)} is not allowed to modify taints`);
      }
      const forbidden = forbiddenNodeLabels(labelsOf(attrs.object), labelsOf(attrs.oldObject));
      if (forbidden.length > 0) throw forbid(attrs, `is not allowed to modify labels: ${forbidden.join(', ')}`);
    }
  }

  async function admitServiceAccount(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== 'token') return;
    const tokenSpec = spec(attrs.object);
    const ref = isObject(tokenSpec.boundObjectRef) ? tokenSpec.boundObjectRef : undefined;
    if (ref?.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) {
      throw forbid(attrs, 'node requested token not bound to a pod');
    }
    if (!ref.uid) throw forbid(attrs, 'node requested token with a pod binding without a uid');
    const pod = await existingPod(attrs, String(ref.name));
    if (ref.uid !== pod.metadata.uid) {
      throw forbid(
        attrs,
        `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    if (nodeNameOf(pod) !== node)
      throw forbid(attrs, 'node requested token bound to a pod scheduled on a different node');
  }

  function admitOwnNamed(node: string, attrs: AdmissionAttributes, what: string): void {
    const name = attrs.operation === 'CREATE' ? (attrs.object?.metadata.name ?? '') : attrs.name;
    if (name !== node) throw forbid(attrs, `can only access ${what} with the same name as the requesting node`);
  }

  return {
    name: NODE_RESTRICTION,
    handles: (op) => op === 'CREATE' || op === 'UPDATE' || op === 'DELETE',
    admit(attrs) {
      const id = nodeIdentity(attrs.userInfo);
      if (!id.isNode) return;
      return admitNodeRequest(id.nodeName, attrs);
    },
  };

  /** A node's request: only its own objects, and only the changes a kubelet makes. */
  async function admitNodeRequest(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (!node) throw forbid(attrs, `could not determine node from user ${JSON.stringify(attrs.userInfo?.name)}`);
    const { group, resource } = attrs.resource;
    switch (`${resource}.${group}`) {
      case 'pods.':
        if (attrs.subresource === '') return admitPod(node, attrs);
        if (attrs.subresource === 'status') return admitPodStatus(node, attrs);
        if (attrs.subresource === 'eviction') return admitPodEviction(node, attrs);
        throw forbid(
          attrs,
          `unexpected pod subresource ${JSON.stringify(attrs.subresource)}, only 'status' and 'eviction' are allowed`,
        );
      case 'nodes.':
        return admitNode(node, attrs);
      case 'persistentvolumeclaims.':
        if (attrs.subresource === 'status') return admitPVCStatus(node, attrs);
        throw forbid(attrs, 'may only update PVC status');
      case 'serviceaccounts.':
        return admitServiceAccount(node, attrs);
      case 'leases.coordination.k8s.io':
        if (attrs.namespace !== NODE_LEASE_NAMESPACE) {
          throw forbid(attrs, `can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`);
        }
        return admitOwnNamed(node, attrs, 'node lease');
      case 'csinodes.storage.k8s.io':
        return admitOwnNamed(node, attrs, 'CSINode');
    }
  }
}

/** The top-level paths (metadata.labels, spec, …) where two objects differ: our short form of upstream's diff. */
function changedFields(a: Record<string, unknown>, b: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[key];
    const y = b[key];
    if (deepEqual(x, y)) continue;
    if (isObject(x) && isObject(y) && !prefix) out.push(...changedFields(x, y, `${key}.`));
    else out.push(`${prefix}${key}`);
  }
  return out.sort();
}

/**
 * wheelhouse's admission flags with NodeRestriction on, as kubeadm starts kube-apiserver
 * (`--enable-admission-plugins=NodeRestriction`; upstream's own default set leaves it off), unless the flags disable it.
 */
export function withNodeRestriction(admission: AdmissionOptions | undefined): AdmissionOptions {
  const opts = admission ?? {};
  const named = [...(opts.enablePlugins ?? []), ...(opts.disablePlugins ?? [])];
  if (named.includes(NODE_RESTRICTION)) return opts;
  return { ...opts, enablePlugins: [...(opts.enablePlugins ?? []), NODE_RESTRICTION] };
}
