/**
 * The options object of a connect request (upstream's ConnectResource): the query of `pods/exec`, `pods/attach` or
 * `pods/portforward` read into a v1 PodExecOptions, PodAttachOptions or PodPortForwardOptions as the parameter
 * codec reads it, admitted with operation CONNECT (mutating phase, then validating; the options are the admission
 * object, with no old object and no operation options), and turned into the kubelet's query afterwards — so what a
 * mutating webhook changed in the options is what the kubelet is asked for.
 */
import { statusErrors } from '../../api/status-error.js';
import { attributesFor } from '../admission/attributes.js';
import type { ServedResource } from '../api-registry.js';
import type { RequestContext } from '../context.js';
import type { KubeObject } from '../registry/object.js';
import { admissionSinkOf } from './rest.js';

/** The kind of each connect subresource's options (the kind admission and webhooks see), all core v1. */
const OPTIONS_KINDS: Readonly<Record<string, string>> = {
  exec: 'PodExecOptions',
  attach: 'PodAttachOptions',
  portforward: 'PodPortForwardOptions',
};

export type ConnectOptions = Record<string, unknown> & { kind: string; apiVersion: 'v1' };

/**
 * A query parameter read as a bool the way the parameter codec reads one: absent is false, and so are a first
 * value of "0" or "false" (any case); anything else, an empty value included, is true.
 */
function queryBool(q: URLSearchParams, key: string): boolean {
  const v = q.get(key);
  if (v === null) return false;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** `ports` as the parameter codec reads it: every value, split on commas, each a 16-bit unsigned decimal. */
function queryPorts(q: URLSearchParams): number[] {
  const ports: number[] = [];
  for (const value of q.getAll('ports')) {
    for (const part of value.split(',')) {
      let problem: string | undefined;
      if (!/^[0-9]+$/.test(part)) problem = 'invalid syntax';
      else if (Number(part) > 0xffff) problem = 'value out of range';
      if (problem) {
        throw statusErrors.badRequest(
          `cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(part)}: ${problem}`,
        );
      }
      ports.push(Number(part));
    }
  }
  return ports;
}

/**
 * The options object of a connect request, as its v1 JSON has it (fields in the type's order, empty ones left
 * out but for PodExecOptions' `command`, which is not omitempty). Throws BadRequest for a query the parameter codec
 * refuses.
 */
export function connectOptionsOf(subresource: string, q: URLSearchParams): ConnectOptions {
  const kind = OPTIONS_KINDS[subresource];
  if (!kind) throw statusErrors.pathNotFound();
  const options: ConnectOptions = { kind, apiVersion: 'v1' };
  if (subresource === 'portforward') {
    const ports = queryPorts(q);
    if (ports.length > 0) options.ports = ports;
    return options;
  }
  for (const key of ['stdin', 'stdout', 'stderr', 'tty']) if (queryBool(q, key)) options[key] = true;
  const container = q.get('container');
  if (container) options.container = container;
  if (subresource === 'exec') {
    const command = q.getAll('command');
    options.command = command.length > 0 ? command : null;
  }
  return options;
}

/**
 * Admission of a connect request: CONNECT of the pod's subresource, the options as the object. A mutating plugin
 * may change the options (a webhook's JSONPatch); the options as the validating phase saw them are returned.
 */
export async function admitConnect(
  ctx: RequestContext,
  pods: ServedResource,
  options: ConnectOptions,
): Promise<ConnectOptions> {
  const chain = pods.store.admission;
  if (!chain) return options;
  const attrs = attributesFor(pods.def, {
    operation: 'CONNECT',
    object: options as unknown as KubeObject,
    kind: { group: '', version: 'v1', kind: options.kind },
    subresource: ctx.info.subresource,
    namespace: ctx.info.namespace,
    name: ctx.info.name,
    user: ctx.user,
    sink: admissionSinkOf(ctx),
    dryRun: false,
  });
  await chain.admit(attrs);
  await chain.validate(attrs);
  return (attrs.object ?? options) as unknown as ConnectOptions;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** The kubelet's query for the (admitted) options: upstream's streamParams. */
export function kubeletStreamQuery(options: ConnectOptions): URLSearchParams {
  const out = new URLSearchParams();
  if (options.kind === 'PodPortForwardOptions') {
    const ports = Array.isArray(options.ports) ? options.ports.filter((p) => typeof p === 'number') : [];
    if (ports.length > 0) out.set('ports', ports.join(','));
    return out;
  }
  for (const key of ['stdin', 'stdout', 'stderr', 'tty']) if (options[key] === true) out.set(key, '1');
  if (options.kind === 'PodExecOptions') for (const c of strings(options.command)) out.append('command', c);
  return out;
}

/** The container the options name ('' when they name none). */
export function optionsContainer(options: ConnectOptions): string {
  return typeof options.container === 'string' ? options.container : '';
}
