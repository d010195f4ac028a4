package doccheck

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// outside are the strings that cite what a reader of the repository does
// not have: the sections of a specification kept outside it, and paths to
// the folder it was kept in. They are spelt in pieces so that this file
// does not match itself.
var outside = []string{
	"SPEC" + " §",
	"(" + "SPEC", // a citation whose § wrapped onto the next line
	"SPEC" + "'s",
	"SPEC" + " section",
	"SPEC" + ".md",
	"../" + "shared",
	"/work/" + "shared",
}

// skipped are the top-level folders the checks leave alone.
var skipped = []string{".git"}

// checked reports whether a file of this name is text the checks read.
func checked(name string) bool {
	switch filepath.Ext(name) {
	case ".go", ".md", ".sh", ".yaml", ".yml", ".py", ".txt", ".js":
		return true
	}
	return name == "Makefile" || name == "Dockerfile"
}

// root returns the module root: the nearest folder above the test's that
// holds go.mod.
func root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// files returns the repository's checked files, slash-separated and
// relative to root, in walk order.
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (slices.Contains(skipped, rel) || d.Name() == ".git") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && checked(d.Name()) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoCitationsOutsideTheRepository fails on every line that cites a
// specification section or a path outside the repository. Definitions
// belong in README.md and docs/ (docs/metrics.md, docs/outputs.md,
// docs/cli.md), in the project's own words; cite those instead.
func TestNoCitationsOutsideTheRepository(t *testing.T) {
	t.Parallel()
	root := root(t)
	for _, rel := range files(t, root) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("SPEC")) && !bytes.Contains(b, []byte("shared")) {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, s := range outside {
				if strings.Contains(line, s) {
					t.Errorf("%s:%d cites %q, which is not in the repository: cite README.md or docs/ instead (docs/metrics.md, docs/outputs.md, docs/cli.md)\n\t%s", rel, i+1, s, strings.TrimSpace(line))
				}
			}
		}
	}
}

var (
	// mdLink is a Markdown inline link or image: ](target) or
	// ](target "title").
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// codeSpan is an inline code span, whose text is not a link.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// docsRef is a path to a page under docs/, as comments and the
	// README name them: relative to the repository's root.
	docsRef = regexp.MustCompile(`(?:^|[^\w/.-])(docs/[\w.-]+\.md)(#[\w-]+)?`)
	// htmlAnchor is an explicit anchor, <a id="x"> or <a name="x">.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	// headingLink is a link inside a heading: its text is what is shown.
	headingLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// anchors returns the anchors of a Markdown file as GitHub renders them:
// each heading's text, lower-cased, without punctuation, spaces made
// hyphens, repeats numbered -1, -2...; plus explicit HTML anchors.
// Headings inside fenced code blocks are not headings.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "":
				fence = ""
			}
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		if fence != "" || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimLeft(line, "#")
		if len(line)-len(text) > 6 || (text != "" && text[0] != ' ' && text[0] != '\t') {
			continue
		}
		slug := slugify(headingLink.ReplaceAllString(strings.TrimSpace(text), "$1"))
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// fenceOf returns the fence a line opens or closes (``` or ~~~, at least
// three), or "".
func fenceOf(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(trimmed, c+c+c) {
			n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// slugify is GitHub's heading anchor: lower case; letters, digits, marks,
// '_', '-' and spaces kept, every other character dropped; spaces become
// hyphens.
func slugify(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// linkChecker resolves links and remembers the anchors of the files it read.
type linkChecker struct {
	t       *testing.T
	root    string
	anchors map[string]map[string]bool // by slash path relative to root
}

// check reports an error when target (a slash path relative to root,
// perhaps with #anchor) does not exist. where names the citing line.
func (c *linkChecker) check(where, target, anchor string) {
	c.t.Helper()
	p := filepath.Join(c.root, filepath.FromSlash(target))
	st, err := os.Stat(p)
	if err != nil {
		c.t.Errorf("%s: %s does not exist", where, target)
		return
	}
	if anchor == "" || st.IsDir() || !strings.HasSuffix(target, ".md") {
		return
	}
	a, ok := c.anchors[target]
	if !ok {
		b, err := os.ReadFile(p)
		if err != nil {
			c.t.Fatal(err)
		}
		a = anchors(string(b))
		c.anchors[target] = a
	}
	if !a[anchor] {
		c.t.Errorf("%s: %s has no heading #%s", where, target, anchor)
	}
}

// TestLinksResolve checks every relative link of the Markdown files, and
// every docs/*.md path named in any checked file, against the files and
// headings that exist.
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	root := root(t)
	c := &linkChecker{t: t, root: root, anchors: map[string]map[string]bool{}}
	for _, rel := range files(t, root) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		md := strings.HasSuffix(rel, ".md")
		fence := ""
		for i, line := range strings.Split(string(b), "\n") {
			where := fmt.Sprintf("%s:%d", rel, i+1)
			if md {
				trimmed := strings.TrimSpace(line)
				if f := fenceOf(trimmed); f != "" {
					switch {
					case fence == "":
						fence = f
					case strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "":
						fence = ""
					}
					continue
				}
				if fence != "" {
					continue
				}
				for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
					target := m[1]
					if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
						continue
					}
					file, anchor, _ := strings.Cut(target, "#")
					if file == "" {
						file = rel
					} else {
						file = path.Join(path.Dir(rel), file)
					}
					c.check(where, file, anchor)
				}
			}
			// A docs/ path named in prose or a comment is relative to
			// the root, as README.md's links are.
			for _, m := range docsRef.FindAllStringSubmatch(line, -1) {
				c.check(where, m[1], strings.TrimPrefix(m[2], "#"))
			}
		}
	}
}

// TestSlugify pins the anchor rule against headings this repository uses.
func TestSlugify(t *testing.T) {
	t.Parallel()
	for heading, want := range map[string]string{
		"run.json":                                              "runjson",
		"Rerunning a peer's load: `run --like`":                 "rerunning-a-peers-load-run---like",
		"`--precision`: levels run to a decision":               "--precision-levels-run-to-a-decision",
		"The thermal gate: `--stabilize WINDOW,BAND[,TIMEOUT]`": "the-thermal-gate---stabilize-windowbandtimeout",
		"Pod energy (Kepler)":                                   "pod-energy-kepler",
		"Cost (CPM)":                                            "cost-cpm",
	} {
		if got := slugify(heading); got != want {
			t.Errorf("slugify(%q) = %q, want %q", heading, got, want)
		}
	}
	a := anchors("# A\n```\n# not a heading\n```\n## A\n<a id=\"x\"></a>\n")
	for _, want := range []string{"a", "a-1", "x"} {
		if !a[want] {
			t.Errorf("anchors: no %q in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Errorf("anchors: a line in a code block was read as a heading")
	}
}
