package benchmark

import (
	"context"
	"fmt"

	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

// embeddedMock is the mock server started in-process when run or sweep has
// no --target.
type embeddedMock struct {
	*mockserver.Server
	URL    string
	cancel context.CancelFunc
}

// startEmbeddedMock starts the mock of preset; cacheTokens > 0 sizes its
// prefix cache (tokens, rounded up to whole blocks), turning it on with
// mockCacheBlockTokens-token blocks when the preset has none.
func startEmbeddedMock(ctx context.Context, preset string, cacheTokens int, tok *tokenize.Tokenizer) (*embeddedMock, error) {
	cfg, err := mockserver.Preset(preset)
	if err != nil {
		return nil, badInput(fmt.Errorf("--mock-preset: %w", err))
	}
	if cacheTokens > 0 {
		if cfg.PrefixCacheBlockTokens <= 0 {
			cfg.PrefixCacheBlockTokens = mockCacheBlockTokens
		}
		cfg.PrefixCacheBlocks = (cacheTokens + cfg.PrefixCacheBlockTokens - 1) / cfg.PrefixCacheBlockTokens
	}
	var opts []mockserver.Option
	if tok != nil {
		opts = append(opts, mockserver.WithTokenCounter(tok.Count))
	}
	s, err := mockserver.New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	// The mock outlives an interruption of the run until its results are
	// written: it stops when the command returns.
	mctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	url, err := s.Start(mctx)
	if err != nil {
		cancel()
		s.Close()
		return nil, err
	}
	return &embeddedMock{Server: s, URL: url, cancel: cancel}, nil
}

// mockCacheBlockTokens is the block size --mock-prefix-cache turns the
// in-process mock's prefix cache on with, tokens (the demo-cache
// preset's).
const mockCacheBlockTokens = 16

// Close stops the server.
func (m *embeddedMock) Close() {
	m.cancel()
	m.Server.Close()
}
