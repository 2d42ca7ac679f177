// Flag spelling for the `pathgate` CLI: Go-style single-dash long flags (`-url`) work as well as `--url`.

/** Rewrites `-name` and `-name=value` to `--name` forms; short flags (`-h`) and values are left as they are. */
export function normalizeFlags(args: string[]): string[] {
  return args.map((a) => (/^-[A-Za-z][A-Za-z0-9-]+(=.*)?$/.test(a) ? `-${a}` : a));
}
