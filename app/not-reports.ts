// Files `pathgate ingestreal` does not read, by name: source code, documentation and build files, which no
// tool writes a report as. Read as YAML, each would only yield a parser's complaint, one line per file, in a
// repository's tree. Terraform configuration (HCL) is named apart: Terraform is read from `terraform show
// -json`. Anything else is read by its content, whatever its name (a report named `.txt` included).

const words = (text: string) => new Set(text.trim().split(/\s+/));

const SOURCE_AND_DOCS = words(`
  md markdown rst adoc asciidoc html htm css scss sass less
  sh bash zsh fish ps1 bat cmd py pyi rb pl php go rs java kt kts scala groovy gradle js mjs cjs jsx ts mts
  cts tsx vue svelte c h cc cpp cxx hpp cs fs swift m lua r ex exs erl clj dart sql proto tpl gotmpl j2 jinja
  mk cmake
  toml ini cfg conf properties env editorconfig gitignore dockerignore lock sum mod
`);
const TERRAFORM_HCL = words('tf tfvars hcl');
const TABLES = words('csv tsv');
const BUILD_FILES = words('Dockerfile Containerfile Makefile Jenkinsfile Vagrantfile LICENSE NOTICE');

/** Why a file is not read by its name, as the kind of file it is; undefined when it is to be read. */
export function notAReportByName(file: string): string | undefined {
  const base = file.split(/[\\/]/).pop() ?? file;
  if (BUILD_FILES.has(base) || base.startsWith('Dockerfile.')) return 'build files';
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (TERRAFORM_HCL.has(extension))
    return 'Terraform configuration (send `terraform show -json` of a plan or state)';
  if (SOURCE_AND_DOCS.has(extension)) return 'source code and documentation';
  // No source reads a table; KEV and EPSS tables are threat intel, loaded by `pathgate intel`.
  if (TABLES.has(extension)) return 'tables (threat intel is loaded with `pathgate intel <file>`)';
  return undefined;
}

/** What was skipped by name, as one line: counts by kind, the extensions seen. */
export class SkippedByName {
  private readonly byKind = new Map<string, Map<string, number>>();
  count = 0;

  add(file: string, kind: string): void {
    const base = file.split(/[\\/]/).pop() ?? file;
    const dot = base.lastIndexOf('.');
    const shown = dot > 0 ? `.${base.slice(dot + 1).toLowerCase()}` : base;
    const kinds = this.byKind.get(kind) ?? new Map<string, number>();
    kinds.set(shown, (kinds.get(shown) ?? 0) + 1);
    this.byKind.set(kind, kinds);
    this.count++;
  }

  /** `12 file(s) not read as reports: source code and documentation (9 .md, 3 .sh); ...`, or undefined. */
  line(): string | undefined {
    if (!this.count) return undefined;
    const parts = [...this.byKind].map(
      ([kind, names]) =>
        `${kind} (${[...names]
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .map(([name, n]) => `${n} ${name}`)
          .join(', ')})`,
    );
    return `${this.count} file(s) not read as reports: ${parts.join('; ')}`;
  }
}
