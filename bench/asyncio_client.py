#!/usr/bin/python3
"""A single-process asyncio + aiohttp load client, the measuring instrument
that bench/client-ceiling.sh sets beside gollm-bench.

Two styles (--style), written for this bench (not copied):

vllm (the default) behaves as `vllm bench serve`'s client did in its
benchmarks/benchmark_serving.py + benchmarks/backend_request_func.py
(vLLM v0.5-v0.6, e.g. commit 0118413; read for this, then written anew),
in the two respects that decide its ceiling:
  - the arrival loop creates the request's task, then sleeps the next
    Poisson gap with asyncio.sleep, and so on: it never catches up, so
    every late wake-up of the event loop (0.7-0.9 ms on this machine)
    delays every later arrival, and the achieved rate falls short of the
    target as the gaps shrink;
  - each request opens its own aiohttp.ClientSession (a fresh connection
    pool, so a fresh TCP connection) and closes it when the request ends.
catchup is this bench's earlier stand-in: it sleeps until each arrival's
absolute intended time (catching up when behind) and shares one
ClientSession with an unlimited keep-alive pool.

Both replay gollm-bench's own Poisson gaps for the seed (poisson_gap), so
the plans are the same. A request coroutine stamps `st = perf_counter()`
when it starts, posts a streamed completion, iterates the body line by
line, decodes each `data:` line with json.loads, and takes TTFT = first
text chunk - st (so, as in vLLM, the time a request waited for the event
loop before its coroutine ran is not in its TTFT; with --style vllm, the
session and connection it opens are). Scheduling lag is st - intended
time, the intended time being the plan's (the sum of the gaps): what
vLLM's client would see if it recorded it.

The level lasts --duration s: arrivals at or after it are not issued, and
requests still in flight then are cancelled (as gollm-bench does with no
drain timeout). The summary uses gollm-bench's definitions (docs/metrics.md):
the window is [10 %, 90 %] of the level; achieved req/s = requests started
inside the window / window; lag and TTFT percentiles over requests started
inside it; completed output tokens = usage.completion_tokens summed over
every request that finished. CPU% = process CPU time / wall time x 100.

Usage: asyncio_client.py --base-url URL --rate R [--style vllm|catchup]
       [--duration 30] [--seed 42] [--prompt-words 16] [--output-tokens 16]
       [--model mock-model] [--out FILE]
Prints one JSON object (and writes it to --out).
"""

import argparse
import asyncio
import json
import math
import os
import sys
import time

import aiohttp


M64 = (1 << 64) - 1
PCG_MUL = (2549297995355413924 << 64) | 4865540595714422341
PCG_INC = (6364136223846793005 << 64) | 1442695040888963407


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def poisson_gap(rate, seed, i):
    """The gap before arrival i, ns: gollm-bench's loadgen.PoissonPacer.Gap
    (the first output of Go's rand.NewPCG(seed, splitmix64(i)), a 128-bit
    PCG with the DXSM output, as -log1p(-u)/rate), so that both clients
    offer the same arrival plan for a seed. Durations truncate to the
    nanosecond as in Go."""
    state = ((seed << 64) | splitmix64(i)) & ((1 << 128) - 1)
    state = (state * PCG_MUL + PCG_INC) & ((1 << 128) - 1)
    hi, lo = state >> 64, state & M64
    hi ^= hi >> 32
    hi = (hi * 0xDA942042E4DD58B5) & M64
    hi ^= hi >> 48
    hi = (hi * (lo | 1)) & M64
    u = (hi >> 11) * 2.0 ** -53
    return int(-math.log1p(-u) / rate * 1e9)


class Result:
    __slots__ = ("intended", "st", "ttft", "latency", "output_tokens", "ok", "error")

    def __init__(self, intended):
        self.intended = intended
        self.st = None
        self.ttft = None
        self.latency = None
        self.output_tokens = 0
        self.ok = False
        self.error = ""


async def request_func(session, url, payload, res):
    """Send one request on session (None: on a session of its own, closed
    when the request ends, as vLLM's backend_request_func does)."""
    if session is None:
        async with aiohttp.ClientSession(timeout=TIMEOUT) as own:
            await request_func(own, url, payload, res)
        return
    # vLLM style: the clock starts when the coroutine runs, not at the
    # intended arrival time.
    st = time.perf_counter()
    res.st = st
    most_recent = st
    try:
        async with session.post(url, json=payload) as response:
            if response.status != 200:
                res.error = "HTTP %d" % response.status
                return
            async for chunk_bytes in response.content:
                chunk_bytes = chunk_bytes.strip()
                if not chunk_bytes:
                    continue
                chunk = chunk_bytes.decode("utf-8").removeprefix("data: ")
                if chunk == "[DONE]":
                    continue
                data = json.loads(chunk)
                choices = data.get("choices")
                if choices:
                    timestamp = time.perf_counter()
                    if res.ttft is None:
                        res.ttft = timestamp - st
                    most_recent = timestamp
                elif data.get("usage"):
                    res.output_tokens = data["usage"].get("completion_tokens") or 0
            res.latency = most_recent - st
            res.ok = res.ttft is not None
    except asyncio.CancelledError:
        res.error = "cancelled"
        raise
    except Exception as e:  # noqa: BLE001 - a measuring tool records every failure
        res.error = repr(e)


def percentile(xs, q):
    """Nearest-rank q-quantile of xs (0 < q <= 1), or None."""
    if not xs:
        return None
    xs = sorted(xs)
    return xs[max(int(math.ceil(q * len(xs))) - 1, 0)]


TIMEOUT = aiohttp.ClientTimeout(total=6 * 60 * 60)


async def arrivals(args, start, session, url, results, tasks):
    """Issue the plan's arrivals until the level's end, in args.style."""
    t_ns = 0
    i = 0
    while True:
        if i > 0:
            gap = poisson_gap(args.rate, args.seed, i)
            t_ns += gap
            if args.style == "vllm":
                # Sleep the gap itself, whatever time it is now.
                await asyncio.sleep(gap / 1e9)
        t = t_ns / 1e9
        # Stop at the level's end, also when the generator is behind its
        # plan (arrivals it never reached are not sent, as in gollm-bench).
        if t >= args.duration or time.perf_counter() - start >= args.duration:
            break
        if args.style == "catchup":
            delay = t - (time.perf_counter() - start)
            if delay > 0:
                await asyncio.sleep(delay)
        prompt = "r%d " % i + " ".join(["w"] * (args.prompt_words - 1))
        payload = {
            "model": args.model, "prompt": prompt, "max_tokens": args.output_tokens,
            "ignore_eos": True, "stream": True, "stream_options": {"include_usage": True},
        }
        res = Result(start + t)
        results.append(res)
        task = asyncio.create_task(request_func(session, url, payload, res))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        i += 1


async def main_async(args):
    url = args.base_url.rstrip("/") + "/v1/completions"
    results = []
    tasks = set()
    cpu0 = os.times()
    session = None
    if args.style == "catchup":
        connector = aiohttp.TCPConnector(
            limit=0, limit_per_host=0, ttl_dns_cache=300, use_dns_cache=True,
            keepalive_timeout=60, enable_cleanup_closed=True, force_close=False)
        session = aiohttp.ClientSession(connector=connector, timeout=TIMEOUT, trust_env=False)
    try:
        start = time.perf_counter()
        await arrivals(args, start, session, url, results, tasks)
        rest = args.duration - (time.perf_counter() - start)
        if rest > 0:
            await asyncio.sleep(rest)
        end = time.perf_counter()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        if session is not None:
            await session.close()
    cpu1 = os.times()
    wall = end - start
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)

    w0, w1 = start + 0.1 * args.duration, start + 0.9 * args.duration
    started = [r for r in results if r.st is not None and w0 <= r.st < w1]
    lags = [(r.st - r.intended) * 1e3 for r in started]
    ttfts = [r.ttft * 1e3 for r in started if r.ok]
    summary = {
        "client": "python-asyncio-aiohttp",
        "style": args.style,
        "aiohttp": aiohttp.__version__,
        "python": sys.version.split()[0],
        "target_req_s": args.rate,
        "duration_s": args.duration,
        "scheduled": len(results),
        "started": sum(1 for r in results if r.st is not None),
        "ok": sum(1 for r in results if r.ok),
        "errors": sum(1 for r in results if r.error and r.error != "cancelled"),
        "cancelled": sum(1 for r in results if r.error == "cancelled"),
        "achieved_req_s": len(started) / (w1 - w0),
        "completed_output_tokens": sum(r.output_tokens for r in results if r.ok),
        "lag_p50_ms": percentile(lags, 0.5),
        "lag_p99_ms": percentile(lags, 0.99),
        "ttft_p50_ms": percentile(ttfts, 0.5),
        "ttft_p99_ms": percentile(ttfts, 0.99),
        "cpu_percent": 100 * cpu / wall,
        "first_error": next((r.error for r in results if r.error and r.error != "cancelled"), ""),
    }
    summary["achieved_ratio"] = summary["achieved_req_s"] / args.rate
    lag99 = summary["lag_p99_ms"]
    summary["client_limited"] = summary["achieved_ratio"] < 0.98 or (lag99 is not None and lag99 > 10)
    return summary


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", required=True)
    p.add_argument("--rate", type=float, required=True, help="Poisson arrival rate, req/s")
    p.add_argument("--style", choices=["vllm", "catchup"], default="vllm",
                   help="vllm: sleep each gap, a session per request (vLLM's client); catchup: absolute arrival times, one session")
    p.add_argument("--duration", type=float, default=30.0, help="s")
    p.add_argument("--seed", type=int, default=42, help="seed of the Poisson plan (gollm-bench's --seed)")
    p.add_argument("--prompt-words", type=int, default=16)
    p.add_argument("--output-tokens", type=int, default=16)
    p.add_argument("--model", default="mock-model")
    p.add_argument("--out", default="")
    args = p.parse_args()
    summary = asyncio.run(main_async(args))
    text = json.dumps(summary)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
