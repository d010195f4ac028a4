// Package cmdline is the vocabulary of gollm-bench's command line beyond the
// flags themselves, kept out of package main so that it can be tested and
// reused: configuration files (Config: YAML, JSON, or a run.json's
// recorded settings, applied through the flag set so that every value is
// checked as on the command line), the record of a run's effective
// settings (Record), the spellings of peer tools (Aliases: GuideLLM,
// AIPerf, GenAI-Perf and vLLM flags that mean the same as ours, and a
// translation for those that do not), "did you mean" suggestions for
// unknown flags (Explain), and shell completion scripts generated from the
// commands' help (Bash, Zsh).
//
// Parser ties them together for one command's *pflag.FlagSet: it adds
// --config and the peer aliases, parses the command line, applies the
// configuration file to the flags not given on it, and says which
// settings were given.
//
// Nothing here keeps global state; a Parser is used by one goroutine.
package cmdline
