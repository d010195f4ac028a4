package scorecard_test

import (
	"fmt"
	"os"

	"github.com/gollm-bench/gollm-bench/scorecard"
)

// The worked example of docs/metrics.md#a-worked-example: a 4×H100 deployment
// at 10.8 EUR/h serving 3,120 good tokens/s at 4,924 W mean, PUE 1.4, on a 40
// gCO2/kWh grid.
func ExampleBuild() {
	tokens := int64(3120 * 100)
	sc := scorecard.Build(scorecard.Inputs{
		Metadata: scorecard.Metadata{Engine: "vllm-0.9.1", Precision: "fp8", RunID: "20260616T1200"},
		Performance: scorecard.Performance{
			GoodputTokS:  scorecard.Num(3120),
			TTFTP99Ms:    scorecard.Num(312),
			WindowS:      scorecard.Num(100),
			OutputTokens: &tokens,
		},
		Energy:      scorecard.EnergyReading{Source: "nvml", Valid: true, EnergyJ: 4924 * 100},
		Cost:        scorecard.CostRate{EURPerHour: 10.8, Source: "flag"},
		PUE:         1.4,
		GridGCO2KWh: 40,
	})
	fmt.Printf("CPM %.2f EUR/1M tokens\n", *sc.Cost.CPMEUR1M)
	fmt.Printf("%.6f Wh/token, %.2f J/token, %.6f Wh/token at PUE 1.4\n", *sc.Energy.WhPerToken, *sc.Energy.JPerToken, *sc.Energy.WhPerTokenPUE)
	fmt.Printf("%.2f gCO2 per 1M tokens\n", *sc.Carbon.GCO2Per1MTokens)
	fmt.Println(sc.Status, len(sc.Missing), "mandatory keys missing")
	// Output:
	// CPM 0.96 EUR/1M tokens
	// 0.000438 Wh/token, 1.58 J/token, 0.000614 Wh/token at PUE 1.4
	// 24.55 gCO2 per 1M tokens
	// anecdote 11 mandatory keys missing
}

func ExampleMetadata_Missing() {
	m := scorecard.Metadata{Engine: "vllm-0.9.1", Tokenizer: "Qwen/Qwen3-8B", RunID: "r1"}
	fmt.Println(m.Status(), m.Missing())
	// Output:
	// anecdote [model_revision precision tokenizer_sha256 isl_tokens osl_tokens hardware max_concurrency_tested tool_version tool_commit slo warmup]
}

func ExamplePareto() {
	row := func(id string, cpm, wh, ttft float64, pass bool) scorecard.Scorecard {
		return scorecard.Scorecard{
			Metadata:    scorecard.Metadata{RunID: id},
			Performance: scorecard.Performance{TTFTP99Ms: scorecard.Num(ttft), SLOPass: &pass},
			Cost:        scorecard.Cost{CPMEUR1M: scorecard.Num(cpm)},
			Energy:      scorecard.Energy{WhPerToken: scorecard.Num(wh)},
		}
	}
	cards := []scorecard.Scorecard{
		row("fp8", 0.96, 0.000438, 312, true),
		row("bf16", 1.36, 0.000594, 350, true),
		row("b128", 0.77, 0.000370, 450, true),
		row("sglang", 0.70, 0.000300, 812, true),
	}
	// --slo "ttft_p99<=500ms", adapted from the slo package's terms.
	check := scorecard.CheckTerms(scorecard.Term{Key: "ttft_p99_ms", Op: "<=", Limit: 500})
	frontier, dropped := scorecard.Pareto(cards, check)
	if err := scorecard.WriteParetoText(os.Stdout, frontier, dropped); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Pareto frontier (minimise CPM, Wh/token, TTFT P99): 2 of 4
	// run_id  engine  precision  hardware  cpm_eur_1m  wh_per_token  ttft_p99_ms  status
	// b128    -       -          -         0.77        0.00037       450          -
	// fp8     -       -          -         0.96        0.000438      312          -
	//
	// Dropped:
	//   bf16: dominated by fp8
	//   sglang: SLO violated: ttft_p99_ms 812 > 500
}

func ExampleReadDirs() {
	rows, err := scorecard.ReadDirs("../testdata/scorecards/results")
	if err != nil {
		fmt.Println(err)
		return
	}
	cards := make([]scorecard.Scorecard, len(rows))
	for i, r := range rows {
		cards[i] = r.Scorecard
		fmt.Println(r.Scorecard.Metadata.RunID, r.Scorecard.Status)
	}
	// scorecard.WriteCSV(os.Stdout, cards) writes scorecard-aggregate.csv.
	// Output:
	// 20260616T1200-vllm-fp8 auditable
	// 20260616T1300-vllm-bf16 auditable
	// 20260616T1400-sglang-fp8 auditable
	// 20260616T1500-vllm-fp8-b128 auditable
	// 20260616T1600-trtllm-fp8 anecdote
}
