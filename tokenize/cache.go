package tokenize

import (
	"hash/maphash"
	"sync"
)

const cacheShards = 32

// wordCache is a bounded, sharded map from a pre-token to its ids. A shard
// that reaches its capacity is emptied (a cheap bound, not an LRU). Safe
// for concurrent use; stored slices are never modified.
type wordCache struct {
	seed   maphash.Seed
	cap    int
	shards [cacheShards]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[string][]int
}

func newWordCache(size int) *wordCache {
	if size <= 0 {
		return nil
	}
	c := &wordCache{seed: maphash.MakeSeed(), cap: max(1, size/cacheShards)}
	for i := range c.shards {
		c.shards[i].m = make(map[string][]int)
	}
	return c
}

func (c *wordCache) shard(w string) *cacheShard {
	return &c.shards[maphash.String(c.seed, w)%cacheShards]
}

func (c *wordCache) get(w string) ([]int, bool) {
	s := c.shard(w)
	s.mu.RLock()
	ids, ok := s.m[w]
	s.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(w string, ids []int) {
	s := c.shard(w)
	s.mu.Lock()
	if len(s.m) >= c.cap {
		clear(s.m)
	}
	s.m[w] = ids
	s.mu.Unlock()
}
