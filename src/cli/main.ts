#!/usr/bin/env node
import { UsageError } from './storage-flags.js';
import { apiserverCommand, upCommand } from './up.js';

const help = `wheelhouse: a Kubernetes control plane in TypeScript.

Usage: wheelhouse COMMAND [flags]

Commands:
  up          run the control plane in this process
  apiserver   run kube-apiserver alone (upstream flag names; listens on 0.0.0.0 by default)
  controller-manager
              run kube-controller-manager alone against an apiserver (--kubeconfig)
  scheduler   run kube-scheduler alone against an apiserver (--kubeconfig)
  kubelet     run simulated nodes (--sim --nodes N) against an apiserver (--kubeconfig)
  node        stop or start a simulated node (it stops heartbeating, as a failed machine would)
  explain     why the scheduler placed a pod where it did, or nowhere (per node and plugin)
  kubeconfig  print the admin kubeconfig of the cluster in --data-dir
  snapshot    save, restore or inspect a snapshot of the sqlite store
  version     print the version

Run 'wheelhouse COMMAND --help' for a command's flags.`;

export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'up':
        return await upCommand(rest, out);
      case 'apiserver':
        return await apiserverCommand(rest, out);
      case 'controller-manager':
        return await (await import('./controller-manager.js')).controllerManagerCommand(rest, out);
      case 'scheduler':
        return await (await import('./scheduler.js')).schedulerCommand(rest, out);
      case 'kubelet':
        return await (await import('./kubelet.js')).kubeletCommand(rest, out);
      case 'node':
        return await (await import('./node.js')).nodeCommand(rest, out);
      case 'explain':
        return await (await import('./explain.js')).explainCommand(rest, out);
      case 'kubeconfig':
        return await (await import('./kubeconfig.js')).kubeconfigCommand(rest, out);
      case 'snapshot':
        return await (await import('./snapshot.js')).snapshotCommand(rest, out);
      case 'version':
      case '--version':
        out('wheelhouse 0.1.0');
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out(help);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${help}`);
    }
  } catch (err) {
    const code = (err as { code?: unknown } | undefined)?.code;
    if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`wheelhouse: ${(err as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`wheelhouse: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
