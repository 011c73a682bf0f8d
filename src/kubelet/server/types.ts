/**
 * What the kubelet's HTTPS endpoint needs from the kubelets of this process: the pods they run, the logs of their
 * containers and, optionally, a way to run commands in them. The simulated kubelets implement it (their
 * `ContainerLog` already has the shape of `ContainerLogSource`); `fake-runtime.ts` is a small one for tests.
 */
import type { KubeObject } from '../../client/types.js';

/** One line a container wrote. */
export interface LogLine {
  /** Milliseconds since the epoch. */
  time: number;
  /** The line without its newline. */
  text: string;
  stream?: 'stdout' | 'stderr';
}

export interface LogFollower {
  onLine(line: LogLine): void;
  /** The run is over: no more lines will come. */
  onEnd(): void;
}

/** The log of one run of a container: the lines kept so far, and later lines as they come. */
export interface ContainerLogSource {
  /** The kept lines, oldest first. */
  lines(): LogLine[];
  /** True once the run has ended. */
  readonly ended: boolean;
  /** Hears every later line until the run ends (onEnd at once if it has); returns how to stop listening. */
  follow(follower: LogFollower): () => void;
}

/** The streams of one exec or attach session. */
export interface ExecIO {
  /** What the client types, until it closes its stdin; undefined when stdin is not attached. */
  stdin: AsyncIterable<Buffer> | undefined;
  stdout(data: string | Buffer): void;
  stderr(data: string | Buffer): void;
  tty: boolean;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface PodRuntime {
  /** The pod a kubelet of this process runs under that name (spec and current status), or undefined. */
  pod(namespace: string, name: string): KubeObject | undefined;
  /** The log of a container's current run (or of its previous run); undefined when there is none. */
  containerLog(namespace: string, name: string, container: string, previous: boolean): ContainerLogSource | undefined;
  /**
   * Runs a command in a running container, resolving to its exit code. Optional: without it the server runs its
   * built-in command set (echo, env, cat, ls, sh -c, …) against the pod's spec.
   */
  exec?(namespace: string, name: string, container: string, command: string[], io: ExecIO): Promise<number>;
}

/**
 * Where exec reads the ConfigMaps and Secrets a pod refers to (env and mounted volumes). `node` is the pod's node,
 * whose kubelet reads them (under the Node authorizer, only a node with a pod that uses an object may read it).
 */
export interface ObjectSource {
  configMap(namespace: string, name: string, node?: string): Promise<KubeObject | undefined>;
  secret(namespace: string, name: string, node?: string): Promise<KubeObject | undefined>;
  /** The Services of a namespace (for the containers' Service environment variables). */
  services?(namespace: string, node?: string): Promise<KubeObject[]>;
  /**
   * A token of the pod's service account for a projected `serviceAccountToken` source (a TokenRequest bound to the
   * pod, as the kubelet's token manager asks for it), or undefined when none can be had.
   */
  serviceAccountToken?(pod: KubeObject, source: ServiceAccountTokenSource, node?: string): Promise<string | undefined>;
}

/** A projected volume's `serviceAccountToken` source, defaulted. */
export interface ServiceAccountTokenSource {
  /** '' for the apiserver's own audiences. */
  audience: string;
  expirationSeconds: number;
}
