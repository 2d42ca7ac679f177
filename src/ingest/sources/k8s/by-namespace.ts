// Values keyed by a Kubernetes namespace and name, without building `<namespace>/<name>` keys.

/**
 * Values by namespace, then name: lookups hash the two strings the dump already holds instead of building
 * a `<namespace>/<name>` key each time (a fresh string, hashed once and dropped; ~100,000 of them on issue
 * 14's 50,000-object dump). Keys are what `<namespace>/<name>` was, to the letter: a namespace holding a `/`
 * (a malformed dump) is split at its first one, as that string would have been.
 */
export class ByNamespace<T> {
  private readonly byNamespace = new Map<string, Map<string, T>>();

  get(namespace: string, name: string): T | undefined {
    const slash = namespace.indexOf('/');
    if (slash >= 0) return this.get(namespace.slice(0, slash), `${namespace.slice(slash + 1)}/${name}`);
    return this.byNamespace.get(namespace)?.get(name);
  }

  set(namespace: string, name: string, value: T): void {
    const slash = namespace.indexOf('/');
    if (slash >= 0)
      return this.set(namespace.slice(0, slash), `${namespace.slice(slash + 1)}/${name}`, value);
    let names = this.byNamespace.get(namespace);
    if (!names) this.byNamespace.set(namespace, (names = new Map()));
    names.set(name, value);
  }
}
