/**
 * What every controller gets from kube-controller-manager: the API client (the controller-manager's identity, or
 * with --use-service-account-credentials the controller's own ServiceAccount), the shared informers, a clock, a
 * logger, an event recorder, the flag values, and a signal that ends its work when leadership is lost or the manager
 * stops. Controllers reach the cluster only through these (ARCHITECTURE.md rule 1).
 */
import type { SharedInformerFactory } from '../client/cache/factory.js';
import type { EventRecorder } from '../client/events/broadcaster.js';
import type { KubeClient } from '../client/rest.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { ControllerManagerOptions } from './options.js';

export interface ControllerContext {
  /** The client the controller writes with (and reads live objects with): its own identity, see serviceAccount. */
  client: KubeClient;
  informers: SharedInformerFactory;
  clock: Clock;
  /** This controller's logger. */
  logger: Logger;
  /**
   * An event recorder whose source component is the given name (upstream names, e.g. `replicaset-controller`);
   * events are written with the controller's client, as upstream's controllers record them.
   */
  recorder(component: string): EventRecorder;
  options: ControllerManagerOptions;
  /** Aborted when the controller must stop. */
  signal: AbortSignal;
}

/** A running controller. */
export interface Controller {
  /**
   * Starts the controller's workers once the caches it needs have synced (informers are started by the manager
   * after every controller was created). Resolves when the controller has stopped after ctx.signal aborted.
   */
  run(): Promise<void>;
}

/** How the manager knows a controller: its upstream name and aliases, and how to make it. */
export interface ControllerDescriptor {
  name: string;
  /**
   * The ServiceAccount (`kube-system/<name>`, bound to ClusterRole `system:controller:<name>`) the controller acts
   * as with --use-service-account-credentials: the name upstream's controller asks its client builder for. None: the
   * controller always uses the controller manager's own identity (upstream's root client builder).
   */
  serviceAccount?: string;
  /**
   * Creates the controller: asks the factory for the informers it needs and registers their handlers. It must not
   * start work before run().
   */
  create(ctx: ControllerContext): Controller | Promise<Controller>;
}
