package results_test

import (
	"fmt"
	"os"

	"github.com/gollm-bench/gollm-bench/results"
)

// Example creates a results folder, writes run.json and reads it back.
func Example() {
	parent, err := os.MkdirTemp("", "results")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(parent)

	dir, err := results.Create(parent, "20260616T1200", false)
	if err != nil {
		panic(err)
	}
	if err := results.Write(dir, results.Run{RunID: "20260616T1200"}); err != nil {
		panic(err)
	}
	run, err := results.Read(dir)
	fmt.Println(run.RunID, run.SchemaVersion, err)

	_, err = results.Create(parent, "20260616T1200", false)
	fmt.Println(err != nil)
	// Output:
	// 20260616T1200 2 <nil>
	// true
}
