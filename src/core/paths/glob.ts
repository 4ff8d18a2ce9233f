/**
 * A small glob matcher for protected-path rules (`.env`, `secrets/**`, `*.pem`). `*` and `?` stay inside one path
 * segment, `**` crosses segments. A pattern without a slash matches the basename at any depth (like .gitignore).
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function matchesGlob(relativePath: string, glob: string): boolean {
  const normalized = glob.replace(/^\.\//, '').replace(/\/$/, '');
  const re = globToRegExp(normalized);
  if (re.test(relativePath)) return true;
  // `dir/**` also protects `dir` itself: renaming or deleting the folder changes everything the rule protects.
  if (normalized.endsWith('/**') && globToRegExp(normalized.slice(0, -3)).test(relativePath)) return true;
  // A folder pattern protects what is inside it.
  if (globToRegExp(`${normalized}/**`).test(relativePath)) return true;
  if (!normalized.includes('/')) return relativePath.split('/').some((segment) => re.test(segment));
  return false;
}
