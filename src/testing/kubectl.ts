import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import assert from './assert.js';
import { eventually } from './controllers.js';

const run = promisify(execFile);

/**
 * The real kubectl against one cluster: `kubectl(...args)` answers its stdout (rejecting with the exit code and
 * stderr on failure); `apply(yaml)` writes the manifest into workDir and runs `kubectl apply -f` on it.
 */
export function kubectlFor(opts: { kubeconfig: string; workDir: string; timeoutMs?: number }) {
  const kubectl = async (...args: string[]) =>
    (
      await run('kubectl', ['--kubeconfig', opts.kubeconfig, '--cache-dir', join(opts.workDir, 'kcache'), ...args], {
        timeout: opts.timeoutMs ?? 60_000,
      })
    ).stdout;
  let manifests = 0;
  const apply = async (yaml: string) => {
    const file = join(opts.workDir, `manifest-${++manifests}.yaml`);
    writeFileSync(file, yaml);
    return kubectl('apply', '-f', file);
  };
  return { kubectl, apply };
}

/**
 * Waits until `kubectl get nodes` lists node-1 … node-count Ready, the nodes `wheelhouse up --nodes count` starts.
 */
export async function nodesReady(
  kubectl: (...args: string[]) => Promise<string>,
  count: number,
  within: { timeoutMs: number; intervalMs: number },
): Promise<void> {
  await eventually(async () => {
    const nodes = await kubectl('get', 'nodes');
    for (let i = 1; i <= count; i++) assert.match(nodes, new RegExp(`^node-${i}\\s+Ready\\s+`, 'm'));
  }, within);
}
