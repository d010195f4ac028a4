package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestEmbedderProgram runs the example as an embedder would. What was seen
// before the library carried the planned arrivals: a healthy Poisson level
// read "client-limited: 90.6 % of the 8 req/s target", and an SLO given
// only to the sweep plan left goodput at 0. The program must report a
// non-zero goodput and the full plan sent. (Scheduling lag on a loaded
// machine can still flag a level; that part is the machine's, not the
// plan's, so the test reads the achieved share.)
func TestEmbedderProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 5-second level")
	}
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	m := regexp.MustCompile(`goodput (\d+) tok/s .*achieved (\d+) % of the plan`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("unexpected output %q", out.String())
	}
	if g, _ := strconv.Atoi(m[1]); g == 0 {
		t.Errorf("goodput 0 with the SLO given once: %q", out.String())
	}
	if a, _ := strconv.Atoi(m[2]); a < 98 {
		t.Errorf("achieved %d %% of the planned arrivals: the plan the client is judged against is wrong", a)
	}
}

// TestProgramIsShort keeps the example what an embedder copies: at most
// 30 lines of code in run, the program's body.
func TestProgramIsShort(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)func run\(.*?\n}\n`).Find(src)
	if n := bytes.Count(body, []byte("\n")); body == nil || n > 30 {
		t.Errorf("run is %d lines; keep the example at most 30", n)
	}
}
