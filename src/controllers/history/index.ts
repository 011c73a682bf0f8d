/**
 * The ControllerRevision history shared by the DaemonSet and StatefulSet controllers (upstream's
 * pkg/controller/history): hashing and naming (hash.ts), revisions as values and the template-patch data format
 * (revisions.ts), and the API-backed history (history.ts).
 */
export * from './hash.js';
export * from './history.js';
export * from './revisions.js';
