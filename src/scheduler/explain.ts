/**
 * `wheelhouse explain pod`: a pod's verdicts as text — the attempt and its outcome, a table of nodes × Filter
 * plugins (`ok`, the reason a plugin rejected the node, `-` when an earlier plugin already had, `skip` when
 * PreFilter said the plugin has nothing to check), the scores of the feasible nodes, and the plugins this build
 * does not evaluate.
 */
import { request } from 'node:https';
import { NOT_RUN, type PodVerdicts } from './verdicts.js';

function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3)))
        .join('')
        .trimEnd(),
    )
    .join('\n');
}

export function formatVerdicts(v: PodVerdicts): string {
  const out: string[] = [];
  out.push(
    `Pod ${v.pod.namespace}/${v.pod.name} (scheduler ${v.profile}), attempt ${v.attempt} at ${v.time}: ${v.result}${
      v.nodeName ? ` on ${v.nodeName}` : ''
    }`,
  );
  if (v.message) out.push(v.message);
  if (v.preFilter.rejectedBy || v.preFilter.message) {
    out.push(
      `PreFilter ${v.preFilter.rejectedBy ?? ''} rejected the pod: ${v.preFilter.message ?? ''}`.replace('  ', ' '),
    );
  }
  const nodes = v.nodes;
  if (nodes.length > 0) {
    const hasOther = nodes.some((n) => n.rejectedBy);
    const header = ['NODE', ...v.filterPlugins];
    if (hasOther) header.push('OTHER');
    const rows = [header];
    for (const n of nodes) {
      const row = [n.node, ...v.filterPlugins.map((p) => n.filters[p] ?? NOT_RUN)];
      if (hasOther) row.push(n.rejectedBy ? `${n.rejectedBy.plugin}: ${n.rejectedBy.reason}` : '');
      rows.push(row);
    }
    out.push('', table(rows));
  } else {
    out.push('', 'No node was evaluated.');
  }
  if (v.notEvaluatedNodes > 0) {
    out.push(`(${v.notEvaluatedNodes} more node(s) not evaluated: enough feasible nodes were found first)`);
  }
  const scored = nodes.filter((n) => n.scores);
  if (scored.length > 0 && v.scorePlugins.length > 0) {
    const plugins = v.scorePlugins.filter((p) => scored.some((n) => n.scores?.[p.name] !== undefined));
    const header = ['SCORES', ...plugins.map((p) => `${p.name}(x${p.weight})`), 'TOTAL'];
    const rows = [header];
    for (const n of [...scored].sort((a, b) => (b.totalScore ?? 0) - (a.totalScore ?? 0))) {
      rows.push([n.node, ...plugins.map((p) => String(n.scores?.[p.name] ?? NOT_RUN)), String(n.totalScore ?? 0)]);
    }
    out.push('', table(rows));
  }
  if (v.postFilter) {
    out.push(
      '',
      `PostFilter ${v.postFilter.plugin}: ${v.postFilter.message}${
        v.postFilter.nominatedNodeName ? ` (nominated node ${v.postFilter.nominatedNodeName})` : ''
      }`,
    );
  }
  if (v.notEvaluatedPlugins.length > 0) {
    const reasons = new Map<string, string[]>();
    for (const p of v.notEvaluatedPlugins) reasons.set(p.reason, [...(reasons.get(p.reason) ?? []), p.name]);
    out.push('');
    for (const [reason, names] of reasons) out.push(`${names.join(', ')}: ${reason}.`);
  }
  return out.join('\n');
}

/**
 * Reads a pod's verdicts from a scheduler's secure port (GET <baseUrl>/debug/verdicts/<namespace>/<name>);
 * undefined when the scheduler has no attempt recorded for it. Without `caPem` the server's certificate is not
 * verified (the scheduler's default certificate is self-signed).
 */
export function fetchVerdicts(
  baseUrl: string,
  namespace: string,
  name: string,
  opts: { caPem?: string; timeoutMs?: number } = {},
): Promise<PodVerdicts | undefined> {
  const url = `${baseUrl.replace(/\/+$/, '')}/debug/verdicts/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { ...(opts.caPem ? { ca: opts.caPem } : { rejectUnauthorized: false }), timeout: opts.timeoutMs ?? 10_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => {
          if (res.statusCode === 404) return resolve(undefined);
          if (res.statusCode !== 200)
            return reject(new Error(`${url}: the scheduler answered ${res.statusCode}: ${body.trim()}`));
          try {
            resolve(JSON.parse(body) as PodVerdicts);
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${opts.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end();
  });
}
