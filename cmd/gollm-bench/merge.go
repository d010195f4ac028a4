package main

import (
	"context"
	"errors"

	"github.com/spf13/pflag"
)

func runMerge(_ context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("merge", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	return usageErr(errors.New("merge: not available yet (see README, 'What is not done')"))
}
