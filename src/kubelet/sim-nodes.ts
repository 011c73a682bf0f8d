/**
 * Simulated nodes with their kubelet endpoint: one KubeletServer (logs, exec, attach, port-forward) for every node
 * of the process, and the SimKubelets that advertise its port in their Nodes' daemonEndpoints.
 */
import type { KubeClient } from '../client/rest.js';
import { SimLocalProvisioner } from './provisioner/sim-local.js';
import { apiObjectSource } from './server/object-source.js';
import { KubeletServer } from './server/server.js';
import { SimKubelets, type SimKubeletsOptions } from './sim.js';

export interface SimNodes {
  kubelets: SimKubelets;
  server: KubeletServer;
  /** The kubelet endpoint's port. */
  port: number;
  /** The provisioner of the nodes' local volumes (wheelhouse.dev/sim-local), unless turned off. */
  provisioner?: SimLocalProvisioner;
  stop(): Promise<void>;
}

/**
 * Starts the kubelet endpoint (on `kubeletPort`, or a free port when it is 0 or absent) on loopback, then the
 * simulated kubelets; resolves once every node is registered.
 */
export async function startSimNodes(
  opts: SimKubeletsOptions & {
    bindAddress?: string;
    provisioner?: boolean;
    /** The provisioner's client (its own identity); `client` by default. */
    provisionerClient?: KubeClient;
  },
): Promise<SimNodes> {
  const { bindAddress, provisioner: withProvisioner, provisionerClient, ...simOpts } = opts;
  let kubelets: SimKubelets | undefined;
  const server = new KubeletServer({
    runtime: { pod: () => undefined, containerLog: () => undefined },
    // exec reads a pod's ConfigMaps and Secrets as the kubelet of the pod's node.
    objects: apiObjectSource((node) => (node && kubelets ? kubelets.clientOf(node) : opts.client)),
    port: opts.kubeletPort ?? 0,
    ...(opts.podDNS ? { dns: opts.podDNS } : {}),
    ...(bindAddress ? { bindAddress } : {}),
    ...(opts.logger ? { logger: opts.logger.child('kubelet-server') } : {}),
  });
  const port = await server.start();
  kubelets = new SimKubelets({ ...simOpts, kubeletPort: port });
  server.runtime = kubelets;
  try {
    await kubelets.start();
  } catch (err) {
    await server.stop();
    throw err;
  }
  const provisioner =
    withProvisioner === false
      ? undefined
      : new SimLocalProvisioner({
          client: provisionerClient ?? opts.client,
          ...(opts.clock ? { clock: opts.clock } : {}),
          ...(opts.logger ? { logger: opts.logger.child('sim-local-provisioner') } : {}),
        });
  await provisioner?.start();
  return {
    kubelets,
    server,
    port,
    ...(provisioner ? { provisioner } : {}),
    async stop() {
      await provisioner?.stop();
      await kubelets.stop();
      await server.stop();
    },
  };
}
