/**
 * The audit backend: the policy, and where events go. Built from --audit-policy-file / --audit-log-* (or
 * startControlPlane's `audit`); without a policy or a log path there is no auditor and the filter is not in the
 * chain at all.
 */
import { type AuditEvent, eventJsonLine, orderedEvent } from './event.js';
import { AuditLogFile } from './log-file.js';
import { loadPolicyFile, type Policy, PolicyEvaluator, validatePolicy } from './policy.js';

export interface AuditOptions {
  /** --audit-policy-file. */
  policyFile?: string;
  /** The policy itself (tests, embedding). */
  policy?: Policy;
  /** --audit-log-path; `-` is standard output. */
  logPath?: string;
  /** --audit-log-maxsize (MB; 0 is lumberjack's 100), --audit-log-maxbackup, --audit-log-maxage (days). */
  maxSize?: number;
  maxBackups?: number;
  maxAge?: number;
  /** --audit-log-compress: gzip rotated files. */
  compress?: boolean;
  /** --audit-log-format: json (default) or legacy. */
  format?: 'json' | 'legacy';
  /** --audit-log-mode: blocking (default here) writes each event before the request goes on; batch buffers. */
  mode?: 'blocking' | 'batch';
  /** Any other place events should go (tests). */
  sink?: (event: AuditEvent) => void;
}

const BATCH_FLUSH_MS = 1000;
const BATCH_MAX = 400;

/** RFC 3339 with the fraction's trailing zeros trimmed, as Go's time.RFC3339Nano. */
function rfc3339Nano(micro: string): string {
  return micro.replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** kube-apiserver's legacy one-line format (--audit-log-format=legacy). */
function legacyLine(ev: AuditEvent): string {
  const q = (s: string) => JSON.stringify(s);
  const quoteAll = (list: string[]) => list.map(q).join(',');
  const username = ev.user.username || '<none>';
  const groups = ev.user.username && ev.user.groups?.length ? quoteAll(ev.user.groups) : '<none>';
  const as = ev.impersonatedUser ? (ev.impersonatedUser.username ?? '') : '<self>';
  const asGroups = ev.impersonatedUser?.groups ? quoteAll(ev.impersonatedUser.groups) : '<lookup>';
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  return `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(ev.verb)} user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} user-agent=${q(ev.userAgent ?? '')} namespace=${q(namespace)} uri=${q(ev.requestURI)} response="${response}"\n`;
}

export class Auditor {
  readonly evaluator: PolicyEvaluator;
  private readonly file: AuditLogFile | undefined;
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: AuditOptions) {
    const policy = opts.policy ? validatePolicy(opts.policy) : loadPolicyFile(opts.policyFile as string);
    this.evaluator = new PolicyEvaluator(policy);
    if (opts.logPath) {
      this.file = new AuditLogFile({
        path: opts.logPath,
        ...(opts.maxSize !== undefined ? { maxSize: opts.maxSize } : {}),
        ...(opts.maxBackups !== undefined ? { maxBackups: opts.maxBackups } : {}),
        ...(opts.maxAge !== undefined ? { maxAge: opts.maxAge } : {}),
        ...(opts.compress ? { compress: true } : {}),
      });
    }
  }

  /** An auditor when the options ask for one: a policy and somewhere to write. */
  static from(opts: AuditOptions | undefined): Auditor | undefined {
    if (!opts || (!opts.policy && !opts.policyFile)) return undefined;
    if (!opts.logPath && !opts.sink) return undefined;
    return new Auditor(opts);
  }

  process(event: AuditEvent): void {
    this.opts.sink?.(orderedEvent(event));
    if (!this.file) return;
    const line = this.opts.format === 'legacy' ? legacyLine(event) : eventJsonLine(event);
    if (this.opts.mode !== 'batch') {
      this.file.write(line);
      return;
    }
    this.pending.push(line);
    if (this.pending.length >= BATCH_MAX) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_FLUSH_MS).unref();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0 || !this.file) return;
    const lines = this.pending;
    this.pending = [];
    // One write per event, as upstream's log backend writes them: rotation falls between events.
    for (const line of lines) this.file.write(line);
  }

  close(): void {
    this.flush();
    this.file?.close();
  }
}
