import { parseArgs } from 'node:util';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { KubeClient } from '../client/rest.js';
import { STOPPED_ANNOTATION } from '../kubelet/sim.js';
import { UsageError } from './storage-flags.js';

export const nodeHelp = `Usage: wheelhouse node stop|start NAME [--kubeconfig FILE]

Fault injection for simulated nodes: 'stop' makes the node's kubelet stop renewing its Lease and reporting node
and pod status (as if it crashed or lost the network), so the node lifecycle controller marks it NotReady and then
Unknown, taints it and evicts its pods; 'start' brings it back.

It works through the API, from any process: it sets the annotation ${STOPPED_ANNOTATION}: "true" on the Node
(or removes it), and the simulated kubelets, which watch their Nodes, obey it.`;

/** `wheelhouse node stop|start NAME`. */
export async function nodeCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { kubeconfig: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    out(nodeHelp);
    return 0;
  }
  const [action, name, ...extra] = positionals;
  if ((action !== 'stop' && action !== 'start') || !name || extra.length > 0) throw new UsageError(nodeHelp);
  const connection = await loadKubeconfig(values.kubeconfig ? { kubeconfigPath: values.kubeconfig } : {});
  const client = new KubeClient(connection);
  try {
    await client.nodes().patch(name, 'merge', {
      metadata: { annotations: { [STOPPED_ANNOTATION]: action === 'stop' ? 'true' : null } },
    });
  } finally {
    client.close();
  }
  out(`node/${name} ${action === 'stop' ? 'stopped' : 'started'}`);
  return 0;
}
