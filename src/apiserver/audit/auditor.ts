/**
 * The audit backend: the policy, and where events go. Built from --audit-policy-file / --audit-log-* (or
 * startControlPlane's `audit`); without a policy or a log path there is no auditor and the filter is not in the
 * chain at all.
 */
import type { AuditEvent } from './event.js';
import { AuditLogFile } from './log-file.js';
import { loadPolicyFile, type Policy, PolicyEvaluator, validatePolicy } from './policy.js';

export interface AuditOptions {
  /** --audit-policy-file. */
  policyFile?: string;
  /** The policy itself (tests, embedding). */
  policy?: Policy;
  /** --audit-log-path; `-` is standard output. */
  logPath?: string;
  /** --audit-log-maxsize (MB), --audit-log-maxbackup, --audit-log-maxage (days). */
  maxSize?: number;
  maxBackups?: number;
  maxAge?: number;
  /** --audit-log-format: json (default) or legacy. */
  format?: 'json' | 'legacy';
  /** --audit-log-mode: blocking (default here) writes each event before the request goes on; batch buffers. */
  mode?: 'blocking' | 'batch';
  /** Any other place events should go (tests). */
  sink?: (event: AuditEvent) => void;
}

const BATCH_FLUSH_MS = 1000;
const BATCH_MAX = 400;

/** One line of the legacy format: time AUDIT: id="…" stage="…" ip="…" method="…" user="…" … uri="…". */
function legacyLine(ev: AuditEvent): string {
  const q = (s: string | undefined) => JSON.stringify(s ?? '');
  const ns = ev.objectRef?.namespace ? ev.objectRef.namespace : '<none>';
  const groups = ev.user.groups?.map((g) => JSON.stringify(g)).join(',') ?? '';
  const base = `${ev.stageTimestamp} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ev.sourceIPs?.[0])} method=${q(ev.verb)} user=${q(ev.user.username)} groups=${q(groups)} as=${q(ev.impersonatedUser?.username ?? '<self>')} asgroups=${q(ev.impersonatedUser?.groups?.join(',') ?? '<lookup>')} user-agent=${q(ev.userAgent)} namespace=${ns} uri=${q(ev.requestURI)}`;
  const code = ev.responseStatus?.code;
  return ev.stage === 'RequestReceived' ? `${base}\n` : `${base} response="${code ?? '<deferred>'}"\n`;
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
    this.opts.sink?.(event);
    if (!this.file) return;
    const line = this.opts.format === 'legacy' ? legacyLine(event) : `${JSON.stringify(event)}\n`;
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
    const lines = this.pending.join('');
    this.pending = [];
    this.file.write(lines);
  }

  close(): void {
    this.flush();
    this.file?.close();
  }
}
