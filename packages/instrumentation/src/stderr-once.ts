/**
 * A setting's value as a message may show it: quoted when it looks like a setting (at most 24
 * lowercase letters, digits and `/_.,+-`, as every valid value is), else not at all — a value pasted
 * into the wrong variable may be a secret, and secrets are longer or mixed-case.
 */
export function shown(value: string): string {
  return /^[a-z0-9/_.,+-]{1,24}$/.test(value) ? JSON.stringify(value) : '(a value that is not a name)';
}

const warned = new Set<string>();

/** Writes `message` on stderr, where a developer sees it (the diag logger is silent by default), once. */
export function stderrOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`${message}\n`);
}
