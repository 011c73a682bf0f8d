/**
 * Validation of one container (upstream's validateContainerCommon) and of what only regular and sidecar containers
 * may carry (probes, lifecycle handlers), with upstream's messages.
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
import { validateEnv, validateEnvFrom } from './core-container-env.js';
import { validateResourceRequirements } from './core-container-resources.js';
import { dns1123Label, nonNegative } from './core-field-checks.js';
import { arr, type Rec, rec, recs, str } from './core-json.js';
import { isValidPortName, isValidPortNum, validatePortNumOrName } from './core-port-validation.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];

function enumField(value: unknown, at: FieldPath, supported: readonly string[]): FieldError[] {
  const v = str(value);
  if (v === '') return [required(at)];
  return supported.includes(v) ? [] : [notSupported(at, v, supported)];
}

export function validateContainerPorts(ports: unknown, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  recs(ports).forEach((port, i) => {
    const idx = at.index(i);
    const name = str(port.name);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) for (const msg of msgs) errs.push(invalid(idx.child('name'), name, msg));
      else if (names.has(name)) errs.push(duplicate(idx.child('name'), name));
      else names.add(name);
    }
    const containerPort = typeof port.containerPort === 'number' ? port.containerPort : 0;
    if (containerPort === 0) errs.push(required(idx.child('containerPort')));
    else
      for (const msg of isValidPortNum(containerPort))
        errs.push(invalid(idx.child('containerPort'), containerPort, msg));
    const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0;
    if (hostPort !== 0)
      for (const msg of isValidPortNum(hostPort)) errs.push(invalid(idx.child('hostPort'), hostPort, msg));
    errs.push(...enumField(port.protocol, idx.child('protocol'), PROTOCOLS));
  });
  return errs;
}

/** Upstream's validateLocalDescendingPath (subPath and the like). */
export function localDescendingPath(p: string, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (p.startsWith('/')) errs.push(invalid(at, p, 'must be a relative path'));
  if (p.split('/').includes('..')) errs.push(invalid(at, p, "must not contain '..'"));
  return errs;
}

function volumeMounts(mounts: unknown, volumes: ReadonlySet<string>, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mountPaths = new Set<string>();
  recs(mounts).forEach((m, i) => {
    const idx = at.index(i);
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (!name) errs.push(required(idx.child('name')));
    if (!volumes.has(name)) errs.push(notFound(idx.child('name'), name));
    if (!mountPath) errs.push(required(idx.child('mountPath')));
    if (mountPaths.has(mountPath)) errs.push(invalid(idx.child('mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    const subPath = str(m.subPath);
    if (subPath) errs.push(...localDescendingPath(subPath, at.child('subPath')));
    const subPathExpr = str(m.subPathExpr);
    if (subPathExpr) {
      if (subPath) {
        errs.push(invalid(idx.child('subPathExpr'), subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      }
      errs.push(...localDescendingPath(subPathExpr, at.child('subPathExpr')));
    }
    const propagation = m.mountPropagation;
    if (propagation !== undefined && propagation !== null) {
      const supported = ['Bidirectional', 'HostToContainer', 'None'];
      if (!supported.includes(str(propagation))) {
        errs.push(notSupported(at.child('mountPropagation'), propagation, supported));
      }
    }
  });
  return errs;
}

/** One handler of a probe or lifecycle hook: exactly one of exec, httpGet, tcpSocket, grpc (probes), sleep (hooks). */
function handler(h: Rec, kinds: readonly string[], grace: number | undefined, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    if (h[kind] === undefined || h[kind] === null) continue;
    if (count > 0) {
      errs.push(forbidden(at.child(kind), 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    const action = rec(h[kind]);
    const kindPath = at.child(kind);
    if (kind === 'exec' && arr(action.command).length === 0) errs.push(required(kindPath.child('command')));
    if (kind === 'httpGet') {
      if (!str(action.path)) errs.push(required(kindPath.child('path')));
      errs.push(...validatePortNumOrName(action.port, kindPath.child('port')));
      const scheme = str(action.scheme);
      if (scheme !== 'HTTP' && scheme !== 'HTTPS')
        errs.push(notSupported(kindPath.child('scheme'), scheme, ['HTTP', 'HTTPS']));
    }
    if (kind === 'tcpSocket' || kind === 'grpc')
      errs.push(...validatePortNumOrName(action.port ?? 0, kindPath.child('port')));
    if (kind === 'sleep' && grace !== undefined) {
      const seconds = typeof action.seconds === 'number' ? action.seconds : 0;
      if (seconds < 0 || seconds > grace) {
        errs.push(
          invalid(kindPath, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${grace})`),
        );
      }
    }
  }
  if (count === 0) errs.push(required(at, 'must specify a handler type'));
  return errs;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

function probe(p: unknown, kind: 'liveness' | 'readiness' | 'startup', grace: number | undefined, at: FieldPath) {
  if (p === undefined || p === null) return [];
  const probeRec = rec(p);
  const errs = handler(probeRec, PROBE_HANDLERS, grace, at);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    errs.push(...nonNegative(probeRec[f], at.child(f)));
  }
  const tgps = probeRec.terminationGracePeriodSeconds;
  if (typeof tgps === 'number' && tgps <= 0) {
    errs.push(invalid(at.child('terminationGracePeriodSeconds'), tgps, 'must be greater than 0'));
  }
  if (kind !== 'readiness' && probeRec.successThreshold !== 1) {
    errs.push(invalid(at.child('successThreshold'), probeRec.successThreshold ?? 0, 'must be 1'));
  }
  if (kind === 'readiness' && tgps !== undefined && tgps !== null) {
    errs.push(invalid(at.child('terminationGracePeriodSeconds'), tgps, 'must not be set for readinessProbes'));
  }
  return errs;
}

/** Lifecycle hooks and the three probes, which regular and sidecar containers may have. */
export function validateProbesAndLifecycle(c: Rec, grace: number | undefined, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (c.lifecycle !== undefined && c.lifecycle !== null) {
    const lifecycle = rec(c.lifecycle);
    for (const hook of ['postStart', 'preStop']) {
      if (lifecycle[hook] !== undefined && lifecycle[hook] !== null) {
        errs.push(...handler(rec(lifecycle[hook]), LIFECYCLE_HANDLERS, grace, at.child('lifecycle').child(hook)));
      }
    }
  }
  errs.push(...probe(c.livenessProbe, 'liveness', grace, at.child('livenessProbe')));
  errs.push(...probe(c.readinessProbe, 'readiness', grace, at.child('readinessProbe')));
  errs.push(...probe(c.startupProbe, 'startup', grace, at.child('startupProbe')));
  return errs;
}

const RESIZE_RESOURCES = ['cpu', 'memory'];
const RESIZE_RESTART_POLICIES = ['NotRequired', 'RestartContainer'];

/**
 * validateResizePolicy: one policy per resource, cpu or memory, restarting or not; a pod that never restarts may
 * not ask for a restart on resize.
 */
function resizePolicy(list: unknown, podRestartPolicy: string, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  recs(list).forEach((p, i) => {
    const resource = str(p.resourceName);
    if (seen.has(resource)) errs.push(duplicate(at.index(i), resource));
    seen.add(resource);
    if (!resource) errs.push(required(at));
    else if (!RESIZE_RESOURCES.includes(resource)) errs.push(notSupported(at, resource, RESIZE_RESOURCES));
    const policy = str(p.restartPolicy);
    if (!policy) errs.push(required(at));
    else if (!RESIZE_RESTART_POLICIES.includes(policy)) errs.push(notSupported(at, policy, RESIZE_RESTART_POLICIES));
    if (podRestartPolicy === 'Never' && policy !== 'NotRequired') {
      errs.push(invalid(at, policy, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
    }
  });
  return errs;
}

/**
 * validateContainerCommon: name, image, termination message policy, ports, env, mounts, pull policy, resources and
 * resize policy (podRestartPolicy: the pod's or template's restartPolicy).
 */
export function validateContainerCommon(
  c: Rec,
  volumes: ReadonlySet<string>,
  at: FieldPath,
  podRestartPolicy: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c.name);
  if (!name) errs.push(required(at.child('name')));
  else errs.push(...dns1123Label(name, at.child('name')));
  if (!str(c.image)) errs.push(required(at.child('image')));
  errs.push(
    ...enumField(c.terminationMessagePolicy, at.child('terminationMessagePolicy'), TERMINATION_MESSAGE_POLICIES),
  );
  errs.push(...validateContainerPorts(c.ports, at.child('ports')));
  errs.push(...validateEnv(c.env, at.child('env')));
  errs.push(...validateEnvFrom(c.envFrom, at.child('envFrom')));
  errs.push(...volumeMounts(c.volumeMounts, volumes, at.child('volumeMounts')));
  errs.push(...enumField(c.imagePullPolicy, at.child('imagePullPolicy'), PULL_POLICIES));
  errs.push(...validateResourceRequirements(c.resources, at.child('resources')));
  errs.push(...resizePolicy(c.resizePolicy, podRestartPolicy, at.child('resizePolicy')));
  return errs;
}

/** Host ports used twice (protocol, host IP and port all equal) within the given containers. */
export function hostPortConflicts(containers: Rec[], at: FieldPath, seen = new Set<string>()): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    recs(c.ports).forEach((p, pi) => {
      const hostPort = typeof p.hostPort === 'number' ? p.hostPort : 0;
      if (hostPort === 0) return;
      const key = `${str(p.protocol)}/${str(p.hostIP)}/${hostPort}`;
      if (seen.has(key)) errs.push(duplicate(at.index(ci).child('ports').index(pi).child('hostPort'), key));
      else seen.add(key);
    });
  });
  return errs;
}
