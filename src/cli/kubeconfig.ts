import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { dataDirOf, UsageError } from './storage-flags.js';

/** `wheelhouse kubeconfig`: prints the admin kubeconfig `wheelhouse up` wrote into the data directory. */
export async function kubeconfigCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    out(
      'Usage: wheelhouse kubeconfig [--data-dir DIR]\n\nPrints the admin kubeconfig of the cluster in DIR (default ./.wheelhouse).',
    );
    return 0;
  }
  const path = join(dataDirOf(values), 'kubeconfig');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`no kubeconfig at ${path}: start the cluster first with wheelhouse up`);
  }
  out(text.trimEnd());
  return 0;
}
