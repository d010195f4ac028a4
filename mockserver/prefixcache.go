package mockserver

import (
	"container/list"
	"sync"
)

// DefaultPrefixCacheBlocks is the prefix cache's capacity, in blocks, when
// Config.PrefixCacheBlockTokens turns it on and Config.PrefixCacheBlocks
// is 0.
const DefaultPrefixCacheBlocks = 4096

// prefixCache is the mock's prefix cache (Config.PrefixCacheBlockTokens):
// an LRU set of prompt blocks, each known by the hash of its content and
// of every block before it, as vLLM's automatic prefix caching chains its
// block hashes. A prompt's cached prefix is its leading run of full blocks
// found in the set. Units are the mock's tokens: whitespace-separated
// words (see HeuristicTokens). Safe for concurrent use.
type prefixCache struct {
	block, capacity int

	mu    sync.Mutex
	lru   *list.List // of uint64 block hashes, most recently used first
	index map[uint64]*list.Element
}

func newPrefixCache(block, capacity int) *prefixCache {
	if block <= 0 {
		return nil
	}
	if capacity <= 0 {
		capacity = DefaultPrefixCacheBlocks
	}
	return &prefixCache{block: block, capacity: capacity, lru: list.New(), index: map[uint64]*list.Element{}}
}

// blockHashes returns the chained hash of each full block of text, and the
// byte offset where each block's last word ends.
func (c *prefixCache) blockHashes(text string) (hashes []uint64, ends []int) {
	h := uint64(14695981039346656037) // FNV-1a offset basis
	words := 0
	for i := 0; i < len(text); {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i == len(text) {
			break
		}
		for i < len(text) && !isSpace(text[i]) {
			h ^= uint64(text[i])
			h *= 1099511628211
			i++
		}
		h ^= ' ' // a word boundary, so "ab c" and "a bc" differ
		h *= 1099511628211
		words++
		if words%c.block == 0 {
			hashes = append(hashes, h)
			ends = append(ends, i)
		}
	}
	return hashes, ends
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
}

// lookup returns the number of leading blocks of text found in the cache
// and the byte offset where they end, then adds every full block of text
// (a prefill computes them all) as most recently used.
func (c *prefixCache) lookup(text string) (blocks, end int) {
	hashes, ends := c.blockHashes(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	for blocks < len(hashes) {
		if _, ok := c.index[hashes[blocks]]; !ok {
			break
		}
		end = ends[blocks]
		blocks++
	}
	c.add(hashes)
	return blocks, end
}

// insert adds every full block of text: a finished request's prompt and
// output, which the next turn of a conversation starts with.
func (c *prefixCache) insert(text string) {
	hashes, _ := c.blockHashes(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(hashes)
}

// add marks hashes as most recently used, evicting the least recently
// used blocks beyond the capacity; c.mu must be held.
func (c *prefixCache) add(hashes []uint64) {
	for _, h := range hashes {
		if e, ok := c.index[h]; ok {
			c.lru.MoveToFront(e)
			continue
		}
		c.index[h] = c.lru.PushFront(h)
		for c.lru.Len() > c.capacity {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.index, old.Value.(uint64))
		}
	}
}

// size is the number of blocks held.
func (c *prefixCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// cachedPrefix looks prompt up in the prefix cache (and adds its blocks)
// and returns how many of its promptTokens the cache serves: the cached
// blocks' words, or, with a token counter (WithTokenCounter), the count
// of the text they cover. 0 with the cache off.
func (s *Server) cachedPrefix(prompt string, promptTokens int) int {
	if s.cache == nil || prompt == "" {
		return 0
	}
	blocks, end := s.cache.lookup(prompt)
	n := blocks * s.cache.block
	if s.opts.counted && blocks > 0 {
		n = s.opts.count(prompt[:end])
	}
	n = min(n, promptTokens)
	s.cachedTokens.Add(int64(n))
	return n
}

// cacheOutput adds the blocks of the finished request's prompt and output
// together to the prefix cache, as an engine keeps the KV of the tokens
// it generated: the next turn of a chat, whose prompt is this one's
// messages, this reply and a new message (joined by "\n", as promptOf
// joins them), finds them there.
func (g *generation) cacheOutput() {
	c := g.s.cache
	if c == nil || g.tr.Prompt == "" {
		return
	}
	text := make([]byte, 0, len(g.tr.Prompt)+1+8*g.p.visible)
	text = append(text, g.tr.Prompt...)
	if g.chat {
		text = append(text, '\n')
	}
	text = g.appendWords(text, 0, g.p.visible)
	c.insert(string(text))
}
