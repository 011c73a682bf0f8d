/**
 * ServiceAccount (upstream's plugin/pkg/admission/serviceaccount), on pod creates:
 * - a pod that names no ServiceAccount gets `default` (and the deprecated `serviceAccount` alias with it); the
 *   account must exist (the serviceaccount controller makes `default` in every namespace; for it the plugin asks
 *   storage again for a while, as upstream does, since a namespace made a moment ago may not have it yet);
 * - unless `automountServiceAccountToken: false` on the pod (or, when the pod does not say, on the account), every
 *   container and init container mounts a projected volume `kube-api-access-<5 random>` at
 *   /var/run/secrets/kubernetes.io/serviceaccount: a bound token (3607 s, path `token`), the `kube-root-ca.crt`
 *   ConfigMap's ca.crt and the namespace from the downward API;
 * - a pod with no imagePullSecrets gets the account's;
 * - an account annotated `kubernetes.io/enforce-mountable-secrets: "true"` limits the secrets its pods (and
 *   ephemeral containers added later) may reference to those it lists;
 * - mirror pods (the kubelet's copies of static pods) may reference neither accounts nor secrets.
 */
import { generateNameFrom, isObject, type KubeObject } from '../../registry/object.js';
import { serviceAccountAlias } from '../../registry/resources/apps-pod-template-defaults.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionForbidden } from '../types.js';
import type { ClusterReader } from './cluster-reader.js';

export const SERVICE_ACCOUNT = 'ServiceAccount';
export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';
export const SERVICE_ACCOUNT_VOLUME_PREFIX = 'kube-api-access-';
export const DEFAULT_API_TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** The bound token's lifetime in the projected volume (upstream's WarnOnlyBoundTokenExpirationSeconds). */
export const TOKEN_EXPIRATION_SECONDS = 3607;

const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Whether v is a list holding an object (recs(v).length > 0, without making the list). */
const hasObject = (v: unknown): boolean => Array.isArray(v) && v.some(isObject);

/** The projected volume source upstream mounts (TokenVolumeSource), defaultMode set explicitly as upstream does. */
export function tokenVolumeSource(): Rec {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
  };
}

export interface ServiceAccountOptions {
  /** How long to wait between live lookups of a missing `default` account (upstream: 100–200 ms, 10 tries). */
  retryDelayMs?: () => number;
  attempts?: number;
}

function specOf(pod: KubeObject): Rec {
  if (!isObject(pod.spec)) pod.spec = {};
  return pod.spec as Rec;
}

function isMirrorPod(pod: KubeObject): boolean {
  return pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}

function shouldAutomount(sa: KubeObject, spec: Rec): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof sa.automountServiceAccountToken === 'boolean') return sa.automountServiceAccountToken;
  return true;
}

function enforcesMountableSecrets(sa: KubeObject): boolean {
  const value = sa.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION];
  // Go's strconv.ParseBool spellings of true.
  return value !== undefined && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value);
}

/** Adds the token volume and its mounts (mountServiceAccountToken). Runs on every pod create, so written plainly. */
function mountToken(spec: Rec): void {
  const given = Array.isArray(spec.volumes) ? (spec.volumes as unknown[]) : [];
  let volumeName = '';
  for (const v of given) {
    if (!isObject(v)) continue;
    const name = str(v.name);
    if (name.startsWith(SERVICE_ACCOUNT_VOLUME_PREFIX)) {
      volumeName = name;
      break;
    }
  }
  const existing = volumeName !== '';
  if (!existing) volumeName = generateNameFrom(SERVICE_ACCOUNT_VOLUME_PREFIX);
  const needsVolume = mountIn(spec.initContainers, volumeName) + mountIn(spec.containers, volumeName) > 0;
  if (!existing && needsVolume) {
    const volumes = given.filter(isObject);
    volumes.push({ name: volumeName, projected: tokenVolumeSource() });
    spec.volumes = volumes;
  }
}

/** Mounts the token volume in each container that has nothing at its path yet; answers how many it mounted in. */
function mountIn(containers: unknown, volumeName: string): number {
  if (!Array.isArray(containers)) return 0;
  let mounted = 0;
  for (const container of containers) {
    if (!isObject(container)) continue;
    const given = Array.isArray(container.volumeMounts) ? (container.volumeMounts as unknown[]) : [];
    let has = false;
    for (const m of given) if (isObject(m) && m.mountPath === DEFAULT_API_TOKEN_MOUNT_PATH) has = true;
    if (has) continue;
    const mounts = given.filter(isObject);
    mounts.push({ name: volumeName, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH });
    container.volumeMounts = mounts;
    mounted++;
  }
  return mounted;
}

/** Secret names a container refers to through env and envFrom. */
function containerSecretRefs(c: Rec): Array<{ via: 'envVar' | 'envFrom'; env?: string; secret: string }> {
  const out: Array<{ via: 'envVar' | 'envFrom'; env?: string; secret: string }> = [];
  for (const env of recs(c.env)) {
    const ref = rec(rec(env.valueFrom).secretKeyRef);
    if (isObject(rec(env.valueFrom).secretKeyRef))
      out.push({ via: 'envVar', env: str(env.name), secret: str(ref.name) });
  }
  for (const from of recs(c.envFrom)) {
    if (isObject(from.secretRef)) out.push({ via: 'envFrom', secret: str(from.secretRef.name) });
  }
  return out;
}

/** Every Secret a volume refers to: secret and projected volumes and the secret references of the other sources. */
function volumeSecretNames(volume: Rec): string[] {
  const out: string[] = [];
  if (isObject(volume.secret)) out.push(str(volume.secret.secretName));
  for (const source of recs(rec(volume.projected).sources)) {
    if (isObject(source.secret)) out.push(str(source.secret.name));
  }
  for (const [key, value] of Object.entries(volume)) {
    if (!isObject(value) || key === 'secret' || key === 'projected') continue;
    for (const refField of ['secretRef', 'nodePublishSecretRef', 'controllerPublishSecretRef']) {
      if (isObject(value[refField]) && str(value[refField].name)) out.push(str(value[refField].name));
    }
    if (key === 'azureFile' && str(value.secretName)) out.push(str(value.secretName));
  }
  return out;
}

/** Whether a pod refers to any Secret (podutil.VisitPodSecretNames over every container). */
function referencesSecrets(spec: Rec): boolean {
  if (recs(spec.imagePullSecrets).length > 0) return true;
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    if (recs(spec[field]).some((c) => containerSecretRefs(c).length > 0)) return true;
  }
  return recs(spec.volumes).some((v) => volumeSecretNames(v).length > 0);
}

function limitSecretReferences(sa: KubeObject, spec: Rec): string | undefined {
  const saName = sa.metadata.name ?? '';
  const mountable = new Set(recs(sa.secrets).map((s) => str(s.name)));
  for (const volume of recs(spec.volumes)) {
    if (!isObject(volume.secret)) continue;
    const name = str(volume.secret.secretName);
    if (!mountable.has(name)) {
      return `volume with secret.secretName="${name}" is not allowed because service account ${saName} does not reference that secret`;
    }
  }
  for (const [field, label] of [
    ['initContainers', 'init container'],
    ['containers', 'container'],
  ] as const) {
    const refused = containerRefusal(recs(spec[field]), label, mountable, saName);
    if (refused) return refused;
  }
  const pullSecrets = new Set(recs(sa.imagePullSecrets).map((s) => str(s.name)));
  const refs = recs(spec.imagePullSecrets);
  for (let i = 0; i < refs.length; i++) {
    const name = str(refs[i]?.name);
    if (!pullSecrets.has(name)) {
      return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${saName} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

function containerRefusal(
  containers: Rec[],
  label: string,
  mountable: Set<string>,
  saName: string,
): string | undefined {
  for (const c of containers) {
    for (const ref of containerSecretRefs(c)) {
      if (mountable.has(ref.secret)) continue;
      const what = ref.via === 'envVar' ? `envVar ${ref.env}` : 'envFrom';
      return `${label} ${str(c.name)} with ${what} referencing secret.secretName="${ref.secret}" is not allowed because service account ${saName} does not reference that secret`;
    }
  }
  return undefined;
}

export function serviceAccount(reader: ClusterReader, opts: ServiceAccountOptions = {}): AdmissionPlugin {
  const attempts = opts.attempts ?? 10;
  const delay = opts.retryDelayMs ?? (() => 100 + Math.floor(Math.random() * 100));

  /** The account from the cache, else from storage (several times for `default`, which a controller makes). */
  async function lookUp(attrs: AdmissionAttributes, name: string): Promise<KubeObject> {
    const cached = await reader.shared(SERVICE_ACCOUNTS, attrs.namespace, name);
    if (cached) return cached;
    const tries = name === DEFAULT_SERVICE_ACCOUNT_NAME ? attempts : 1;
    for (let i = 0; i < tries; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, delay()));
      const live = await reader.live(SERVICE_ACCOUNTS, attrs.namespace, name);
      if (live) return live;
    }
    throw admissionForbidden(
      attrs,
      `error looking up service account ${attrs.namespace}/${name}: serviceaccount ${JSON.stringify(name)} not found`,
    );
  }

  function ignored(attrs: AdmissionAttributes): boolean {
    if (!attrs.object || attrs.resource.group !== '' || attrs.resource.resource !== 'pods') return true;
    return attrs.subresource !== '' && attrs.subresource !== 'ephemeralcontainers';
  }

  /** The account from the cache at once when it is there (nearly always), else as lookUp finds it. */
  function withAccount(attrs: AdmissionAttributes, name: string, then: (sa: KubeObject) => void): void | Promise<void> {
    const cached = reader.sharedNow(SERVICE_ACCOUNTS, attrs.namespace, name);
    if (cached) return then(cached);
    return lookUp(attrs, name).then(then);
  }

  function validate(attrs: AdmissionAttributes): void | Promise<void> {
    if (ignored(attrs)) return;
    if (attrs.operation === 'UPDATE' && attrs.subresource === 'ephemeralcontainers') return validateEphemeral(attrs);
    if (attrs.operation !== 'CREATE') return;
    const pod = attrs.object as KubeObject;
    const spec = specOf(pod);
    if (isMirrorPod(pod)) {
      if (str(spec.serviceAccountName) !== '') {
        throw admissionForbidden(attrs, 'a mirror pod may not reference service accounts');
      }
      if (referencesSecrets(spec)) throw admissionForbidden(attrs, 'a mirror pod may not reference secrets');
      for (const v of recs(spec.volumes)) {
        if (recs(rec(v.projected).sources).some((s) => isObject(s.serviceAccountToken))) {
          throw admissionForbidden(attrs, 'a mirror pod may not use ServiceAccountToken volume projections');
        }
      }
      return;
    }
    const saName = str(spec.serviceAccountName);
    if (saName === '') {
      throw admissionForbidden(
        attrs,
        `no service account specified for pod ${attrs.namespace}/${pod.metadata.name ?? ''}`,
      );
    }
    return withAccount(attrs, saName, (sa) => {
      if (!enforcesMountableSecrets(sa)) return;
      const refused = limitSecretReferences(sa, spec);
      if (refused) throw admissionForbidden(attrs, refused);
    });
  }

  async function validateEphemeral(attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object as KubeObject;
    const spec = specOf(pod);
    const podName = pod.metadata.name ?? '';
    const saName = str(spec.serviceAccountName);
    if (saName === '') {
      throw admissionForbidden(attrs, `no service account specified for pod ${attrs.namespace}/${podName}`);
    }
    const sa = await lookUp(attrs, saName);
    if (!enforcesMountableSecrets(sa)) return;
    const mountable = new Set(recs(sa.secrets).map((s) => str(s.name)));
    const refused = containerRefusal(recs(spec.ephemeralContainers), 'ephemeral container', mountable, saName);
    if (refused) throw admissionForbidden(attrs, refused);
  }

  return {
    name: SERVICE_ACCOUNT,
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    resources: ['/pods'],
    admit(attrs) {
      if (ignored(attrs) || attrs.operation !== 'CREATE' || attrs.subresource !== '') return;
      const pod = attrs.object as KubeObject;
      // A mirror pod is never changed, but it is checked here already, as upstream's Admit does: its refusal comes
      // before those of the plugins later in the mutating phase (NodeRestriction).
      if (isMirrorPod(pod)) return validate(attrs);
      const spec = specOf(pod);
      if (str(spec.serviceAccountName) === '') {
        spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT_NAME;
        // The deprecated alias follows the name, as upstream's conversion writes it out after admission.
        serviceAccountAlias(spec);
      }
      return withAccount(attrs, str(spec.serviceAccountName), (sa) => {
        if (shouldAutomount(sa, spec)) mountToken(spec);
        if (!hasObject(spec.imagePullSecrets) && hasObject(sa.imagePullSecrets)) {
          spec.imagePullSecrets = recs(sa.imagePullSecrets).map((s) => ({ name: str(s.name) }));
        }
      });
    },
    validate,
  };
}
