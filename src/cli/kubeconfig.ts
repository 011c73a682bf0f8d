import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { type Kubeconfig, mergeKubeconfig } from '../client/kubeconfig.js';
import { userKubeconfig } from './kubeconfig-user.js';
import { dataDirOf, UsageError } from './storage-flags.js';

export const kubeconfigHelp = `Usage: wheelhouse kubeconfig [--data-dir DIR] [--merge [--kubeconfig FILE]]

Prints the admin kubeconfig of the cluster in DIR (default ./.wheelhouse). With --merge, adds it to FILE
(default: $KUBECONFIG's first file, else ~/.kube/config) as the context "wheelhouse" and makes it current,
leaving every other entry as it was.

wheelhouse kubeconfig --user NAME [--group G]... [--expiration D] [--data-dir DIR]
  prints a kubeconfig for a new user: a client certificate (CN NAME, O each group) signed by the cluster's CA,
  valid for D (default 8760h); RBAC decides what the user may do.`;

/** `wheelhouse kubeconfig`: prints (or merges) the admin kubeconfig `wheelhouse up` wrote into the data directory. */
export async function kubeconfigCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string' },
      merge: { type: 'boolean' },
      kubeconfig: { type: 'string' },
      user: { type: 'string' },
      group: { type: 'string', multiple: true },
      expiration: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out(kubeconfigHelp);
    return 0;
  }
  if (values.user !== undefined) {
    const text = await userKubeconfig({
      dataDir: dataDirOf(values),
      user: values.user,
      groups: values.group ?? [],
      expiration: values.expiration,
    });
    out(text.trimEnd());
    return 0;
  }
  const path = join(dataDirOf(values), 'kubeconfig');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`no kubeconfig at ${path}: start the cluster first with wheelhouse up`);
  }
  if (!values.merge) {
    out(text.trimEnd());
    return 0;
  }
  const target =
    values.kubeconfig ?? process.env.KUBECONFIG?.split(':').find(Boolean) ?? join(homedir(), '.kube', 'config');
  await mergeKubeconfig(target, parseYaml(text, { version: '1.1' }) as Kubeconfig, { setCurrentContext: true });
  out(`Merged the wheelhouse context into ${target}; it is now the current context.`);
  return 0;
}
