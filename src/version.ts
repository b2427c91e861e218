import { createRequire } from 'node:module';

interface PackageJson {
  readonly version: string;
  readonly repository: { readonly url: string };
}

// package.json sits one level above src/ and dist/ alike.
const packageJson = createRequire(import.meta.url)('../package.json') as PackageJson;

/** The package version. */
export const VERSION: string = packageJson.version;

/** The repository's web address (package.json `repository`, without `git+` and `.git`). */
export const REPOSITORY_URL: string = packageJson.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/** Where a rule's documentation page is published: `docs/rules/<id>.md` of the repository. */
export function ruleDocsUrl(id: string): string {
  return `${REPOSITORY_URL}/blob/main/docs/rules/${id}.md`;
}
