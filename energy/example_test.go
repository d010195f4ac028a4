package energy_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
)

// The issue's worked vector: 4,924 W for 3,120 output tokens/s, PUE 1.4, a
// 40 gCO2/kWh grid.
func ExampleWhPerToken() {
	energyJ := 4924.0 * 60 // one minute
	tokens := int64(3120 * 60)
	wh := energy.WhPerToken(energyJ, tokens)
	whPUE := energy.PUEAdjusted(wh, 1.4)
	fmt.Printf("%.6f Wh/token, %.2f J/token\n", wh, energy.JoulesPerToken(energyJ, tokens))
	fmt.Printf("%.6f Wh/token with PUE 1.4\n", whPUE)
	fmt.Printf("%.2f gCO2 per 1M tokens\n", energy.GramsCO2PerMillionTokens(whPUE, 40))
	// Output:
	// 0.000438 Wh/token, 1.58 J/token
	// 0.000614 Wh/token with PUE 1.4
	// 24.55 gCO2 per 1M tokens
}

// A Meter over a dcgm-exporter endpoint measures one window.
func ExampleParse() {
	counter := 1_000_000_000.0 // mJ
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-1\",modelName=\"NVIDIA H200\"} %.0f\n", counter)
		fmt.Fprintf(w, "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-1\",modelName=\"NVIDIA H200\"} 650.000000\n")
	}))
	defer srv.Close()

	start := time.Unix(1771322400, 0)
	now := start
	m, err := energy.Parse("dcgm="+srv.URL, energy.WithClock(func() time.Time { return now }), energy.WithSampleInterval(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	ctx := context.Background()
	if err := m.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	now, counter = start.Add(60*time.Second), counter+39_000_000 // 39 kJ in 60 s
	r, err := m.Stop(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	f := r.Figures(30_000, 1.2, 50)
	fmt.Printf("%s: %.0f J, %.0f W, valid %v\n", r.Hardware(), r.EnergyJ, r.MeanW, r.Valid)
	fmt.Printf("%.3f J/token, %.1f gCO2 per 1M tokens\n", f.JPerToken, f.GCO2PerMTokens)
	// Output:
	// 1xNVIDIA H200: 39000 J, 650 W, valid true
	// 1.300 J/token, 21.7 gCO2 per 1M tokens
}
