// Command image writes gollm-bench's container image from static binaries,
// with no container daemon and no network: no base image is pulled, the
// image is an empty base plus one layer built here. `make image` runs it.
//
//	go run ./deploy/image -o bin/image -tag ghcr.io/gollm-bench/gollm-bench:v0.1.0 \
//	    -version v0.1.0 -revision e7a34af6c1d2 -created 2026-06-16T12:00:00Z \
//	    -binary linux/amd64=bin/static/linux/amd64/gollm-bench [-binary linux/arm64=...] \
//	    [-tarball bin/gollm-bench-image.tar]
//
// The layer holds the binary as /usr/local/bin/gollm-bench (the
// entrypoint), the CA certificates for HTTPS targets at
// /etc/ssl/certs/ca-certificates.crt (copied from -ca-certs, by default the
// build machine's bundle), /etc/nsswitch.conf (hosts: files dns),
// /etc/passwd and /etc/group with the user nonroot
// (65532), its home /home/nonroot (the working directory, where results/
// goes by default) and /tmp. The image runs as 65532:65532 and carries the
// OCI labels org.opencontainers.image.{title,description,version,revision,
// created,source,licenses}. Every file's time is -created, so the same
// inputs give the same digests.
//
// -o writes an OCI image layout (replacing the directory): its index.json
// holds one image index, tagged -tag (annotation
// org.opencontainers.image.ref.name), with one image per -binary. -tarball
// also writes the first platform's image as a `docker load` tarball.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Paths and identity inside the image.
const (
	binaryPath = "/usr/local/bin/gollm-bench"
	certsPath  = "/etc/ssl/certs/ca-certificates.crt"
	homeDir    = "/home/nonroot"
	user       = "65532:65532"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// spec is what one invocation builds.
type spec struct {
	out, tarball, tag         string
	version, revision, source string
	caCerts                   string
	created                   time.Time
	binaries                  []platformBinary
}

type platformBinary struct {
	platform v1.Platform
	path     string
}

// binaryFlags collects repeated -binary OS/ARCH=PATH values.
type binaryFlags []platformBinary

func (b *binaryFlags) String() string { return "" }

func (b *binaryFlags) Set(s string) error {
	plat, path, ok := strings.Cut(s, "=")
	goos, arch, ok2 := strings.Cut(plat, "/")
	if !ok || !ok2 || goos == "" || arch == "" || path == "" {
		return fmt.Errorf("want OS/ARCH=PATH, e.g. linux/amd64=bin/static/linux/amd64/gollm-bench")
	}
	*b = append(*b, platformBinary{platform: v1.Platform{OS: goos, Architecture: arch}, path: path})
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s spec
	var bins binaryFlags
	var created string
	fs.StringVar(&s.out, "o", "bin/image", "OCI image layout directory to write (replaced)")
	fs.StringVar(&s.tarball, "tarball", "", "also write the first platform's image as a `docker load` tarball here")
	fs.StringVar(&s.tag, "tag", "ghcr.io/gollm-bench/gollm-bench:dev", "image reference the layout and tarball are tagged with")
	fs.StringVar(&s.version, "version", "dev", "label org.opencontainers.image.version")
	fs.StringVar(&s.revision, "revision", "", "label org.opencontainers.image.revision: the git commit")
	fs.StringVar(&s.source, "source", "https://github.com/gollm-bench/gollm-bench", "label org.opencontainers.image.source")
	fs.StringVar(&s.caCerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "CA bundle (PEM) to put in the image, for HTTPS targets")
	fs.StringVar(&created, "created", "", "image creation time and every file's time, RFC 3339 (e.g. the commit's time); default 1970-01-01T00:00:00Z")
	fs.Var(&bins, "binary", "OS/ARCH=PATH of a static gollm-bench binary; repeat for more platforms")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s.binaries = bins
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0)))
	}
	if len(s.binaries) == 0 {
		errs = append(errs, errors.New("-binary: at least one OS/ARCH=PATH is needed, e.g. -binary linux/amd64=bin/static/linux/amd64/gollm-bench"))
	}
	if _, err := name.NewTag(s.tag); err != nil {
		errs = append(errs, fmt.Errorf("-tag %q: %w", s.tag, err))
	}
	s.created = time.Unix(0, 0).UTC()
	if created != "" {
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			errs = append(errs, fmt.Errorf("-created %q: want RFC 3339, e.g. 2026-06-16T12:00:00Z", created))
		}
		s.created = t.UTC()
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(stderr, "image: %v\n", err)
		return 2
	}
	digest, err := build(s)
	if err != nil {
		fmt.Fprintf(stderr, "image: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s %s\n", s.out, s.tag, digest)
	if s.tarball != "" {
		fmt.Fprintf(stdout, "%s: %s (%s, for docker load)\n", s.tarball, s.tag, s.binaries[0].platform)
	}
	return 0
}

// build writes the layout (and the tarball) and returns the index digest.
func build(s spec) (v1.Hash, error) {
	certs, err := os.ReadFile(s.caCerts)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("-ca-certs: %w (give the build machine's CA bundle, e.g. -ca-certs /etc/pki/tls/certs/ca-bundle.crt)", err)
	}
	var idx v1.ImageIndex = empty.Index
	idx = mutate.IndexMediaType(idx, types.OCIImageIndex)
	var first v1.Image
	for _, b := range s.binaries {
		bin, err := os.ReadFile(b.path)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("-binary %s: %w (build it first: make image builds it)", b.platform, err)
		}
		img, err := image(s, b.platform, bin, certs)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("%s: %w", b.platform, err)
		}
		if first == nil {
			first = img
		}
		p := b.platform
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	if err := removeLayout(s.out); err != nil {
		return v1.Hash{}, err
	}
	lp, err := layout.Write(s.out, empty.Index)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("writing the OCI layout: %w", err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": s.tag})); err != nil {
		return v1.Hash{}, fmt.Errorf("writing the OCI layout: %w", err)
	}
	if s.tarball != "" {
		tag, _ := name.NewTag(s.tag) // checked in run
		if err := tarball.WriteToFile(s.tarball, tag, first); err != nil {
			return v1.Hash{}, fmt.Errorf("-tarball: %w", err)
		}
	}
	return idx.Digest()
}

// removeLayout removes dir if it is an OCI layout or empty, and refuses
// anything else, so that a mistyped -o cannot delete a source tree.
func removeLayout(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
			return fmt.Errorf("-o %s: not empty and not an OCI layout (no oci-layout file): refusing to replace it", dir)
		}
	}
	return os.RemoveAll(dir)
}

// image is one platform's image: an empty base, one layer, the config.
func image(s spec, p v1.Platform, bin, certs []byte) (v1.Image, error) {
	files, err := rootfs(s.created, bin, certs)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Variant = p.OS, p.Architecture, p.Variant
	cfg.Created = v1.Time{Time: s.created}
	cfg.Author = "gollm-bench"
	cfg.Config = v1.Config{
		Entrypoint: []string{binaryPath},
		User:       user,
		WorkingDir: homeDir,
		Env: []string{
			"PATH=/usr/local/bin:/usr/bin:/bin",
			"SSL_CERT_FILE=" + certsPath,
			"HOME=" + homeDir,
		},
		Labels: labels(s),
	}
	cfg.History = []v1.History{{Created: v1.Time{Time: s.created}, CreatedBy: "gollm-bench deploy/image (static binary, CA certificates, user 65532)"}}
	return mutate.ConfigFile(img, cfg)
}

// labels are the OCI annotations keys, as image labels.
func labels(s spec) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       "gollm-bench",
		"org.opencontainers.image.description": "Benchmark harness for OpenAI-compatible LLM inference servers: knee, goodput, energy, auditable scorecards",
		"org.opencontainers.image.version":     s.version,
		"org.opencontainers.image.created":     s.created.Format(time.RFC3339),
		"org.opencontainers.image.source":      s.source,
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
	if s.revision != "" {
		l["org.opencontainers.image.revision"] = s.revision
	}
	return l
}

// rootfs is the layer's tar: directories first, every entry owned by root
// except the home directory, every time set to created.
func rootfs(created time.Time, bin, certs []byte) ([]byte, error) {
	const (
		passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
		group  = "root:x:0:\nnonroot:x:65532:\n"
		// Go's resolver reads it: /etc/hosts (which Kubernetes mounts) first.
		nsswitch = "hosts: files dns\n"
	)
	entries := []struct {
		name  string
		mode  int64
		uid   int
		data  []byte
		isDir bool
	}{
		{name: "etc/", mode: 0o755, isDir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/nsswitch.conf", mode: 0o644, data: []byte(nsswitch)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, isDir: true},
		{name: "etc/ssl/certs/", mode: 0o755, isDir: true},
		{name: strings.TrimPrefix(certsPath, "/"), mode: 0o644, data: certs},
		{name: "home/", mode: 0o755, isDir: true},
		{name: strings.TrimPrefix(homeDir, "/") + "/", mode: 0o700, uid: 65532, isDir: true},
		{name: "tmp/", mode: 0o1777, isDir: true},
		{name: "usr/", mode: 0o755, isDir: true},
		{name: "usr/local/", mode: 0o755, isDir: true},
		{name: "usr/local/bin/", mode: 0o755, isDir: true},
		{name: strings.TrimPrefix(binaryPath, "/"), mode: 0o755, data: bin},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: created, Format: tar.FormatPAX, Typeflag: tar.TypeReg, Size: int64(len(e.data))}
		if e.isDir {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
