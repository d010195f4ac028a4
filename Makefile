# gollm-bench: build, test, benchmark, demo. `make help` lists the targets.
GO       ?= go
BIN      ?= bin/gollm-bench
PKGS     ?= ./...
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS  := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME ?= 2000x

.PHONY: help build test vet race timing fuzz-smoke bench demo clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

build: ## static binary in bin/ (CGO_ENABLED=0: no NVML; see README)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/gollm-bench

test: vet race timing fuzz-smoke ## vet + race tests + timing tests + a short fuzz smoke (what CI runs)

vet: ## go vet, default and hftokenizers builds, and a cgo-free build
	$(GO) vet $(PKGS)
	$(GO) vet -tags hftokenizers $(PKGS)
	CGO_ENABLED=0 $(GO) build $(PKGS)

race: ## all tests under the race detector (wall-clock timing tests skip there)
	$(GO) test -race -count=1 $(PKGS)

timing: ## the wall-clock tests (timing truth, the knee against the mock), without the race detector
	$(GO) test -count=1 -run 'TestTimingTruth|TestSweepBracketsMockKnee' ./harness ./cmd/gollm-bench

# Each fuzz target runs for FUZZTIME; `go test -fuzz` takes one target per call.
# FUZZTIME is a count of executions, not a duration: when a duration runs out
# while the fuzzer is minimising a new input, `go test` can fail with "context
# deadline exceeded" though nothing is wrong, which made the smoke flaky; and
# minimising each new interesting input (up to 60 s by default) is capped.
# That cap is also what the expfmt-based targets (FuzzReadDCGM, enginemetrics'
# FuzzParse) needed: their worker looked stalled while it minimised.
fuzz-smoke: ## every native fuzz target, briefly
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for target in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //'); do \
	    echo "fuzz $$pkg $$target"; \
	    out=$$($(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10x -parallel 1 $$pkg 2>&1) || { echo "$$out"; exit 1; }; \
	  done; \
	done

bench: ## Go micro-benchmarks, then the bench/ scripts (see docs/performance.md)
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)
	bash bench/run-all.sh

demo: ## the README's first command: a sweep against the embedded mock
	$(GO) run ./cmd/gollm-bench sweep --slo "ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%"

clean: ## remove build outputs
	rm -rf bin
