/** The names of the simulated nodes of one process: `<prefix>1 … <prefix>N`, or the names given. */

export const DEFAULT_NODE_NAME_PREFIX = 'node-';
export const DEFAULT_SIM_NODE_COUNT = 3;

export function simNodeNames(opts: { nodes?: number | string[]; namePrefix?: string }): string[] {
  if (Array.isArray(opts.nodes)) return [...opts.nodes];
  const prefix = opts.namePrefix ?? DEFAULT_NODE_NAME_PREFIX;
  return Array.from({ length: opts.nodes ?? DEFAULT_SIM_NODE_COUNT }, (_, i) => `${prefix}${i + 1}`);
}
