/**
 * The controllers this build of kube-controller-manager has, in the order they start.
 */
import type { ControllerDescriptor } from './context.js';

export const CONTROLLERS: readonly ControllerDescriptor[] = [];
