/**
 * The defaults upstream applies to every PodSpec it decodes, wherever the spec sits (Pods, and the pod templates
 * of Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, ReplicationControllers, PodTemplates):
 * SetDefaults_PodSpec plus the defaults of the containers, ports, probes, handlers and volumes inside it.
 * Pod-only defaults (requests from limits, enableServiceLinks, host-network ports) are not here.
 */
import { isObject } from '../object.js';
import { defaultPodSpecQuantities } from './core-resource-lists.js';
import {
  child,
  defaultNumber,
  defaultString,
  defaultValue,
  type Rec,
  rec,
  records,
  str,
  unset,
} from './groups-fields.js';

/** Docker-style image references, as upstream's reference parser reads them. */
const DOMAIN_PART = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_PART}(?:\\.${DOMAIN_PART})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?`;
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REFERENCE = new RegExp(
  `^(?:${DOMAIN}/)?${COMPONENT}(?:/${COMPONENT})*(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`,
);

/** The tag an image is pulled by: its own, `latest` when it names neither tag nor digest, '' when unparsable. */
export function imageTag(image: string): string {
  const m = REFERENCE.exec(image);
  if (!m) return '';
  const [, tag, digest] = m;
  if (tag) return tag;
  return digest ? '' : 'latest';
}

/** Always for `:latest` (or no tag), IfNotPresent otherwise. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  return imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultFieldRef(ref: unknown): void {
  if (!unset(ref)) defaultString(rec(ref), 'apiVersion', 'v1');
}

function defaultHTTPGet(action: unknown): void {
  if (unset(action)) return;
  const http = rec(action);
  defaultString(http, 'path', '/');
  defaultString(http, 'scheme', 'HTTP');
}

function defaultProbe(probe: unknown): void {
  if (unset(probe)) return;
  const p = rec(probe);
  defaultNumber(p, 'timeoutSeconds', 1);
  defaultNumber(p, 'periodSeconds', 10);
  defaultNumber(p, 'successThreshold', 1);
  defaultNumber(p, 'failureThreshold', 3);
  defaultHTTPGet(p.httpGet);
  if (!unset(p.grpc)) defaultValue(rec(p.grpc), 'service', '');
}

/** SetDefaults_Container and the declarative defaults of what a container holds. */
export function defaultContainer(c: Rec): void {
  // A value struct in Go: encoded as {} when empty, as upstream always shows it.
  defaultValue(c, 'resources', {});
  if (unset(c.imagePullPolicy) || c.imagePullPolicy === '') c.imagePullPolicy = defaultPullPolicy(str(c.image));
  defaultString(c, 'terminationMessagePath', '/dev/termination-log');
  defaultString(c, 'terminationMessagePolicy', 'File');
  for (const port of records(c.ports)) defaultString(port, 'protocol', 'TCP');
  for (const env of records(c.env)) if (!unset(env.valueFrom)) defaultFieldRef(rec(env.valueFrom).fieldRef);
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (!unset(c.lifecycle)) {
    const lifecycle = rec(c.lifecycle);
    for (const hook of ['postStart', 'preStop']) {
      if (!unset(lifecycle[hook])) defaultHTTPGet(rec(lifecycle[hook]).httpGet);
    }
  }
}

/** Defaults of the volume sources a volume may name (mode 0644 is 420). */
function defaultVolume(v: Rec): void {
  const sources = Object.keys(v).filter((k) => k !== 'name' && !unset(v[k]));
  if (sources.length === 0) v.emptyDir = {};
  if (!unset(v.hostPath)) defaultValue(rec(v.hostPath), 'type', '');
  for (const key of ['secret', 'configMap']) if (!unset(v[key])) defaultValue(rec(v[key]), 'defaultMode', 420);
  if (!unset(v.downwardAPI)) {
    const d = rec(v.downwardAPI);
    defaultValue(d, 'defaultMode', 420);
    for (const item of records(d.items)) defaultFieldRef(item.fieldRef);
  }
  if (!unset(v.projected)) {
    const p = rec(v.projected);
    defaultValue(p, 'defaultMode', 420);
    for (const source of records(p.sources)) {
      if (!unset(source.downwardAPI))
        for (const item of records(rec(source.downwardAPI).items)) defaultFieldRef(item.fieldRef);
      if (!unset(source.serviceAccountToken)) defaultValue(rec(source.serviceAccountToken), 'expirationSeconds', 3600);
    }
  }
  if (!unset(v.iscsi)) defaultString(rec(v.iscsi), 'iscsiInterface', 'default');
  if (!unset(v.rbd)) {
    const rbd = rec(v.rbd);
    defaultString(rbd, 'pool', 'rbd');
    defaultString(rbd, 'user', 'admin');
    defaultString(rbd, 'keyring', '/etc/ceph/keyring');
  }
  if (!unset(v.azureDisk)) {
    const disk = rec(v.azureDisk);
    defaultValue(disk, 'cachingMode', 'ReadWrite');
    defaultValue(disk, 'fsType', 'ext4');
    defaultValue(disk, 'readOnly', false);
    defaultValue(disk, 'kind', 'Shared');
  }
  if (!unset(v.scaleIO)) {
    const scaleIO = rec(v.scaleIO);
    defaultString(scaleIO, 'storageMode', 'ThinProvisioned');
    defaultString(scaleIO, 'fsType', 'xfs');
  }
  const claim = rec(v.ephemeral).volumeClaimTemplate;
  if (!unset(claim)) defaultValue(child(rec(claim), 'spec'), 'volumeMode', 'Filesystem');
  if (!unset(v.image)) {
    const image = rec(v.image);
    if (unset(image.pullPolicy) || image.pullPolicy === '') image.pullPolicy = defaultPullPolicy(str(image.reference));
  }
}

/**
 * Sets obj[first] and obj[second] to value, next to each other in that order, where the earlier of the two stood
 * (at the end when neither did); the keys that followed keep their order after them.
 */
function setPair(obj: Rec, first: string, second: string, value: string): void {
  const keys = Object.keys(obj);
  const at = keys.findIndex((k) => k === first || k === second);
  if (at >= 0 && keys[at] === first && keys[at + 1] === second) {
    obj[first] = value;
    obj[second] = value;
    return;
  }
  const rest: Array<[string, unknown]> = [];
  for (const k of at < 0 ? [] : keys.slice(at)) {
    if (k !== first && k !== second) rest.push([k, obj[k]]);
    delete obj[k];
  }
  obj[first] = value;
  obj[second] = value;
  for (const [k, v] of rest) obj[k] = v;
}

/**
 * The deprecated `serviceAccount` as upstream's v1 conversion keeps it: an alias of `serviceAccountName`. Read as the
 * name when the name is empty (the name wins when both are set); then written back as a copy of the name, right
 * after it (the field order of the v1 PodSpec), and left out with the name when the name is empty. A name (or an
 * alias read as the name) that is not a string is left as it is.
 */
export function serviceAccountAlias(spec: Rec): void {
  let name = spec.serviceAccountName;
  if (unset(name) || name === '') name = unset(spec.serviceAccount) ? '' : spec.serviceAccount;
  if (typeof name !== 'string') return;
  if (name === '') {
    delete spec.serviceAccountName;
    delete spec.serviceAccount;
    return;
  }
  setPair(spec, 'serviceAccountName', 'serviceAccount', name);
}

/**
 * Fills upstream's PodSpec defaults in place: the serviceAccount alias, restartPolicy Always, dnsPolicy ClusterFirst,
 * schedulerName default-scheduler, terminationGracePeriodSeconds 30, securityContext {}, and the defaults of every
 * container (init, regular, ephemeral) and volume.
 */
export function defaultPodSpec(spec: Rec): void {
  serviceAccountAlias(spec);
  defaultString(spec, 'dnsPolicy', 'ClusterFirst');
  defaultString(spec, 'restartPolicy', 'Always');
  defaultValue(spec, 'securityContext', {});
  defaultValue(spec, 'terminationGracePeriodSeconds', 30);
  defaultString(spec, 'schedulerName', 'default-scheduler');
  for (const volume of records(spec.volumes)) defaultVolume(volume);
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of records(spec[key])) defaultContainer(c);
  }
}

/** The init-container annotations of Kubernetes before 1.8, which upstream's v1 conversion drops both ways. */
const INIT_CONTAINER_ANNOTATIONS = [
  'pod.beta.kubernetes.io/init-containers',
  'pod.alpha.kubernetes.io/init-containers',
  'pod.beta.kubernetes.io/init-container-statuses',
  'pod.alpha.kubernetes.io/init-container-statuses',
];

/** Drops those annotations from the metadata of a pod or pod template (and the annotations with them if emptied). */
export function dropInitContainerAnnotations(meta: unknown): void {
  if (!isObject(meta) || !isObject(meta.annotations)) return;
  const annotations = meta.annotations;
  if (!INIT_CONTAINER_ANNOTATIONS.some((key) => Object.hasOwn(annotations, key))) return;
  for (const key of INIT_CONTAINER_ANNOTATIONS) delete annotations[key];
  if (Object.keys(annotations).length === 0) delete meta.annotations;
}

/**
 * The metadata of an object embedded in another (a pod template, a job template, a claim template) as Go encodes
 * its ObjectMeta value: always there, with `creationTimestamp: null` (a zero metav1.Time) unless it is set.
 */
export function embeddedObjectMeta(owner: Rec): void {
  const meta = child(owner, 'metadata');
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
}

/**
 * Defaults the pod template at owner[key] (creating template and spec when missing, as Go's value structs are),
 * including the canonical form of its resource quantities; `kind` names the object in a decoding error.
 */
export function defaultPodTemplate(owner: Rec, kind: string, key = 'template'): void {
  const template = child(owner, key);
  embeddedObjectMeta(template);
  dropInitContainerAnnotations(template.metadata);
  const spec = child(template, 'spec');
  defaultPodSpec(spec);
  defaultPodSpecQuantities(spec, kind);
}
