/**
 * The apiserver's outgoing calls fail in Go's words, since upstream puts its HTTP client's error text in what the
 * client of the apiserver sees (`Post "https://…": dial tcp 127.0.0.1:9443: connect: connection refused`).
 */
import { isIP } from 'node:net';

/** `host:port`, an IPv6 host in brackets, as Go's net.JoinHostPort writes it. */
export function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** What Go's dial and TLS errors say for a Node error code, dialling host:port for servername. */
export function goNetworkError(
  err: NodeJS.ErrnoException,
  target: { host: string; port: number; servername: string },
): string {
  const dial = `dial tcp ${hostPort(target.host, target.port)}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `${dial}: connect: connection refused`;
    case 'ECONNRESET':
      return 'read: connection reset by peer';
    case 'EHOSTUNREACH':
      return `${dial}: connect: no route to host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${target.servername}`;
    default:
      return err.message;
  }
}

/** `Post`, `Get`: the method as Go's url.Error names it. */
export function goMethod(method: string): string {
  return method.charAt(0) + method.slice(1).toLowerCase();
}

/**
 * What client-go says of a non-2xx answer: the message of a Status the server sent, else its generic words (the
 * body quoted for a 5xx that has one).
 */
export function clientGoHttpFailure(statusCode: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; message?: unknown };
    if (parsed && parsed.kind === 'Status' && typeof parsed.message === 'string' && parsed.message !== '') {
      return parsed.message;
    }
  } catch {
    // not a Status: described below
  }
  const text = body.trim();
  if (statusCode >= 500 && text !== '') {
    return `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
  }
  return `the server responded with the status code ${statusCode} but did not return more information`;
}
