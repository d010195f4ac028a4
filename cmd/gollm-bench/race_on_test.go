//go:build race

package main

// raceEnabled is true under the race detector, which slows the client and
// the mock several times over: wall-clock timing tests skip then, and run
// in `make timing` instead.
const raceEnabled = true
