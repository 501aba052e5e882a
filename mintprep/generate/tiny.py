"""The built-in `tiny` model: a Stable Diffusion pipeline built from small configs, random weights from a fixed seed.

It needs no download, runs a 64x64 piece in well under a second on a CPU, and is byte-for-byte the same on every
machine with the same library versions, which makes it the model of the offline demo and of the tests.

Two choices make its output look like (very abstract) pictures instead of noise:
- the scheduler predicts the sample (`prediction_type="sample"`), so the final latents are the UNet's output,
  a smooth function of prompt and noise, instead of a random-weight epsilon prediction that diverges;
- the VAE has four blocks, so like real SD it upsamples latents x8 and neighbouring pixels are correlated.

Variants (`generator.model` when `kind: tiny`) that fail for real, for tests and demos:
- `fp16-overflow-vae`: one decoder convolution is scaled by 2**16. The GroupNorm after it cancels the scale in fp32
  and bf16, but in fp16 its activations pass 65504 and become inf, so the decoded image is NaN. The UNet is untouched,
  so `precision: {vae: fp16}` fails only in the VAE and a fallback re-decodes the same latents.
- `constant-decoder`: the decoder's output convolution is zeroed and its bias set to a grey: every image is flat.
"""

from __future__ import annotations

from typing import Callable

import torch
from diffusers import AutoencoderKL, DDIMScheduler, StableDiffusionPipeline, UNet2DConditionModel
from transformers import CLIPTextConfig, CLIPTextModel

from mintprep.base import ConfigError
from mintprep.generate.tokenizer import BOS, EOS, MODEL_MAX_LENGTH, byte_level_clip_tokenizer, byte_level_vocab

WEIGHT_SEED = 20240229  # changing it changes every tiny image: it is part of the fingerprint via the weights
LATENT_CHANNELS = 4
VAE_BLOCKS = 4  # 3 upsamplers: x8, as in SD 1.x/2.x/XL
UNET_OUTPUT_GAIN = 3.0  # brings the sampled latents to std ~1, the scaled-latent convention of real SD VAEs
DECODER_CONTRAST = 1.5
SILU_OF_NORMAL_MEAN = 0.2066
KERNEL_TEXTURE = 0.25
OVERFLOW_GAIN = 2.0**16  # a power of two: exact in every float format, so only the range overflows
CONSTANT_DECODER_GREY = 0.1


def _unet() -> UNet2DConditionModel:
    torch.manual_seed(WEIGHT_SEED)
    unet = UNet2DConditionModel(
        sample_size=8, in_channels=LATENT_CHANNELS, out_channels=LATENT_CHANNELS, block_out_channels=(16, 32),
        layers_per_block=1, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=16, norm_num_groups=4,
        attention_head_dim=4,
    )
    with torch.no_grad():
        unet.conv_out.weight.mul_(UNET_OUTPUT_GAIN)
        unet.conv_out.bias.mul_(UNET_OUTPUT_GAIN)
    return unet


def _vae() -> AutoencoderKL:
    torch.manual_seed(WEIGHT_SEED + 1)
    vae = AutoencoderKL(
        in_channels=3, out_channels=3, latent_channels=LATENT_CHANNELS, block_out_channels=[8] * VAE_BLOCKS,
        down_block_types=["DownEncoderBlock2D"] * VAE_BLOCKS, up_block_types=["UpDecoderBlock2D"] * VAE_BLOCKS,
        layers_per_block=1, norm_num_groups=2, sample_size=64,
    )
    _smooth_kernels(vae.decoder)
    with torch.no_grad():
        # Centre each colour channel on mid-grey (its input, SiLU of a normalised value, has mean ~0.2066) so the
        # colours come from the random channel mix rather than a cast, then stretch the contrast.
        conv_out = vae.decoder.conv_out
        conv_out.weight.mul_(DECODER_CONTRAST)
        conv_out.bias.copy_(-SILU_OF_NORMAL_MEAN * conv_out.weight.sum(dim=(1, 2, 3)))
    return vae


def _smooth_kernels(decoder: torch.nn.Module) -> None:
    """Random 3x3 kernels turn every upsampling into stripes and speckle (pixel-noise statistics); a trained
    decoder is smooth. Give each kernel one random gain per channel pair and a binomial (blur) footprint, and keep
    a little of the random kernel for texture."""
    binomial = torch.tensor([1.0, 2.0, 1.0])
    footprint = torch.outer(binomial, binomial) / 4.0
    with torch.no_grad():
        for module in decoder.modules():
            if isinstance(module, torch.nn.Conv2d) and module.kernel_size == (3, 3):
                gain = module.weight.sum(dim=(2, 3), keepdim=True) / 3.0
                module.weight.copy_(gain * footprint + KERNEL_TEXTURE * module.weight)


def _text_encoder() -> CLIPTextModel:
    torch.manual_seed(WEIGHT_SEED + 2)
    vocab = byte_level_vocab()
    config = CLIPTextConfig(
        vocab_size=len(vocab), bos_token_id=vocab[BOS], eos_token_id=vocab[EOS], pad_token_id=vocab[EOS],
        hidden_size=16, intermediate_size=32, num_attention_heads=2, num_hidden_layers=2,
        max_position_embeddings=MODEL_MAX_LENGTH, layer_norm_eps=1e-5,
    )
    return CLIPTextModel(config)


def _scheduler() -> DDIMScheduler:
    return DDIMScheduler(
        beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear", clip_sample=False, set_alpha_to_one=False,
        steps_offset=1, prediction_type="sample",
    )


def _overflow_in_fp16(vae: AutoencoderKL) -> None:
    # conv1 of the first mid-block resnet feeds norm2 only (the residual bypasses it), so the gain is normalised
    # away in any format with fp32's exponent range.
    conv = vae.decoder.mid_block.resnets[0].conv1
    with torch.no_grad():
        conv.weight.mul_(OVERFLOW_GAIN)
        conv.bias.mul_(OVERFLOW_GAIN)


def _constant_output(vae: AutoencoderKL) -> None:
    with torch.no_grad():
        vae.decoder.conv_out.weight.zero_()
        vae.decoder.conv_out.bias.fill_(CONSTANT_DECODER_GREY)


VARIANTS: dict[str, Callable[[AutoencoderKL], None] | None] = {
    "default": None,
    "fp16-overflow-vae": _overflow_in_fp16,
    "constant-decoder": _constant_output,
}


def build_tiny_pipeline(variant: str | None = None) -> StableDiffusionPipeline:
    variant = variant or "default"
    if variant not in VARIANTS:
        raise ConfigError(f"generator.model: unknown tiny variant {variant!r}; use one of {', '.join(VARIANTS)}")
    vae = _vae()
    alter = VARIANTS[variant]
    if alter is not None:
        alter(vae)
    return StableDiffusionPipeline(
        vae=vae, text_encoder=_text_encoder(), tokenizer=byte_level_clip_tokenizer(), unet=_unet(),
        scheduler=_scheduler(), safety_checker=None, feature_extractor=None, image_encoder=None,
        requires_safety_checker=False,
    )
