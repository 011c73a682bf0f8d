/**
 * DefaultBinder (Bind): binds the pod by creating its `binding` subresource (a v1 Binding naming the node), which
 * sets `spec.nodeName` on the apiserver side.
 */

import type { BindPlugin, CycleState, Handle, PluginFactory, Pod } from '../../framework/types.js';
import { Status } from '../../framework/types.js';

export const name = 'DefaultBinder';

export class DefaultBinder implements BindPlugin {
  readonly name = name;
  constructor(private readonly handle: Pick<Handle, 'client'>) {}

  async bind(_state: CycleState, pod: Pod, nodeName: string): Promise<Status> {
    const namespace = pod.metadata.namespace ?? 'default';
    const podName = pod.metadata.name ?? '';
    const binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { namespace, name: podName, ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}) },
      target: { kind: 'Node', name: nodeName },
    };
    try {
      await this.handle.client.pods(namespace).createSubresource(podName, 'binding', binding);
      return Status.success();
    } catch (err) {
      return Status.error(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

export const factory: PluginFactory = (_args, handle) => new DefaultBinder(handle);
