/**
 * kube-controller-manager's certificate controllers: csrsigning, csrapproving and csrcleaner.
 */
export { csrApprovingController } from './approving-controller.js';
export { csrCleanerController } from './cleaner-controller.js';
export { csrSigningController } from './signing-controller.js';
