package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	testTag     = "ghcr.io/gollm-bench/gollm-bench:v0.1.0"
	testVersion = "v0.1.0"
	testCommit  = "e7a34af6c1d2"
	testCreated = "2026-06-16T12:00:00Z"
)

// staticBinary builds gollm-bench as `make image` does: CGO_ENABLED=0,
// -tags nonvml, the version and commit stamped by the linker.
func staticBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gollm-bench")
	cmd := exec.Command("go", "build", "-tags", "nonvml", "-trimpath",
		"-ldflags", "-s -w -X main.version="+testVersion+" -X main.commit="+testCommit,
		"-o", bin, "../../cmd/gollm-bench")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestImageLayout(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	bin := staticBinary(t)
	dir := t.TempDir()
	out, tarPath := filepath.Join(dir, "image"), filepath.Join(dir, "image.tar")
	certs := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(certs, []byte("-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-o", out, "-tarball", tarPath, "-tag", testTag, "-version", testVersion, "-revision", testCommit,
		"-created", testCreated, "-ca-certs", certs, "-binary", "linux/" + runtime.GOARCH + "=" + bin}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}

	// index.json: one image index, tagged, with one image for the platform.
	root, err := layout.ImageIndexFromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	rm, err := root.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(rm.Manifests) != 1 || rm.Manifests[0].MediaType != types.OCIImageIndex ||
		rm.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != testTag {
		t.Fatalf("index.json = %+v", rm.Manifests)
	}
	if !strings.Contains(stdout.String(), rm.Manifests[0].Digest.String()) {
		t.Errorf("stdout %q does not name the digest %s", stdout.String(), rm.Manifests[0].Digest)
	}
	idx, err := root.ImageIndex(rm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	want := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	if len(im.Manifests) != 1 || im.Manifests[0].Platform == nil || !im.Manifests[0].Platform.Equals(want) {
		t.Fatalf("image index = %+v", im.Manifests)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}

	// The config: entrypoint, user, labels.
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{"/usr/local/bin/gollm-bench"}) || cfg.Config.User != "65532:65532" ||
		cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH || cfg.Created.UTC().Format("2006-01-02T15:04:05Z") != testCreated {
		t.Errorf("config = %+v", cfg)
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version":  testVersion,
		"org.opencontainers.image.revision": testCommit,
		"org.opencontainers.image.created":  testCreated,
		"org.opencontainers.image.source":   "https://github.com/gollm-bench/gollm-bench",
		"org.opencontainers.image.title":    "gollm-bench",
	} {
		if got := cfg.Config.Labels[k]; got != v {
			t.Errorf("label %s = %q, want %q", k, got, v)
		}
	}
	if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s", mt)
	}

	// The files: what they are, whose, and the binary itself.
	files := extract(t, img)
	for path, mode := range map[string]int64{
		"usr/local/bin/gollm-bench":         0o755,
		"etc/ssl/certs/ca-certificates.crt": 0o644,
		"etc/passwd":                        0o644,
		"etc/group":                         0o644,
		"etc/nsswitch.conf":                 0o644,
		"home/nonroot":                      0o700,
		"tmp":                               0o1777,
	} {
		f, ok := files[path]
		if !ok {
			t.Errorf("%s missing from the layer", path)
			continue
		}
		if f.hdr.Mode != mode || !f.hdr.ModTime.Equal(cfg.Created.Time) {
			t.Errorf("%s: mode %o time %v", path, f.hdr.Mode, f.hdr.ModTime)
		}
	}
	if !strings.Contains(string(files["etc/passwd"].data), "nonroot:x:65532:65532:") || files["home/nonroot"].hdr.Uid != 65532 {
		t.Error("user 65532 is not in /etc/passwd or does not own its home")
	}
	if string(files["etc/ssl/certs/ca-certificates.crt"].data) != "-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n" {
		t.Error("the CA bundle is not the one given")
	}
	exe := filepath.Join(t.TempDir(), "gollm-bench")
	if err := os.WriteFile(exe, files["usr/local/bin/gollm-bench"].data, 0o755); err != nil {
		t.Fatal(err)
	}
	// The base is empty: the binary must need no dynamic loader.
	ef, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the image's binary is dynamically linked: it cannot run on an empty base")
		}
	}
	ef.Close()
	if runtime.GOOS == "linux" {
		got, err := exec.Command(exe, "version").CombinedOutput()
		if err != nil {
			t.Fatalf("version: %v\n%s", err, got)
		}
		for _, want := range []string{"gollm-bench " + testVersion + "\n", "commit: " + testCommit + "\n", "nvml:   not available: NVML not in this build"} {
			if !strings.Contains(string(got), want) {
				t.Errorf("version output lacks %q:\n%s", want, got)
			}
		}
	}

	// The docker-load tarball holds the same image (config and layer; a
	// docker tarball has no manifest of its own), tagged.
	tag, _ := name.NewTag(testTag)
	timg, err := tarball.ImageFromPath(tarPath, &tag)
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := img.ConfigName()
	c2, _ := timg.ConfigName()
	l1, _ := img.Layers()
	l2, _ := timg.Layers()
	if c1 != c2 || len(l1) != 1 || len(l2) != 1 {
		t.Fatalf("tarball config %s (%d layers), layout config %s (%d layers)", c2, len(l2), c1, len(l1))
	}
	ld1, _ := l1[0].Digest()
	ld2, _ := l2[0].Digest()
	if ld1 != ld2 {
		t.Errorf("tarball layer %s, layout layer %s", ld2, ld1)
	}

	// Same inputs, same digest.
	out2 := filepath.Join(dir, "image2")
	args[1] = out2
	args[3] = filepath.Join(dir, "image2.tar")
	if code := run(args, io.Discard, &stderr); code != 0 {
		t.Fatalf("second build: exit %d: %s", code, stderr.String())
	}
	again, err := layout.ImageIndexFromPath(out2)
	if err != nil {
		t.Fatal(err)
	}
	am, _ := again.IndexManifest()
	if am.Manifests[0].Digest != rm.Manifests[0].Digest {
		t.Errorf("rebuild gave %s, first build %s: not reproducible", am.Manifests[0].Digest, rm.Manifests[0].Digest)
	}
}

type file struct {
	hdr  *tar.Header
	data []byte
}

func extract(t *testing.T, img v1.Image) map[string]file {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	files := map[string]file{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = file{hdr: h, data: b}
	}
}

func TestBadFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{nil, "-binary: at least one OS/ARCH=PATH is needed"},
		{[]string{"-binary", "gollm-bench"}, "want OS/ARCH=PATH"},
		{[]string{"-binary", "linux/amd64=x", "-tag", "Not A Tag"}, `-tag "Not A Tag"`},
		{[]string{"-binary", "linux/amd64=x", "-created", "yesterday"}, `-created "yesterday": want RFC 3339`},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		if code := run(tt.args, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("run(%q) = %d, %q; want exit 2 with %q", tt.args, code, stderr.String(), tt.want)
		}
	}
	// -o never replaces what is not an image layout.
	var stderr2 bytes.Buffer
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "gollm-bench")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	certs := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(certs, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code := run([]string{"-o", src, "-ca-certs", certs, "-binary", "linux/amd64=" + bin}, io.Discard, &stderr2)
	if _, err := os.Stat(filepath.Join(src, "main.go")); code != 1 || err != nil || !strings.Contains(stderr2.String(), "not an OCI layout") {
		t.Errorf("-o over a source folder: exit %d, %q, main.go: %v", code, stderr2.String(), err)
	}

	// A missing binary is a runtime failure that says how to get it.
	var stderr bytes.Buffer
	code = run([]string{"-o", filepath.Join(t.TempDir(), "img"), "-ca-certs", certs, "-binary", "linux/amd64=/nonexistent/gollm-bench"}, io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "-binary linux/amd64: open /nonexistent/gollm-bench") {
		t.Errorf("missing binary: exit %d, %q", code, stderr.String())
	}
}
