/**
 * The utilities controllers share: expectations, controllerRefs and claiming, pod predicates, scale-down ranking,
 * pod creation and slow-start batches. See each module's header for its API.
 */
export * from './controller-ref.js';
export * from './expectations.js';
export * from './pods.js';
