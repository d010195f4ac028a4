package loadgen_test

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// Shard 1 of 3 of a 30 req/s constant plan sends every third arrival,
// at 10 req/s; of 8 concurrent workers it runs 3 (8/3, plus one of the
// 8%3 left over).
func ExampleShard_Share() {
	s, err := loadgen.ParseShard("1/3")
	if err != nil {
		panic(err)
	}
	rate, _ := s.Share(loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 30})
	conc, _ := s.Share(loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 8})
	fmt.Println(s, rate.Rate, conc.Concurrency, s.Owns(4), s.Owns(5))
	// Output: 1/3 10 3 true false
}
