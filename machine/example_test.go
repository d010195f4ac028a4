package machine_test

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/machine"
)

func ExampleAddr() {
	addr, _ := machine.Addr("https://vllm.inference.svc/v1")
	fmt.Println(addr)
	// Output: vllm.inference.svc:443
}

func ExampleParseMemTotal() {
	fmt.Println(machine.ParseMemTotal([]byte("MemTotal:       24576000 kB\n")))
	// Output: 25165824000
}
