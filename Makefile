# latlab — make build | test | test-short | bench | fuzz | lint
#
# make test is the full suite CI runs. make test-short is for the edit–test
# loop: go test -short skips the slow end-to-end tests (the quick demo, the
# tests that build latlab and run it as a process or start a graph, the
# pages opened in headless Chromium, the 1 GB body, the million-sample
# write, Prometheus, the waits for the store's busy timeout) and runs
# without the race detector; each skip says that make test runs it.
GO       ?= go
FUZZTIME ?= 30s
FUZZMINTIME ?= 10s
BENCHCOUNT ?= 1

.PHONY: build test test-short bench bench-hop bench-peers fuzz lint clean

# The version latlab version prints: git describe's answer where git knows
# this tree (a tag, or the commit, -dirty with uncommitted changes).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)

build:
	$(GO) build $(if $(VERSION),-ldflags '-X main.version=$(VERSION)') -o bin/latlab ./cmd/latlab

# vet, then every test with the race detector.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m ./...

# vet, then every test but the slow end-to-end ones, without the race
# detector: under 2 minutes on a 2-CPU machine.
test-short:
	$(GO) vet ./...
	$(GO) test -short -count=1 -timeout 10m ./...

# Go benchmarks of the hot paths; compare runs with benchstat over BENCHCOUNT=10.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count=$(BENCHCOUNT) ./...

# One hop of latlab's graph next to a minimal net/http chain; flags through
# HOP_FLAGS, e.g. HOP_FLAGS='--rounds 5'. See bench/README.md.
bench-hop:
	GO=$(GO) bench/hop.sh $(HOP_FLAGS)

# latlab attack side by side with wrk, ab, hey, fortio and oha where installed;
# flags through PEERS_FLAGS, e.g. PEERS_FLAGS='--rounds 5 --install'. See bench/README.md.
bench-peers:
	GO=$(GO) bench/peers.sh $(PEERS_FLAGS)

# Every native fuzz target in turn, FUZZTIME each, stopping at the first
# that fails (its input is saved under the package's testdata/fuzz). Each
# input the fuzzer keeps or that fails is shrunk for at most FUZZMINTIME
# (go test -fuzzminimizetime, 60s unless told), so that no target spends
# its FUZZTIME, or stalls past it, minimising one input.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$t"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) $$pkg; \
	  done; \
	done

lint:
	@command -v golangci-lint >/dev/null || { echo "installing golangci-lint"; $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@latest; }
	golangci-lint run ./...

clean:
	rm -rf bin
