# gollm-bench: build, test, benchmark, demo. `make help` lists the targets.
GO       ?= go
BIN      ?= bin/gollm-bench
PKGS     ?= ./...
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The commit as Go's own VCS stamp spells it (12 hex digits, "-dirty" when
# the tree has changes), passed to the linker so that a binary knows it even
# where GOFLAGS=-buildvcs=false turns Go's stamp off. Empty outside a git
# checkout: the binary then says "unknown" rather than invent one.
COMMIT   ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git status --porcelain 2>/dev/null | grep -q . && echo -dirty)
LDFLAGS  := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME ?= 2000x
# staticcheck, pinned: `go run pkg@version` fetches it through the Go module
# proxy once (then the module cache) and builds it with this toolchain.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Fuzz targets run this many at a time, each with one worker (-parallel 1).
FUZZJOBS ?= 2
# make image: the platforms, the tag, and the time written into the image
# (the commit's, so that the same commit gives the same image digest).
PLATFORMS ?= linux/$(shell $(GO) env GOARCH)
IMAGE     ?= ghcr.io/gollm-bench/gollm-bench:$(VERSION)
CREATED   ?= $(shell git log -1 --format=%cI 2>/dev/null)

.PHONY: help build build-static image cross test vet race timing norace fuzz-smoke golden bench demo clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

build: ## bin/gollm-bench: CGO_ENABLED=0, NVML loaded at run time (links libc dynamically; see README)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/gollm-bench

build-static: ## bin/gollm-bench-static: fully static, without NVML (-tags nonvml), for musl systems and empty images
	CGO_ENABLED=0 $(GO) build -tags nonvml -trimpath -ldflags '$(LDFLAGS)' -o bin/gollm-bench-static ./cmd/gollm-bench

# No daemon, no network, no base image: deploy/image writes the layers itself.
image: ## OCI image ghcr.io/gollm-bench/gollm-bench:VERSION (IMAGE=...): bin/image (OCI layout) and bin/gollm-bench-image.tar (docker load); PLATFORMS="linux/amd64 linux/arm64" for more
	@set -e; for p in $(PLATFORMS); do \
	  echo "build $$p (static, -tags nonvml)"; \
	  CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -tags nonvml -trimpath -ldflags '$(LDFLAGS)' -o bin/static/$$p/gollm-bench ./cmd/gollm-bench; \
	done
	$(GO) run ./deploy/image -o bin/image -tarball bin/gollm-bench-image.tar -tag '$(IMAGE)' \
	  -version '$(VERSION)' -revision '$(COMMIT)' $(if $(CREATED),-created '$(CREATED)') \
	  $(foreach p,$(PLATFORMS),-binary $(p)=bin/static/$(p)/gollm-bench)

cross: ## the CGO_ENABLED=0 build compiles for linux/arm64, darwin and windows (slow the first time)
	@set -e; for p in linux/arm64 darwin/amd64 darwin/arm64 windows/amd64; do \
	  echo "build $$p"; CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build $(PKGS); \
	done

test: vet race timing norace fuzz-smoke ## vet + race tests + timing tests + the tests the race run skips + a short fuzz smoke (what CI runs)

vet: ## go vet, staticcheck (pinned), default and hftokenizers builds, cgo-free builds (Linux, macOS, Windows: the fallbacks compile), NVML's dlopen path without cgo, and the docs check (no citation outside the repository, every relative link resolves)
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)
	$(GO) test -count=1 ./internal/doccheck
	$(GO) vet -tags hftokenizers $(PKGS)
	CGO_ENABLED=0 $(GO) build $(PKGS)
	CGO_ENABLED=0 GOOS=darwin $(GO) build $(PKGS)
	CGO_ENABLED=0 GOOS=windows $(GO) build $(PKGS)
	CGO_ENABLED=0 $(GO) build -tags nonvml $(PKGS)
	CGO_ENABLED=0 $(GO) test -count=1 ./energy/nvml

# deploy/kubernetes renders and decodes manifests with kustomize and the
# Kubernetes API types: no goroutine of ours, and compiling k8s.io/api with
# the race detector costs more than all our race tests; norace runs it.
NORACE_ONLY = ./deploy/kubernetes
RACE_PKGS   = $(filter-out $(addprefix $(shell $(GO) list -m)/,$(NORACE_ONLY:./%=%)),$(shell $(GO) list $(PKGS)))

# The command's tests whose time is the Qwen3 tokenizer: its 151,643-token
# vocabulary parsed, and prompts fitted to it, in one goroutine, which the
# race detector slows about eight times over (3.6 s a load against 0.47 s).
# They were half of the race run's time. race skips them and norace runs
# them, so each still runs once; the race-prone paths they pass through
# (the level, the sweep) are under the detector in the other tests.
TOKENIZER_CMD_TESTS = ^(TestTokenizer(Omitted|KeywordAndFile|ServerRefused)|TestRunChat|TestServerCount(DisagreesWithUsage|SpreadBelowFloor)|TestSessions(AgainstMock|TTFTFallsWithPrefixCache))

race: ## all tests under the race detector but deploy/kubernetes and the command's tokenizer-bound tests (wall-clock timing tests and CPU-heavy single-goroutine checks skip there: see timing, norace)
	$(GO) test -race -count=1 -skip '$(TOKENIZER_CMD_TESTS)' $(RACE_PKGS)

# -p 1: one package at a time, so that no other test loads the machine.
timing: ## the wall-clock tests (timing truth, the knee against the mock, loadtest's sweep example, the client's health on a full disk, a precision-driven stop), without the race detector
	$(GO) test -p 1 -count=1 -run 'TestTimingTruth|TestSweepBracketsMockKnee|TestFullDiskKeepsPartial|TestPrecisionStopsALevelOnceMet|Example_sweep' ./harness ./cmd/gollm-bench ./loadtest

# The packages with tests that call skipUnderRace: CPU-heavy checks that run
# in one goroutine (tokenizer conformance, the statistics' coverage) or
# spend their time in gzip and SHA-256 (the image), which the race detector
# slows several times over and has nothing of ours to find in.
# (tokenize's Example, built only without the detector, is in one of them.)
NORACE_PKGS = $(sort $(dir $(shell grep -l skipUnderRace $$(find . -name '*_test.go'))) $(NORACE_ONLY))

norace: ## the tests that skip under the race detector (skipUnderRace, TOKENIZER_CMD_TESTS), without it
	$(GO) test -count=1 $(NORACE_PKGS)
	$(GO) test -count=1 -run '$(TOKENIZER_CMD_TESTS)' ./cmd/gollm-bench

# Each fuzz target runs for FUZZTIME; `go test -fuzz` takes one target per call.
# FUZZTIME is a count of executions, not a duration: when a duration runs out
# while the fuzzer is minimising a new input, `go test` can fail with "context
# deadline exceeded" though nothing is wrong, which made the smoke flaky; and
# minimising each new interesting input (up to 60 s by default) is capped.
# That cap is also what the expfmt-based targets (prom's FuzzParseText and the
# readers built on it, energy's FuzzReadDCGM and enginemetrics' FuzzParse)
# needed: their worker looked stalled while it minimised. Each
# target is mostly the link of its test binary and one worker, so two at a
# time keep two cores busy; a failure prints the target's output and stops
# the smoke (exit 255 ends xargs).
fuzz-smoke: ## every native fuzz target, briefly, FUZZJOBS at a time
	@for pkg in $$($(GO) list $(PKGS)); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for target in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //'); do \
	    echo "$$pkg $$target"; \
	  done; \
	done | xargs -P $(FUZZJOBS) -L 1 sh -c 'echo "fuzz $$0 $$1"; \
	  out=$$($(GO) test -run "^\$$" -fuzz "^$$1\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10x -parallel 1 "$$0" 2>&1) || { echo "$$out"; exit 255; }'

# The packages whose tests keep golden files are those that import
# internal/golden, which defines -update; a test binary without that flag
# refuses it, so `go test ./... -update` also fails in every other package.
GOLDEN_PKGS = $(shell $(GO) list -f '{{range .TestImports}}{{if eq . "github.com/gollm-bench/gollm-bench/internal/golden"}}{{$$.ImportPath}} {{end}}{{end}}' $(PKGS))

golden: ## rewrite the golden files under testdata/ (go test -update in each package that has them), then review `git diff testdata`
	$(GO) test -count=1 $(GOLDEN_PKGS) -update

bench: ## Go micro-benchmarks, then the bench/ scripts (see docs/performance.md)
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)
	bash bench/run-all.sh

demo: build ## the README's first command, built by `make build`: a sweep against the embedded mock
	$(BIN) sweep --slo "ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%"

clean: ## remove build outputs
	rm -rf bin
