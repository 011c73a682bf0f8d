/**
 * The core/v1 Event as the recorder writes it, and how one is made for an object: the reference to the object
 * (involvedObject), the event's name (`<object name>.<hex nanoseconds>`), its namespace (the object's, or `default`
 * for cluster-scoped objects) and its timestamps (meta/v1 Time, whole seconds).
 */
import { randomUUID } from 'node:crypto';
import { formatTime } from '../../util/time.js';
import type { KubeObject } from '../types.js';

export const EVENT_TYPE_NORMAL = 'Normal';
export const EVENT_TYPE_WARNING = 'Warning';
export type EventType = typeof EVENT_TYPE_NORMAL | typeof EVENT_TYPE_WARNING;

/** core/v1 ObjectReference. */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** core/v1 EventSource: who reports. */
export interface EventSource {
  component?: string;
  host?: string;
}

/** core/v1 Event, the fields the recorder writes. */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: EventSource;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: string;
  reportingComponent: string;
  reportingInstance: string;
}

/** What the recorder can report about: an object with metadata, or a reference to one. */
export type EventSubject = KubeObject | ObjectReference;

export { formatTime };

/** meta/v1 MicroTime on the wire: RFC 3339 in UTC with six fractional digits. */
export function formatMicroTime(ms: number): string {
  return new Date(Math.floor(ms)).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * The reference to an object (tools/reference's GetReference): kind and apiVersion from the object, then name,
 * namespace, uid and resourceVersion from its metadata. A reference passes through as it is.
 */
export function getReference(subject: EventSubject): ObjectReference {
  if (!subject || typeof subject !== 'object') throw new Error("can't reference a nil object");
  if (!('metadata' in subject) || subject.metadata === undefined) {
    const ref = subject as ObjectReference;
    if (!ref.kind) throw new Error('object reference has no kind');
    return { ...ref };
  }
  const obj = subject as KubeObject;
  if (!obj.kind || !obj.apiVersion) {
    throw new Error(`object ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''} has no apiVersion and kind`);
  }
  const ref: ObjectReference = { kind: obj.kind, apiVersion: obj.apiVersion };
  if (obj.metadata.name) ref.name = obj.metadata.name;
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace;
  if (obj.metadata.uid) ref.uid = obj.metadata.uid;
  if (obj.metadata.resourceVersion) ref.resourceVersion = obj.metadata.resourceVersion;
  return ref;
}

let sequence = 0;

/**
 * Nanoseconds since the epoch for `ms`. The clock has millisecond resolution, so the sub-millisecond part counts
 * up within the process, keeping names of events made in the same millisecond apart.
 */
export function unixNano(ms: number): bigint {
  sequence = (sequence + 1) % 1_000_000;
  return BigInt(Math.floor(ms)) * 1_000_000n + BigInt(sequence);
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `<name>.<nanoseconds in hex>`, or a UUID when that would not be a valid object name (as upstream does). */
export function generateEventName(refName: string, nanos: bigint): string {
  const name = `${refName}.${nanos.toString(16)}`;
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) return randomUUID();
  return name;
}

/** A new Event about `ref`, happening at `nowMs`, with count 1. */
export function makeEvent(
  ref: ObjectReference,
  source: EventSource,
  annotations: Record<string, string> | undefined,
  type: string,
  reason: string,
  message: string,
  nowMs: number,
): CoreEvent {
  const t = formatTime(nowMs);
  const metadata: KubeObject['metadata'] = {
    name: generateEventName(ref.name ?? '', unixNano(nowMs)),
    namespace: ref.namespace || 'default',
  };
  if (annotations && Object.keys(annotations).length > 0) metadata.annotations = { ...annotations };
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    involvedObject: { ...ref },
    reason,
    message,
    source: { ...source },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type,
    reportingComponent: source.component ?? '',
    reportingInstance: source.host ?? '',
  };
}
