// Package doccheck holds no code: its tests keep the repository's
// documentation self-contained. They fail when a comment, README, doc,
// script or manifest cites a specification or a path that lies outside
// the repository, and when a relative link in a Markdown file (or a
// docs/*.md reference in any file) points at a file or heading that does
// not exist.
package doccheck
