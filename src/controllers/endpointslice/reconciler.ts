/**
 * Applies the endpointslice plan through the API (upstream's Reconciler.Reconcile and finalize): per address type
 * the Service supports, plan then write; slices of address types the Service no longer has are deleted. Creates
 * that would be followed by deletes become updates of the slices otherwise deleted; nothing is created for a
 * Service being deleted; every written slice carries the last-change-trigger-time annotation (or loses it).
 */
import type { KubeClient } from '../../client/rest.js';
import { isNotFound } from '../../client/types.js';
import { addressTypesForService, ownedBy, type PlanOptions, planAddressType, type SlicePlan } from './plan.js';
import type { EndpointSliceTracker } from './trackers.js';
import type { AddressType, EndpointSlice, Pod, Service } from './types.js';
import { ANNOTATION_LAST_CHANGE_TRIGGER_TIME, formatRFC3339Nano, isNamespaceTerminating } from './util.js';

/** Several errors as one, as apimachinery's NewAggregate prints them. */
export function aggregate(errors: readonly unknown[]): Error | undefined {
  const messages = errors.map((e) => (e instanceof Error ? e.message : String(e)));
  if (messages.length === 0) return undefined;
  if (messages.length === 1) return new Error(messages[0]);
  return new Error(`[${messages.join(', ')}]`);
}

function setTriggerTime(slice: EndpointSlice, triggerTime: number | undefined): void {
  const annotations = { ...slice.metadata.annotations };
  if (triggerTime !== undefined) annotations[ANNOTATION_LAST_CHANGE_TRIGGER_TIME] = formatRFC3339Nano(triggerTime);
  else delete annotations[ANNOTATION_LAST_CHANGE_TRIGGER_TIME];
  slice.metadata.annotations = annotations;
}

export class EndpointSliceReconciler {
  constructor(
    private readonly client: KubeClient,
    private readonly tracker: EndpointSliceTracker,
    private readonly opts: PlanOptions,
  ) {}

  async reconcile(
    svc: Service,
    pods: readonly Pod[],
    existing: readonly EndpointSlice[],
    triggerTime: number | undefined,
  ): Promise<void> {
    const errors: unknown[] = [];
    const supported = addressTypesForService(svc);
    const byType = new Map<AddressType, EndpointSlice[]>();
    const unsupported: EndpointSlice[] = [];
    for (const slice of existing) {
      if (!supported.has(slice.addressType)) unsupported.push(slice);
      else byType.set(slice.addressType, [...(byType.get(slice.addressType) ?? []), slice]);
    }
    for (const addressType of supported) {
      const plan = planAddressType(svc, pods, byType.get(addressType) ?? [], addressType, this.opts);
      errors.push(...plan.errors);
      try {
        await this.finalize(svc, plan, triggerTime);
      } catch (err) {
        errors.push(err);
      }
    }
    for (const slice of unsupported) {
      try {
        await this.deleteSlice(svc, slice);
      } catch (err) {
        errors.push(
          `error deleting ${slice.metadata.name} EndpointSlice for Service ${svc.metadata.namespace}/${svc.metadata.name}: ${String((err as Error).message ?? err)}`,
        );
      }
    }
    const err = aggregate(errors);
    if (err) throw err;
  }

  private async deleteSlice(svc: Service, slice: EndpointSlice): Promise<void> {
    try {
      await this.client.endpointSlices(svc.metadata.namespace).delete(slice.metadata.name ?? '');
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    this.tracker.expectDeletion(slice);
  }

  private async finalize(svc: Service, plan: SlicePlan, triggerTime: number | undefined): Promise<void> {
    const toCreate = [...plan.toCreate];
    const toUpdate = [...plan.toUpdate];
    const toDelete = [...plan.toDelete];
    // Recycle slices about to be deleted instead of creating new ones.
    for (let i = 0; i < toDelete.length && toCreate.length > 0; ) {
      const doomed = toDelete[i] as EndpointSlice;
      const fresh = toCreate[toCreate.length - 1] as EndpointSlice;
      if (doomed.addressType === fresh.addressType && ownedBy(doomed, svc)) {
        fresh.metadata.name = doomed.metadata.name ?? '';
        toCreate.pop();
        toUpdate.push(fresh);
        toDelete.splice(i, 1);
      } else {
        i++;
      }
    }
    const ns = svc.metadata.namespace ?? '';
    const where = `Service ${ns}/${svc.metadata.name}`;
    const slices = this.client.endpointSlices(ns);
    if (!svc.metadata.deletionTimestamp) {
      for (const slice of toCreate) {
        setTriggerTime(slice, triggerTime);
        let created: EndpointSlice;
        try {
          created = (await slices.create(slice)) as EndpointSlice;
        } catch (err) {
          if (isNamespaceTerminating(err)) return;
          throw new Error(`failed to create EndpointSlice for ${where}: ${(err as Error).message}`);
        }
        this.tracker.update(created);
      }
    }
    for (const slice of toUpdate) {
      setTriggerTime(slice, triggerTime);
      let updated: EndpointSlice;
      try {
        updated = (await slices.update(slice)) as EndpointSlice;
      } catch (err) {
        throw new Error(
          `failed to update ${slice.metadata.name} EndpointSlice for ${where}: ${(err as Error).message}`,
        );
      }
      this.tracker.update(updated);
    }
    for (const slice of toDelete) {
      try {
        await this.deleteSlice(svc, slice);
      } catch (err) {
        throw new Error(
          `failed to delete ${slice.metadata.name} EndpointSlice for ${where}: ${(err as Error).message}`,
        );
      }
    }
  }
}
