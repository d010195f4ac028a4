package main

import (
	"context"
	"encoding/csv"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileServer lists a model whose name starts a spreadsheet formula and
// retitles the terminal, and answers every completion with an
// HTTP 500 whose text clears the screen and overwrites the line.
func hostileServer(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"=HYPERLINK(\"x\")\u001b]0;pwned\u0007","object":"model"}]}`)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "boom\x1b[2J\x1b[H\rALL GOOD \u009b31m\u202eevil")
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestServerTextCannotDriveTheTerminal: a server's model name and error
// text reach stdout, stderr and the output files with every terminal
// control escaped, and no CSV cell starts a formula (issue 25 item 5: title
// changes, screen clears and "\r" overwrites passed through).
func TestServerTextCannotDriveTheTerminal(t *testing.T) {
	t.Parallel()
	url := hostileServer(t)
	dir := t.TempDir()
	_, stdout, stderr := cli(t, context.Background(), "run", "--target", url, "--profile", "synchronous", "--max-requests", "3",
		"--data", "prompt_tokens=4,output_tokens=2", "--energy", "none", "--format", "console,csv,html,json", "--output-dir", dir, "--run-id", "h")
	_, rstdout, rstderr := cli(t, context.Background(), "report", filepath.Join(dir, "h"), "--format", "console")
	unsafe := []string{"\x1b", "\x07", "\r", "\u009b", "\u202e"}
	for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "report stdout": rstdout, "report stderr": rstderr} {
		for _, c := range unsafe {
			if strings.Contains(text, c) {
				t.Errorf("%s holds %q:\n%s", what, c, text)
			}
		}
	}
	if !strings.Contains(stderr, `boom\x1b[2J`) {
		t.Errorf("stderr does not show the error text escaped:\n%s", stderr)
	}
	_ = filepath.WalkDir(filepath.Join(dir, "h"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, "requests.jsonl") && strings.Contains(string(b), "\u009b") {
			t.Errorf("%s holds a raw C1 control", path)
		}
		if strings.HasSuffix(path, ".csv") {
			rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
			if err != nil {
				t.Errorf("%s: %v", path, err)
			}
			for _, row := range rows {
				for _, cell := range row {
					if cell != "" && strings.ContainsRune("=+@", rune(cell[0])) {
						t.Errorf("%s: cell %q starts a formula", path, cell)
					}
				}
			}
		}
		return nil
	})
}
