/** NodePort allocation from `--service-node-port-range` (30000-32767 by default), tracked in memory by owner. */
import { AllocationError } from './allocation-error.js';
import { pickFree, rangeOffset } from './offset-scan.js';

export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

export class NodePortAllocator {
  readonly base: number;
  readonly size: number;
  private readonly owners = new Map<number, string>();
  private readonly offset: number;

  constructor(
    readonly range: string = DEFAULT_SERVICE_NODE_PORT_RANGE,
    private readonly random: () => number = Math.random,
  ) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(range.trim());
    const low = Number(m?.[1]);
    const high = m?.[2] === undefined ? low : Number(m[2]);
    if (!m || high < low || high > 65535) throw new Error(`invalid port range ${JSON.stringify(range)}`);
    this.base = low;
    this.size = high - low + 1;
    this.offset = this.size <= 16 ? 0 : rangeOffset(this.size, 16, 128, 32);
  }

  get used(): number {
    return this.owners.size;
  }

  check(port: number): AllocationError | undefined {
    if (port < this.base || port >= this.base + this.size) {
      return new AllocationError(
        'NotInRange',
        `provided port is not in the valid range. The range of valid ports is ${this.range}`,
      );
    }
    if (this.owners.has(port)) return new AllocationError('Allocated', 'provided port is already allocated');
    return undefined;
  }

  allocate(port: number, owner: string): void {
    const problem = this.check(port);
    if (problem) throw problem;
    this.owners.set(port, owner);
  }

  allocateNext(owner: string, dryRun = false): number {
    const index = pickFree(this.size, this.offset, (i) => this.owners.has(this.base + i), this.random);
    if (index === undefined) throw new AllocationError('Full', 'range is full');
    const port = this.base + index;
    if (!dryRun) this.owners.set(port, owner);
    return port;
  }

  release(port: number): void {
    this.owners.delete(port);
  }

  restore(port: number, owner: string): void {
    if (port >= this.base && port < this.base + this.size && !this.owners.has(port)) this.owners.set(port, owner);
  }

  ownerOf(port: number): string | undefined {
    return this.owners.get(port);
  }
}
