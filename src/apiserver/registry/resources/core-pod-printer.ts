/**
 * The columns of `kubectl get pods` (NAME READY STATUS RESTARTS AGE, and with -o wide IP NODE NOMINATED NODE
 * READINESS GATES), with upstream's STATUS logic: the pod's reason or phase, refined by init containers
 * (`Init:1/2`, `Init:CrashLoopBackOff`), by container waiting and terminated reasons, and by deletion
 * (`Terminating`).
 */
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Rec, rec, recs, str } from './core-json.js';
import { column } from './groups-columns.js';

const isSidecar = (c: Rec | undefined) => c?.restartPolicy === 'Always';
const count = (v: unknown) => (typeof v === 'number' ? v : 0);

function conditionTrue(status: Rec, type: string): boolean {
  return recs(status.conditions).some((c) => c.type === type && c.status === 'True');
}

/** The later of two RFC 3339 times ('' counts as the zero time). */
const later = (a: string, b: string) => (b && (!a || Date.parse(b) > Date.parse(a)) ? b : a);

interface Summary {
  ready: number;
  total: number;
  reason: string;
  restarts: string;
}

/** READY, STATUS and RESTARTS of a pod, as upstream's printPod works them out. */
export function podSummary(pod: KubeObject, now: number): Summary {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const c of recs(status.conditions)) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const initSpecs = new Map(recs(spec.initContainers).map((c) => [str(c.name), c]));
  let total = recs(spec.containers).length + [...initSpecs.values()].filter(isSidecar).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = '';
  let lastSidecarRestart = '';
  let initializing = false;
  const initStatuses = recs(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i] ?? {};
    const state = rec(c.state);
    const finished = str(rec(rec(c.lastState).terminated).finishedAt);
    restarts += count(c.restartCount);
    lastRestart = later(lastRestart, finished);
    const sidecar = isSidecar(initSpecs.get(str(c.name)));
    if (sidecar) {
      sidecarRestarts += count(c.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, finished);
    }
    const terminated = state.terminated ? rec(state.terminated) : undefined;
    const waiting = state.waiting ? rec(state.waiting) : undefined;
    if (terminated && count(terminated.exitCode) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready === true) ready++;
      continue;
    }
    if (terminated) {
      if (str(terminated.reason)) reason = `Init:${str(terminated.reason)}`;
      else if (count(terminated.signal) !== 0) reason = `Init:Signal:${count(terminated.signal)}`;
      else reason = `Init:ExitCode:${count(terminated.exitCode)}`;
    } else if (waiting && str(waiting.reason) && waiting.reason !== 'PodInitializing') {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }
  if (!initializing || conditionTrue(status, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let running = false;
    const statuses = recs(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i] ?? {};
      const state = rec(c.state);
      restarts += count(c.restartCount);
      lastRestart = later(lastRestart, str(rec(rec(c.lastState).terminated).finishedAt));
      const waiting = state.waiting ? rec(state.waiting) : undefined;
      const terminated = state.terminated ? rec(state.terminated) : undefined;
      if (waiting && str(waiting.reason)) reason = str(waiting.reason);
      else if (terminated && str(terminated.reason)) reason = str(terminated.reason);
      else if (terminated) {
        reason =
          count(terminated.signal) !== 0
            ? `Signal:${count(terminated.signal)}`
            : `ExitCode:${count(terminated.exitCode)}`;
      } else if (c.ready === true && state.running) {
        running = true;
        ready++;
      }
    }
    if (reason === 'Completed' && running) reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }
  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  total = Math.max(total, 0);
  const restartsText = restarts !== 0 && lastRestart ? `${restarts} (${age(lastRestart, now)} ago)` : String(restarts);
  return { ready, total, reason, restarts: restartsText };
}

function firstPodIP(status: Rec): string {
  const ips = recs(status.podIPs);
  return str(ips[0]?.ip) || str(status.podIP);
}

function readinessGates(spec: Rec, status: Rec): string {
  const gates = recs(spec.readinessGates);
  if (gates.length === 0) return '<none>';
  const conditions = recs(status.conditions);
  const met = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

export const podPrinter: Printer = {
  columns: [
    nameColumn,
    column('Ready', 'How many of the pod containers are ready, of how many.'),
    column('Status', 'The summary of the pod and container states.'),
    column('Restarts', 'How many times the containers restarted, and how long ago the last one did.'),
    ageColumn,
    column('IP', 'The IP address of the pod.', { wide: true }),
    column('Node', 'The node the pod is bound to.', { wide: true }),
    column('Nominated Node', 'The node the scheduler plans to put the pod on after preemption.', { wide: true }),
    column('Readiness Gates', 'How many readiness gates of the pod are met, of how many.', { wide: true }),
  ],
  cells(pod, now) {
    const spec = rec(pod.spec);
    const status = rec(pod.status);
    const s = podSummary(pod, now);
    return [
      pod.metadata.name ?? '',
      `${s.ready}/${s.total}`,
      s.reason,
      s.restarts,
      age(pod.metadata.creationTimestamp, now),
      firstPodIP(status) || '<none>',
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      readinessGates(spec, status),
    ];
  },
};
