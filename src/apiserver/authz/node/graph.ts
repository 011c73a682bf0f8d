/**
 * The Node authorizer's graph (upstream's plugin/pkg/auth/authorizer/node graph and graph populator): which objects
 * each node may read because a pod bound to it refers to them. Kept from the watch caches of pods, persistent volumes
 * and volume attachments, as upstream's populator keeps it from informers:
 *
 *   node <- pod <- secret | configmap | serviceaccount | pvc <- pv <- secret
 *   node <- volumeattachment
 *
 * Only pods with spec.nodeName set take part. Each edge is counted, so that two pods on one node using the same
 * secret keep it readable until both are gone.
 */
import { CacheFollower, type CacheSource } from '../../cacher/follower.js';
import { isObject, type KubeObject } from '../../registry/object.js';

export type VertexType = 'configmap' | 'pod' | 'pvc' | 'pv' | 'secret' | 'serviceAccount' | 'volumeattachment';

/** What one bound pod refers to. */
interface PodRefs {
  node: string;
  namespace: string;
  secrets: string[];
  configMaps: string[];
  pvcs: string[];
  serviceAccount: string;
}

/** Counts of nodes (or claims) an object is reachable from. */
class Counter {
  private readonly byKey = new Map<string, Map<string, number>>();

  add(key: string, target: string): void {
    let targets = this.byKey.get(key);
    if (!targets) {
      targets = new Map();
      this.byKey.set(key, targets);
    }
    targets.set(target, (targets.get(target) ?? 0) + 1);
  }

  remove(key: string, target: string): void {
    const targets = this.byKey.get(key);
    const n = targets?.get(target);
    if (!targets || n === undefined) return;
    if (n > 1) targets.set(target, n - 1);
    else targets.delete(target);
    if (targets.size === 0) this.byKey.delete(key);
  }

  has(key: string, target: string): boolean {
    return this.byKey.get(key)?.has(target) ?? false;
  }

  targets(key: string): Iterable<string> {
    return this.byKey.get(key)?.keys() ?? [];
  }

  clear(): void {
    this.byKey.clear();
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);
const field = (v: unknown, key: string): Record<string, unknown> | undefined => {
  if (!isObject(v)) return undefined;
  const inner = v[key];
  return isObject(inner) ? inner : undefined;
};

/** The containers of every kind (init, regular, ephemeral), as upstream's podutil.AllContainers visits them. */
function allContainers(spec: Record<string, unknown>): Record<string, unknown>[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}

/** Volume sources that name a secret in the pod's namespace under `secretRef.name`. */
const SECRET_REF_VOLUMES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'];

/** The secrets a pod refers to (upstream's VisitPodSecretNames). */
export function podSecretNames(pod: KubeObject): string[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const names = new Set<string>();
  const add = (v: unknown) => {
    const s = str(v);
    if (s) names.add(s);
  };
  for (const ref of list(spec.imagePullSecrets)) add(ref.name);
  for (const c of allContainers(spec)) {
    for (const from of list(c.envFrom)) add(field(from, 'secretRef')?.name);
    for (const env of list(c.env)) add(field(field(env, 'valueFrom'), 'secretKeyRef')?.name);
  }
  for (const vol of list(spec.volumes)) {
    add(field(vol, 'secret')?.secretName);
    add(field(vol, 'azureFile')?.secretName);
    add(field(field(vol, 'csi'), 'nodePublishSecretRef')?.name);
    for (const kind of SECRET_REF_VOLUMES) add(field(field(vol, kind), 'secretRef')?.name);
    for (const src of list(field(vol, 'projected')?.sources)) add(field(src, 'secret')?.name);
  }
  return [...names];
}

/** The configmaps a pod refers to (upstream's VisitPodConfigmapNames). */
export function podConfigMapNames(pod: KubeObject): string[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const names = new Set<string>();
  const add = (v: unknown) => {
    const s = str(v);
    if (s) names.add(s);
  };
  for (const c of allContainers(spec)) {
    for (const from of list(c.envFrom)) add(field(from, 'configMapRef')?.name);
    for (const env of list(c.env)) add(field(field(env, 'valueFrom'), 'configMapKeyRef')?.name);
  }
  for (const vol of list(spec.volumes)) {
    add(field(vol, 'configMap')?.name);
    for (const src of list(field(vol, 'projected')?.sources)) add(field(src, 'configMap')?.name);
  }
  return [...names];
}

/** The claims a pod's volumes use: named ones, and the `<pod>-<volume>` claims of ephemeral volumes. */
export function podClaimNames(pod: KubeObject): string[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const names = new Set<string>();
  for (const vol of list(spec.volumes)) {
    const claim = str(field(vol, 'persistentVolumeClaim')?.claimName);
    if (claim) names.add(claim);
    if (field(vol, 'ephemeral')) names.add(`${pod.metadata.name ?? ''}-${str(vol.name)}`);
  }
  return [...names];
}

/** The secrets a persistent volume's source names, as namespace/name keys (upstream's VisitPVSecretNames). */
export function pvSecretKeys(pv: KubeObject, claimNamespace: string): string[] {
  const spec = isObject(pv.spec) ? pv.spec : {};
  const keys = new Set<string>();
  const add = (ref: Record<string, unknown> | undefined, defaultNamespace: string) => {
    const name = str(ref?.name);
    if (name) keys.add(`${str(ref?.namespace) || defaultNamespace}/${name}`);
  };
  const azure = field(spec, 'azureFile');
  if (azure && str(azure.secretName)) {
    keys.add(`${str(azure.secretNamespace) || claimNamespace}/${str(azure.secretName)}`);
  }
  for (const kind of SECRET_REF_VOLUMES) add(field(field(spec, kind), 'secretRef'), claimNamespace);
  const csi = field(spec, 'csi');
  for (const key of [
    'controllerPublishSecretRef',
    'nodeStageSecretRef',
    'nodePublishSecretRef',
    'controllerExpandSecretRef',
    'nodeExpandSecretRef',
  ]) {
    add(field(csi, key), claimNamespace);
  }
  return [...keys];
}

const NODE_NAME = Buffer.from('"nodeName":"');
const EPHEMERAL = Buffer.from('"ephemeralContainers":');

/**
 * Whether a stored pod may be bound: its JSON holds a spec.nodeName string. Stored JSON has no spaces, and a
 * nodeName inside another string would have escaped quotes, so a bound pod always passes; an unbound one may too
 * (an empty nodeName), and setPod then leaves it out.
 */
export function boundPod(value: Buffer): boolean {
  return value.includes(NODE_NAME);
}

export interface NodeGraphSources {
  pods: CacheSource;
  persistentVolumes?: CacheSource;
  volumeAttachments?: CacheSource;
}

export class NodeGraph {
  /** Bound pods by namespace/name. */
  private readonly pods = new Map<string, PodRefs>();
  /** `<type>/<namespace>/<name>` → the nodes whose pods refer to it (secrets, configmaps, pvcs, service accounts). */
  private readonly toNode = new Counter();
  /** PVs by name: the claim they are bound to and the secrets they name. */
  private readonly pvs = new Map<string, { claim: string; secrets: string[] }>();
  /** `secret/<ns>/<name>` → the PVs naming it. */
  private readonly secretToPV = new Counter();
  /** VolumeAttachments by name → node. */
  private readonly attachments = new Map<string, string>();
  private readonly follower = new CacheFollower();

  /** Adds or replaces a pod; a pod not (or no longer) bound to a node is dropped. */
  setPod(pod: KubeObject): void {
    const key = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
    this.deletePod(key);
    const spec = isObject(pod.spec) ? pod.spec : {};
    const node = str(spec.nodeName);
    if (!node) return;
    const refs: PodRefs = {
      node,
      namespace: pod.metadata.namespace ?? '',
      secrets: podSecretNames(pod),
      configMaps: podConfigMapNames(pod),
      pvcs: podClaimNames(pod),
      serviceAccount: str(spec.serviceAccountName),
    };
    this.pods.set(key, refs);
    for (const k of edgeKeys(refs)) this.toNode.add(k, node);
  }

  deletePod(key: string): void {
    const refs = this.pods.get(key);
    if (!refs) return;
    this.pods.delete(key);
    for (const k of edgeKeys(refs)) this.toNode.remove(k, refs.node);
  }

  setPV(pv: KubeObject): void {
    const name = pv.metadata.name ?? '';
    this.deletePV(name);
    const spec = isObject(pv.spec) ? pv.spec : {};
    const ref = field(spec, 'claimRef');
    const claimNamespace = str(ref?.namespace);
    const claim = ref && str(ref.name) ? `${claimNamespace}/${str(ref.name)}` : '';
    const secrets = pvSecretKeys(pv, claimNamespace);
    this.pvs.set(name, { claim, secrets });
    for (const s of secrets) this.secretToPV.add(`secret/${s}`, name);
  }

  deletePV(name: string): void {
    const pv = this.pvs.get(name);
    if (!pv) return;
    this.pvs.delete(name);
    for (const s of pv.secrets) this.secretToPV.remove(`secret/${s}`, name);
  }

  setVolumeAttachment(va: KubeObject): void {
    const node = str(isObject(va.spec) ? va.spec.nodeName : undefined);
    if (node) this.attachments.set(va.metadata.name ?? '', node);
    else this.attachments.delete(va.metadata.name ?? '');
  }

  deleteVolumeAttachment(name: string): void {
    this.attachments.delete(name);
  }

  /** Whether a path leads from the object to the node. */
  hasPath(node: string, type: VertexType, namespace: string, name: string): boolean {
    switch (type) {
      case 'pod':
        return this.pods.get(`${namespace}/${name}`)?.node === node;
      case 'volumeattachment':
        return this.attachments.get(name) === node;
      case 'pv':
        return this.pvReaches(name, node);
      case 'secret': {
        const key = `secret/${namespace}/${name}`;
        if (this.toNode.has(key, node)) return true;
        for (const pv of this.secretToPV.targets(key)) if (this.pvReaches(pv, node)) return true;
        return false;
      }
      default:
        return this.toNode.has(`${type}/${namespace}/${name}`, node);
    }
  }

  private pvReaches(pvName: string, node: string): boolean {
    const claim = this.pvs.get(pvName)?.claim;
    return claim ? this.toNode.has(`pvc/${claim}`, node) : false;
  }

  /** Loads the current objects from the watch caches and follows changes; resolves once everything is in. */
  async start(sources: NodeGraphSources): Promise<void> {
    const follows = [
      this.follower.follow(
        sources.pods,
        (type, obj) =>
          type === 'DELETED'
            ? this.deletePod(`${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`)
            : this.setPod(obj),
        () => {
          this.pods.clear();
          this.toNode.clear();
        },
        {
          // Pods not bound to a node take no part, and are not even decoded (see boundPod).
          matchesStored: boundPod,
          // An update of a pod the graph holds changes none of its edges, as upstream's graph populator reasons: a
          // bound pod's node, uid, volumes and containers cannot change; only ephemeral containers can be added
          // (with references of their own), so a pod that has any is applied again. Such updates (every status
          // report) are not even decoded.
          skipStored: (type, key, value) =>
            type === 'MODIFIED' && this.pods.has(key.slice(sources.pods.prefix.length)) && !value.includes(EPHEMERAL),
        },
      ),
    ];
    const pvs = sources.persistentVolumes;
    if (pvs) {
      follows.push(
        this.follower.follow(
          pvs,
          (type, obj) => (type === 'DELETED' ? this.deletePV(obj.metadata.name ?? '') : this.setPV(obj)),
          () => {
            this.pvs.clear();
            this.secretToPV.clear();
          },
        ),
      );
    }
    const vas = sources.volumeAttachments;
    if (vas) {
      follows.push(
        this.follower.follow(
          vas,
          (type, obj) =>
            type === 'DELETED' ? this.deleteVolumeAttachment(obj.metadata.name ?? '') : this.setVolumeAttachment(obj),
          () => this.attachments.clear(),
        ),
      );
    }
    await Promise.all(follows);
  }

  stop(): void {
    this.follower.stop();
  }
}

/** The graph keys a bound pod's references add edges for. */
function edgeKeys(refs: PodRefs): string[] {
  const ns = refs.namespace;
  return [
    ...refs.secrets.map((n) => `secret/${ns}/${n}`),
    ...refs.configMaps.map((n) => `configmap/${ns}/${n}`),
    ...refs.pvcs.map((n) => `pvc/${ns}/${n}`),
    ...(refs.serviceAccount ? [`serviceAccount/${ns}/${refs.serviceAccount}`] : []),
  ];
}
