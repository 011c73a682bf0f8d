import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SCHEDULER_URL_FILE } from '../index.js';
import { fetchVerdicts, formatVerdicts } from '../scheduler/explain.js';
import { dataDirOf, UsageError } from './storage-flags.js';

export const explainHelp = `Usage: wheelhouse explain pod NAME [-n NAMESPACE] [--data-dir DIR | --scheduler-url URL]

Prints the scheduler's last attempt for a pod: per node, the verdict of every Filter plugin (ok, or why it
refused), and the per-plugin scores of the nodes that passed. The data comes from the scheduler's secure port
(/debug/verdicts/<namespace>/<pod>); wheelhouse up writes its address to <data-dir>/${SCHEDULER_URL_FILE}.`;

/** `wheelhouse explain pod NAME`: why the scheduler put a pod where it did, or nowhere. */
export async function explainCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      namespace: { type: 'string', short: 'n' },
      'data-dir': { type: 'string' },
      'scheduler-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out(explainHelp);
    return 0;
  }
  const [kind, name] = positionals;
  if ((kind !== 'pod' && kind !== 'pods' && kind !== 'po') || !name) {
    throw new UsageError(`explain needs a pod: wheelhouse explain pod NAME [-n NAMESPACE]\n\n${explainHelp}`);
  }
  const namespace = values.namespace ?? 'default';
  let url = values['scheduler-url'];
  if (!url) {
    const file = join(dataDirOf(values), SCHEDULER_URL_FILE);
    try {
      url = (await readFile(file, 'utf8')).trim();
    } catch {
      throw new UsageError(
        `no scheduler address in ${file}: start the cluster with wheelhouse up, or give --scheduler-url`,
      );
    }
  }
  const verdicts = await fetchVerdicts(url, namespace, name);
  if (!verdicts) {
    process.stderr.write(`wheelhouse: the scheduler has no attempt recorded for pod ${namespace}/${name}\n`);
    return 1;
  }
  out(formatVerdicts(verdicts));
  return 0;
}
