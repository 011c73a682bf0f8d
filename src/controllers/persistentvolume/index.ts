/**
 * persistentvolume-binder-controller: binds PersistentVolumeClaims to PersistentVolumes, hands claims to external
 * provisioners, and releases volumes whose claims are gone.
 */
import type { ControllerDescriptor } from '../context.js';
import { PersistentVolumeController } from './pv-controller.js';

export const persistentVolumeBinderController: ControllerDescriptor = {
  name: 'persistentvolume-binder-controller',
  serviceAccount: 'persistent-volume-binder',
  create: (ctx) => new PersistentVolumeController(ctx),
};
