/**
 * ClusterIP allocation from one service CIDR. Addresses are tracked in memory by owner; the registry fills the
 * tracker from the stored Services when it starts, so the stored Services remain the only record.
 */
import { AllocationError } from './allocation-error.js';
import { cidrContains, formatAddress, type ParsedIP, parseIP, parseServiceCIDR, type ServiceCIDR } from './ip-range.js';
import { pickFree, rangeOffset } from './offset-scan.js';

export class ClusterIPAllocator {
  readonly cidr: ServiceCIDR;
  private readonly owners = new Map<bigint, string>();
  private readonly offset: number;

  constructor(
    cidr: string,
    private readonly random: () => number = Math.random,
  ) {
    this.cidr = parseServiceCIDR(cidr);
    const span = this.cidr.span > 1n << 30n ? 1 << 30 : Number(this.cidr.span);
    this.offset = rangeOffset(span, 16, 256, 16);
  }

  get family() {
    return this.cidr.family;
  }

  /** The first address of the range, which the `kubernetes` Service in `default` holds. */
  get apiServerIP(): string {
    return formatAddress(this.cidr.first, this.cidr.family);
  }

  get used(): number {
    return this.owners.size;
  }

  /** Why `ip` cannot be allocated now, or undefined when it can. */
  check(ip: string): AllocationError | undefined {
    const parsed = parseIP(ip);
    if (!parsed || !cidrContains(this.cidr, parsed)) {
      return new AllocationError('MismatchedNetwork', 'the provided network does not match the current range');
    }
    if (!this.inRange(parsed)) {
      return new AllocationError(
        'NotInRange',
        `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr.text}`,
      );
    }
    if (this.owners.has(parsed.value)) return new AllocationError('Allocated', 'provided IP is already allocated');
    return undefined;
  }

  /** Reserves a requested address for `owner`; throws AllocationError when it cannot. */
  allocate(ip: string, owner: string): void {
    const problem = this.check(ip);
    if (problem) throw problem;
    this.owners.set(parseIP(ip)?.value ?? 0n, owner);
  }

  /** Picks a free address (reserving it unless `dryRun`); throws AllocationError('Full') when there is none. */
  allocateNext(owner: string, dryRun = false): string {
    const { first, size } = this.cidr;
    const index = pickFree(size, this.offset, (i) => this.owners.has(first + BigInt(i)), this.random);
    if (index === undefined) throw new AllocationError('Full', 'range is full');
    const value = first + BigInt(index);
    if (!dryRun) this.owners.set(value, owner);
    return formatAddress(value, this.cidr.family);
  }

  /** Gives an address back; addresses outside the range or not held are ignored. */
  release(ip: string): void {
    const parsed = parseIP(ip);
    if (parsed && parsed.family === this.cidr.family) this.owners.delete(parsed.value);
  }

  /** Records an address found in storage, whoever held it first keeping it. */
  restore(ip: string, owner: string): void {
    const parsed = parseIP(ip);
    if (parsed && this.inRange(parsed) && !this.owners.has(parsed.value)) this.owners.set(parsed.value, owner);
  }

  ownerOf(ip: string): string | undefined {
    const parsed = parseIP(ip);
    return parsed ? this.owners.get(parsed.value) : undefined;
  }

  private inRange(ip: ParsedIP): boolean {
    return (
      ip.family === this.cidr.family &&
      ip.value >= this.cidr.first &&
      ip.value < this.cidr.first + BigInt(this.cidr.size)
    );
  }
}
