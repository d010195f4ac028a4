package energy

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// DescribeNVML says whether NVML can be read here, and what it sees: "not
// available: <why>", "loaded, but reading failed: <error>", or "available:
// driver <version>, <n> GPU(s): <names>". open opens NVML (package
// energy/nvml's Open; nil: NVML is not in this build).
func DescribeNVML(ctx context.Context, open func() (Source, error)) string {
	if open == nil {
		return "not available: not in this build"
	}
	src, err := open()
	if err != nil {
		return "not available: " + strings.TrimPrefix(err.Error(), ErrNVMLUnavailable.Error()+": ")
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	snap, err := src.Read(ctx, time.Now())
	if err != nil {
		return "loaded, but reading failed: " + err.Error()
	}
	names := make([]string, 0, len(snap.GPUs))
	for _, g := range snap.GPUs {
		names = append(names, g.Name)
	}
	return fmt.Sprintf("available: driver %s, %d GPU(s): %s", snap.Driver, len(snap.GPUs), strings.Join(names, ", "))
}
