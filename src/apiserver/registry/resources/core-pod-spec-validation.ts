/**
 * PodSpec validation (upstream's ValidatePodSpec) for pods and pod templates: volumes, containers, init containers,
 * policies, DNS, tolerations, names of what the pod refers to. Affinity, topology spread and security contexts are
 * not checked field by field.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notFound,
  notSupported,
  required,
} from '../../../api/field-errors.js';
import { isValidIPForLegacyField } from '../../../api/validation/ip.js';
import { validateLabelName, validateLabels } from '../../../api/validation/labels.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { isDNS1123SubdomainWithUnderscore, isValidLabelValue } from '../../../api/validation/names.js';
import { validateResourceRequirements } from './core-container-resources.js';
import { hostPortConflicts, validateContainerCommon, validateProbesAndLifecycle } from './core-container-validation.js';
import { dns1123Label, dns1123Subdomain, qualifiedName } from './core-field-checks.js';
import { arr, type Rec, rec, recs, str, stringMap } from './core-json.js';
import { inclusiveRangeError } from './core-port-validation.js';
import { validateVolumes } from './core-volume-validation.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const MAX_INT32 = 2147483647;
const INIT_ONLY = 'may not be set for init containers without restartPolicy=Always';

export interface PodSpecOptions {
  /** The spec belongs to a Pod (not a template): host ports must then equal container ports under hostNetwork. */
  isPod: boolean;
}

function enumField(value: unknown, at: FieldPath, supported: readonly string[]): FieldError[] {
  const v = str(value);
  if (v === '') return [required(at)];
  return supported.includes(v) ? [] : [notSupported(at, v, supported)];
}

function nameField(value: unknown, at: FieldPath): FieldError[] {
  const name = str(value);
  if (!name) return [];
  return nameIsDNSSubdomain(name, false).map((msg) => invalid(at, name, msg));
}

function containers(spec: Rec, volumes: Set<string>, grace: number | undefined, at: FieldPath): FieldError[] {
  const list = recs(spec.containers);
  if (list.length === 0) return [required(at)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((c, i) => {
    const idx = at.index(i);
    errs.push(...validateContainerCommon(c, volumes, idx, str(spec.restartPolicy)));
    const name = str(c.name);
    if (names.has(name)) errs.push(duplicate(idx.child('name'), name));
    else names.add(name);
    errs.push(...validateProbesAndLifecycle(c, grace, idx));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      errs.push(forbidden(idx.child('restartPolicy'), 'may not be set for non-init containers'));
    }
  });
  errs.push(...hostPortConflicts(list, at));
  return errs;
}

function initContainers(spec: Rec, volumes: Set<string>, grace: number | undefined, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(recs(spec.containers).map((c) => str(c.name)));
  recs(spec.initContainers).forEach((c, i) => {
    const idx = at.index(i);
    errs.push(...validateContainerCommon(c, volumes, idx, str(spec.restartPolicy)));
    let sidecar = false;
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      if (c.restartPolicy !== 'Always')
        errs.push(notSupported(idx.child('restartPolicy'), c.restartPolicy, ['Always']));
      sidecar = c.restartPolicy === 'Always';
    }
    const name = str(c.name);
    if (names.has(name)) errs.push(duplicate(idx.child('name'), name));
    else if (name) names.add(name);
    errs.push(...hostPortConflicts([c], at));
    if (sidecar) errs.push(...validateProbesAndLifecycle(c, grace, idx));
    else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (c[f] !== undefined && c[f] !== null) errs.push(forbidden(idx.child(f), INIT_ONLY));
      }
    }
  });
  return errs;
}

/** The EphemeralContainerCommon fields an ephemeral container may set (upstream's allowedEphemeralContainerFields). */
const EPHEMERAL_ALLOWED = new Set([
  'name',
  'image',
  'command',
  'args',
  'workingDir',
  'env',
  'envFrom',
  'volumeMounts',
  'volumeDevices',
  'terminationMessagePath',
  'terminationMessagePolicy',
  'imagePullPolicy',
  'securityContext',
  'stdin',
  'stdinOnce',
  'tty',
  'targetContainerName',
]);
const NOT_EPHEMERAL = 'cannot be set for an Ephemeral Container';

/** A zero value in Go (a field left at it is not set): absent, null, false, 0, "", or an empty list or object. */
function goZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.values(v as Rec).every(goZero);
}

/**
 * validateEphemeralContainers: each is a container (validateContainerCommon), named uniquely among all the pod's
 * containers, targeting a regular or init container, and setting only what upstream allows ephemeral containers.
 */
function ephemeralContainers(spec: Rec, volumes: Set<string>, at: FieldPath): FieldError[] {
  const list = recs(spec.ephemeralContainers);
  if (list.length === 0) return [];
  const errs: FieldError[] = [];
  const others = new Set([...recs(spec.containers), ...recs(spec.initContainers)].map((c) => str(c.name)));
  const all = new Set(others);
  list.forEach((c, i) => {
    const idx = at.index(i);
    errs.push(...validateContainerCommon(c, volumes, idx, str(spec.restartPolicy)));
    const name = str(c.name);
    if (all.has(name)) errs.push(duplicate(idx.child('name'), name));
    else all.add(name);
    const target = str(c.targetContainerName);
    if (target && !others.has(target)) errs.push(notFound(idx.child('targetContainerName'), target));
    for (const [field, value] of Object.entries(c)) {
      if (!EPHEMERAL_ALLOWED.has(field) && !goZero(value)) errs.push(forbidden(idx.child(field), NOT_EPHEMERAL));
    }
    recs(c.volumeMounts).forEach((m, j) => {
      for (const field of ['subPath', 'subPathExpr']) {
        if (str(m[field])) errs.push(forbidden(idx.child('volumeMounts').index(j).child(field), NOT_EPHEMERAL));
      }
    });
  });
  return errs;
}

function hostNetworkPorts(spec: Rec, at: FieldPath, options: PodSpecOptions): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  recs(spec.containers).forEach((c, i) => {
    recs(c.ports).forEach((p, j) => {
      const hp = typeof p.hostPort === 'number' ? p.hostPort : 0;
      const cp = typeof p.containerPort === 'number' ? p.containerPort : 0;
      if ((options.isPod || hp !== 0) && hp !== cp) {
        errs.push(
          invalid(
            at.child('containers').index(i).child('ports').index(j).child('hostPort'),
            hp,
            'must match `containerPort` when `hostNetwork` is true',
          ),
        );
      }
    });
  });
  return errs;
}

function dnsConfig(spec: Rec, at: FieldPath): FieldError[] {
  const config = spec.dnsConfig;
  if (spec.dnsPolicy === 'None') {
    if (config === undefined || config === null)
      return [required(at, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (arr(rec(config).nameservers).length === 0) {
      return [required(at.child('nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
    }
  }
  if (config === undefined || config === null) return [];
  const c = rec(config);
  const errs: FieldError[] = [];
  const nameservers = arr(c.nameservers).map(str);
  if (nameservers.length > 3)
    errs.push(invalid(at.child('nameservers'), nameservers, 'must not have more than 3 nameservers'));
  nameservers.forEach(
    (ns, i) => void errs.push(...isValidIPForLegacyField(at.child('nameservers').index(i), ns, false)),
  );
  const searches = arr(c.searches).map(str);
  if (searches.length > 32)
    errs.push(invalid(at.child('searches'), searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) {
    errs.push(
      invalid(
        at.child('searches'),
        searches,
        'must not have more than 2048 characters (including spaces) in the search list',
      ),
    );
  }
  searches.forEach((s, i) => {
    // RelaxedDNSSearchValidation (beta, on in v1.33): underscores allowed, "." taken as it is.
    if (s === '.') return;
    const name = s.replace(/\.$/, '');
    for (const msg of isDNS1123SubdomainWithUnderscore(name))
      errs.push(invalid(at.child('searches').index(i), name, msg));
  });
  recs(c.options).forEach((o, i) => {
    if (!str(o.name)) errs.push(required(at.child('options').index(i), 'must not be empty'));
  });
  return errs;
}

/** Upstream's ValidateTolerations. */
export function validateTolerations(tolerations: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  recs(tolerations).forEach((t, i) => {
    const idx = at.index(i);
    const key = str(t.key);
    const operator = str(t.operator);
    if (key) errs.push(...validateLabelName(key, idx.child('key')));
    if (!key && operator !== 'Exists') {
      errs.push(
        invalid(
          idx.child('operator'),
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute') {
      errs.push(
        invalid(idx.child('effect'), str(t.effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
    }
    if (operator === 'Equal' || operator === '') {
      const msgs = isValidLabelValue(str(t.value));
      if (msgs.length > 0) errs.push(invalid(idx.child('operator'), str(t.value), msgs.join(';')));
    } else if (operator === 'Exists') {
      if (str(t.value))
        errs.push(invalid(idx.child('operator'), str(t.value), "value must be empty when `operator` is 'Exists'"));
    } else errs.push(notSupported(idx.child('operator'), operator, ['Equal', 'Exists']));
    const effect = str(t.effect);
    if (effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      errs.push(notSupported(idx.child('effect'), effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

function gates(spec: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  recs(spec.readinessGates).forEach((g, i) => {
    errs.push(...qualifiedName(str(g.conditionType), at.child('readinessGates').index(i).child('conditionType')));
  });
  const seen = new Set<string>();
  recs(spec.schedulingGates).forEach((g, i) => {
    const idx = at.child('schedulingGates').index(i);
    errs.push(...qualifiedName(str(g.name), idx));
    if (seen.has(str(g.name))) errs.push(duplicate(idx, str(g.name)));
    seen.add(str(g.name));
  });
  return errs;
}

/** Everything ValidatePodSpec checks that this server checks, in upstream's order; `at` is the spec's path. */
export function validatePodSpec(specValue: unknown, at: FieldPath, options: PodSpecOptions): FieldError[] {
  const spec = rec(specValue);
  const errs: FieldError[] = [];
  const tgps = spec.terminationGracePeriodSeconds;
  if (tgps === undefined || tgps === null) errs.push(required(at.child('terminationGracePeriodSeconds')));
  const grace = typeof tgps === 'number' ? tgps : undefined;
  const volumes = validateVolumes(spec.volumes, at.child('volumes'));
  errs.push(...volumes.errs);
  errs.push(...containers(spec, volumes.names, grace, at.child('containers')));
  errs.push(...initContainers(spec, volumes.names, grace, at.child('initContainers')));
  errs.push(...ephemeralContainers(spec, volumes.names, at.child('ephemeralContainers')));
  errs.push(...hostNetworkPorts(spec, at, options));
  errs.push(...enumField(spec.restartPolicy, at.child('restartPolicy'), RESTART_POLICIES));
  errs.push(...enumField(spec.dnsPolicy, at.child('dnsPolicy'), DNS_POLICIES));
  errs.push(...validateLabels(stringMap(spec.nodeSelector), at.child('nodeSelector')));
  errs.push(...dnsConfig(spec, at.child('dnsConfig')));
  errs.push(...gates(spec, at));
  errs.push(...nameField(spec.serviceAccountName, at.child('serviceAccountName')));
  errs.push(...nameField(spec.nodeName, at.child('nodeName')));
  const deadline = spec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && (deadline < 1 || deadline > MAX_INT32)) {
    errs.push(invalid(at.child('activeDeadlineSeconds'), deadline, inclusiveRangeError(1, MAX_INT32)));
  }
  if (str(spec.hostname)) errs.push(...dns1123Label(str(spec.hostname), at.child('hostname')));
  if (str(spec.subdomain)) errs.push(...dns1123Label(str(spec.subdomain), at.child('subdomain')));
  errs.push(...validateTolerations(spec.tolerations, at.child('tolerations')));
  recs(spec.hostAliases).forEach((alias, i) => {
    const idx = at.child('hostAliases').index(i);
    errs.push(...isValidIPForLegacyField(idx.child('ip'), str(alias.ip), false));
    arr(alias.hostnames).forEach(
      (h, j) => void errs.push(...dns1123Subdomain(str(h), idx.child('hostnames').index(j))),
    );
  });
  errs.push(...nameField(spec.priorityClassName, at.child('priorityClassName')));
  if (spec.runtimeClassName !== undefined && spec.runtimeClassName !== null) {
    const rc = str(spec.runtimeClassName);
    errs.push(...nameIsDNSSubdomain(rc, false).map((msg) => invalid(at.child('runtimeClassName'), rc, msg)));
  }
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null) {
    errs.push(...enumField(spec.preemptionPolicy, at.child('preemptionPolicy'), ['PreemptLowerPriority', 'Never']));
  }
  if (spec.overhead !== undefined && spec.overhead !== null) {
    errs.push(...validateResourceRequirements({ limits: spec.overhead }, at.child('overhead')));
  }
  if (spec.os !== undefined && spec.os !== null) {
    const os = str(rec(spec.os).name);
    if (os !== 'linux' && os !== 'windows')
      errs.push(notSupported(at.child('os').child('name'), os, ['linux', 'windows']));
  }
  return errs;
}
