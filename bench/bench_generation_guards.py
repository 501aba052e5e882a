"""Generation guards: their overhead, and what a rejection at step k of N costs.

    python bench/bench_generation_guards.py [--device cpu|cuda] [--precision fp32|fp16] [--pieces 8] [--steps 20]

Overhead: the same seeds sampled and decoded with every guard (step callback, latent/decoded/pixel checks) vs
the same work with none. Rejection: a NaN enters the UNet output at step k (forward hook), the step guard aborts;
time as a ratio to a full accepted piece (goal: about k/N). Prints a JSON report.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from mintprep.generate import GenerationRequest, GeneratorSettings, attempt_seed, load_generator
from mintprep.generate.images import encode_png, to_uint8, upscale_nearest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--pieces", type=int, default=8)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    settings = GeneratorSettings(kind="tiny", steps=args.steps, upscale=8, device=args.device,
                                 precision=args.precision, fallback=[], max_attempts=1)
    gen = load_generator(settings)
    requests = [GenerationRequest(token_id=t, prompt=f"a flower {t}", collection_seed=1, settings=settings)
                for t in range(1, args.pieces + 1)]

    def unguarded(req: GenerationRequest) -> bytes:
        with torch.inference_mode():
            latents = gen.pipe(prompt=req.prompt, num_inference_steps=settings.steps,
                               guidance_scale=settings.guidance, height=settings.height, width=settings.width,
                               generator=torch.Generator("cpu").manual_seed(attempt_seed(1, req.token_id, 0)),
                               output_type="latent").images
            image = gen._decode(latents)
        return encode_png(upscale_nearest(to_uint8(image), settings.upscale))

    def timed(fn, req) -> float:  # noqa: ANN001
        if args.device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn(req)
        if args.device == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start

    for req in requests[:2]:  # warm-up
        unguarded(req), gen.generate(req)
    ratios, guarded_times, plain_times = [], [], []
    for _ in range(args.repeats):
        for req in requests:  # interleaved, so drift in machine load hits both alike
            plain = timed(unguarded, req)
            guarded = timed(gen.generate, req)
            plain_times.append(plain)
            guarded_times.append(guarded)
            ratios.append(guarded / plain)
    overhead = {"median_ratio": statistics.median(ratios), "plain_median_s": statistics.median(plain_times),
                "guarded_median_s": statistics.median(guarded_times)}

    full = statistics.median(timed(gen.generate, req) for req in requests)
    rejection = []
    for k in sorted({0, args.steps // 4, args.steps // 2, 3 * args.steps // 4, args.steps - 1}):
        calls = {"n": 0}

        def poison(module, inputs, output, k=k):  # noqa: ANN001
            calls["n"] += 1
            return (torch.full_like(output[0], float("nan")),) if calls["n"] == k + 1 else output

        costs = []
        for req in requests:
            calls["n"] = 0
            hook = gen.pipe.unet.register_forward_hook(poison)
            try:
                costs.append(timed(gen.generate, req))
            finally:
                hook.remove()
        rejection.append({"k": k, "steps": args.steps, "ratio": statistics.median(costs) / full,
                          "expected": (k + 1) / args.steps})
    print(json.dumps({"device": args.device, "precision": args.precision, "pieces": args.pieces,
                      "steps": args.steps, "threads": torch.get_num_threads(), "overhead": overhead,
                      "full_piece_s": full, "rejection": rejection}, indent=2))


if __name__ == "__main__":
    main()
