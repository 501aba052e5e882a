"""Guarded generation on a GPU: pieces/min by precision and batch size, guard overhead, VAE re-decode cost, memory.

    python bench/bench_gpu.py --all           # CUDA, one command (<= 8 minutes): the whole table below
    python bench/bench_gpu.py --tiny --all    # anywhere (CPU): the built-in tiny model at 64x64, a smoke run

The SD-1.5-sized pipeline is built from configs with random weights (nothing is downloaded): UNet 860M parameters
(blocks 320/640/1280/1280, cross-attention 768), the SD VAE (128/256/512/512), a 12-layer CLIP text encoder and a
DDIM scheduler, at 512x512. Random weights make meaningless pictures, so the guards run with thresholds that accept
anything (every check still runs and is timed) and one attempt per piece; a row counts the pieces the numeric guards
rejected anyway (e.g. fp16 overflow), since a rejected sample skips its decode.

`--all` measures fp16, bf16 and fp32 at batch 1 and 4 (`--precisions`/`--batches` pick others). Per row: pieces/min
through mintprep's guarded `generate_batch` (one warm-up call excluded); the guard overhead = guards on / guards off,
where "off" is the same pipeline call with the same seeds decoded by diffusers itself (`output_type="pt"`) and
encoded to PNG with no check at all; the VAE-only re-decode (what the precision ladder pays when a decode fails: the
same latents decoded and checked again, no sampling) in ms per piece and as a share of a guarded piece; the peak GPU
memory. Rows stop when `--budget-s` is spent (default 420 s, so the run fits 8 minutes with the model builds), the
rest marked skipped. One table on stdout, or `--json`: one JSON object per row.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.generate import GenerationRequest, Generator, GeneratorSettings  # noqa: E402
from mintprep.generate.generator import LoadedModel  # noqa: E402
from mintprep.generate.images import encode_png, to_uint8  # noqa: E402
from mintprep.guards.settings import GuardSettings  # noqa: E402

ACCEPT_ANYTHING = GuardSettings(latent_std_min=0.0, latent_std_max=1e9, decoded_abs_max=1e9, black_level=0.0,
                                white_level=255.0, min_feature_share=0.0, min_std=0.0, max_dead_tile_share=1.0,
                                min_neighbour_corr=-1.0, max_hf_ratio=1.0, min_coarse_corr=-1.0,
                                max_empty_level_share=1.0)


def sd15_sized_pipeline() -> Any:
    from diffusers import AutoencoderKL, DDIMScheduler, StableDiffusionPipeline, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    from mintprep.generate.tokenizer import BOS, EOS, MODEL_MAX_LENGTH, byte_level_clip_tokenizer, byte_level_vocab

    torch.manual_seed(0)
    unet = UNet2DConditionModel(sample_size=64, cross_attention_dim=768, attention_head_dim=8)  # SD 1.x otherwise
    vae = AutoencoderKL(in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(128, 256, 512, 512),
                        down_block_types=("DownEncoderBlock2D",) * 4, up_block_types=("UpDecoderBlock2D",) * 4,
                        layers_per_block=2, sample_size=512)
    vocab = byte_level_vocab()
    text_encoder = CLIPTextModel(CLIPTextConfig(
        vocab_size=len(vocab), bos_token_id=vocab[BOS], eos_token_id=vocab[EOS], pad_token_id=vocab[EOS],
        hidden_size=768, intermediate_size=3072, num_attention_heads=12, num_hidden_layers=12,
        max_position_embeddings=MODEL_MAX_LENGTH))
    scheduler = DDIMScheduler(beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear", clip_sample=False,
                              set_alpha_to_one=False, steps_offset=1)
    return StableDiffusionPipeline(vae=vae, text_encoder=text_encoder, tokenizer=byte_level_clip_tokenizer(), unet=unet,
                                   scheduler=scheduler, safety_checker=None, feature_extractor=None,
                                   image_encoder=None, requires_safety_checker=False)


def requests_for(settings: GeneratorSettings, batch: int, call: int) -> list[GenerationRequest]:
    first = batch * (call + 1)  # token ids of one whole batch (token_id // batch equal)
    return [GenerationRequest(token_id=token, prompt=f"a study of a flower, number {token}", negative_prompt="blurry",
                              collection_seed=1234, settings=settings, guards=ACCEPT_ANYTHING)
            for token in range(first, first + batch)]


def guarded(gen: Generator, requests: list[GenerationRequest]) -> int:
    """One guarded call; the number of pieces rejected."""
    return sum(not result.ok for result in gen.generate_batch(requests))


def bare(gen: Generator, requests: list[GenerationRequest]) -> None:
    """The same call as a plain diffusers script would make it: same seeds, diffusers' own decode, no checks."""
    from mintprep.generate.request import attempt_seed

    settings = requests[0].settings
    with torch.inference_mode():
        images = gen.pipe(prompt=[r.prompt for r in requests], negative_prompt=[r.negative_prompt for r in requests],
                          num_inference_steps=settings.steps, guidance_scale=settings.guidance,
                          height=settings.height, width=settings.width, output_type="pt",
                          generator=[torch.Generator("cpu").manual_seed(attempt_seed(r.collection_seed, r.token_id, 0))
                                     for r in requests]).images
    for image in images:
        encode_png(to_uint8(image * 2 - 1))  # diffusers' "pt" output is in [0, 1]


def redecode(gen: Generator, requests: list[GenerationRequest]) -> float | None:
    """Seconds per piece to decode one call's latents again and check them, as a failed decode's retry does (None
    when the numeric guards rejected every sample)."""
    with torch.inference_mode():
        sampled = gen._sample_batch(requests, ACCEPT_ANYTHING)
        kept = [(request, piece.latents) for request, piece in zip(requests, sampled) if piece.rejected is None]
        synchronize(gen)
        start = time.perf_counter()
        for request, latents in kept:
            gen._decode_and_check(latents, request, ACCEPT_ANYTHING)
        synchronize(gen)
    return (time.perf_counter() - start) / len(kept) if kept else None


def synchronize(gen: Generator) -> None:
    if gen.device.type == "cuda":
        torch.cuda.synchronize()


def measure(gen: Generator, batch: int, calls: int) -> dict[str, Any]:
    settings = gen.settings
    guarded(gen, requests_for(settings, batch, 0))  # warm-up: kernels chosen, caches filled
    synchronize(gen)
    if gen.device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    rejected = sum(guarded(gen, requests_for(settings, batch, call + 1)) for call in range(calls))
    guarded_s = time.perf_counter() - start
    start = time.perf_counter()
    for call in range(calls):
        bare(gen, requests_for(settings, batch, call + 1))
    synchronize(gen)
    bare_s = time.perf_counter() - start
    row = {"batch": batch, "precision": settings.precision, "pieces_per_min": 60 * batch * calls / guarded_s,
           "guard_overhead": guarded_s / bare_s, "rejected": rejected, "pieces": batch * calls}
    if gen.device.type == "cuda":
        row["peak_gpu_mem_gib"] = torch.cuda.max_memory_allocated() / 2**30
    redecode_s = redecode(gen, requests_for(settings, batch, calls + 1))
    if redecode_s is not None:
        row.update(redecode_ms=1000 * redecode_s, redecode_share=redecode_s / (guarded_s / (batch * calls)))
    return row


COLUMNS = (("precision", "precision"), ("batch", "batch"), ("pieces_per_min", "pieces/min"),
           ("guard_overhead", "guards on/off"), ("redecode_ms", "re-decode ms/piece"),
           ("redecode_share", "re-decode / piece"), ("rejected", "rejected"), ("peak_gpu_mem_gib", "peak GiB"))


def print_table(rows: list[dict[str, Any]], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for _, header in COLUMNS:
        table.add_column(header, justify="right")
    for row in rows:
        cells = [row.get(key) for key, _ in COLUMNS]
        if "skipped" in row:
            cells[2] = row["skipped"]
        table.add_row(*(_shown(cell) for cell in cells))
    Console(width=160).print(table)


def _shown(cell: object) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float):
        return f"{cell:,.0f}" if abs(cell) >= 100 else f"{cell:.3g}"
    return str(cell)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="the built-in tiny model at 64x64 (runs on a CPU)")
    parser.add_argument("--all", action="store_true", help="the whole table: fp16, bf16, fp32 at batch 1 and 4")
    parser.add_argument("--batches", type=int, nargs="+", default=None, help="default: 1 4 with --all, else 1")
    parser.add_argument("--precisions", nargs="+", default=None,
                        help="default: fp16 bf16 fp32 with --all, else fp16 (fp32 with --tiny)")
    parser.add_argument("--steps", type=int, default=None, help="default: 20 (SD-sized), 4 (tiny)")
    parser.add_argument("--calls", type=int, default=None, help="measured calls per row; default: 3 (SD), 1 (tiny)")
    parser.add_argument("--budget-s", type=float, default=420.0)
    parser.add_argument("--json", action="store_true", help="one JSON object per row on stdout, nothing else")
    args = parser.parse_args(argv)
    args.batches = args.batches or ([1, 4] if args.all else [1])
    args.precisions = args.precisions or (["fp16", "bf16", "fp32"] if args.all else ["fp32" if args.tiny else "fp16"])
    if not args.tiny and not torch.cuda.is_available():
        parser.error("no CUDA device: run with --tiny for the CPU smoke run")
    return args


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    if args.tiny:
        from mintprep.generate.tiny import build_tiny_pipeline

        build, side, device = build_tiny_pipeline, 64, "cpu"
    else:
        build, side, device = sd15_sized_pipeline, 512, "cuda"
    steps, calls = args.steps or (4 if args.tiny else 20), args.calls or (1 if args.tiny else 3)
    build_s = 0.0
    rows: list[dict[str, Any]] = []
    for precision in args.precisions:
        settings = GeneratorSettings(kind="tiny", steps=steps, width=side, height=side, precision=precision,
                                     fallback=[], max_attempts=1, device=device, safety_checker=False)
        building = time.perf_counter()
        # A fresh fp32 build per precision: each is cast from the weights as built, as a load would be.
        gen = Generator(settings, LoadedModel(build(), {"kind": "bench"}, "bench"), torch.device(device))
        build_s += time.perf_counter() - building
        for batch in args.batches:
            if time.perf_counter() - started > args.budget_s:
                rows.append({"batch": batch, "precision": precision, "skipped": "time budget spent"})
                continue
            gen.settings = settings.model_copy(update={"batch_size": batch})  # one load serves every batch size
            rows.append(measure(gen, batch, calls))
        del gen
        if device == "cuda":
            torch.cuda.empty_cache()
    described = (f"{'tiny' if args.tiny else 'SD-1.5-sized (random weights)'} at {side}x{side}, {steps} steps, "
                 f"{calls} measured call(s) per row, {device}"
                 + (f" ({torch.cuda.get_device_name()})" if device == "cuda" else f", {torch.get_num_threads()} threads")
                 + f"; models built in {build_s:.1f}s, total {time.perf_counter() - started:.1f}s")
    if args.json:
        for row in rows:
            print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}))
    else:
        print_table(rows, described)
    return rows


if __name__ == "__main__":
    main()
