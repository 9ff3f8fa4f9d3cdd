/**
 * Secrets (access tokens, API keys) are registered here as soon as they are read, and every
 * line the tool writes passes through `redact`, so a secret cannot leak through a message
 * that happened to quote it (an echoed header, a URL, a remote error body).
 */
const secrets = new Set<string>();

/** Values shorter than this are too likely to occur by chance to be masked safely. */
const MIN_SECRET_LENGTH = 6;

export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[REDACTED]');
  return out;
}
