"""diffusers -> original (CompVis/LDM) key layout for Stable Diffusion 1.x-shaped pipelines. Test-only.

A single-file checkpoint is what users download from model sites: one state dict with the UNet under
`model.diffusion_model.`, the VAE under `first_stage_model.` and the CLIP text encoder under
`cond_stage_model.transformer.`, in the original repository's names. diffusers ships only the direction
LDM -> diffusers (`diffusers.loaders.single_file_utils`), so the test that loads such a file through
`from_single_file` writes it with this inverse of diffusers' `convert_ldm_unet_checkpoint`,
`convert_ldm_vae_checkpoint` and `convert_ldm_clip_checkpoint` (the single-file test checks the round trip: the
loaded weights hash the same as the saved folder's). A key it has no rule for is an error, so a model it does not
cover fails loudly instead of becoming a checkpoint with missing weights.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import torch
from diffusers.loaders.single_file_utils import DIFFUSERS_TO_LDM_MAPPING, LDM_UNET_KEY

LDM_VAE_PREFIX = "first_stage_model."
LDM_CLIP_PREFIX = "cond_stage_model.transformer."

UNET_RESNET = {"norm1": "in_layers.0", "conv1": "in_layers.2", "time_emb_proj": "emb_layers.1",
               "norm2": "out_layers.0", "conv2": "out_layers.3", "conv_shortcut": "skip_connection"}
VAE_RESNET = {"conv_shortcut": "nin_shortcut"}
VAE_ATTENTION = {"group_norm": "norm", "to_q": "q", "to_k": "k", "to_v": "v", "to_out.0": "proj_out"}
VAE_ATTENTION_CONVS = ("q", "k", "v", "proj_out")  # 1x1 convolutions in LDM, linear layers in diffusers

Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


def _renamed(layer_and_param: str, names: dict[str, str]) -> str:
    """`norm1.weight` -> `in_layers.0.weight` with `names`; other layers keep their names."""
    for name, ldm_name in names.items():
        if layer_and_param.startswith(name + "."):
            return ldm_name + layer_and_param[len(name):]
    return layer_and_param


def _unet_rules(config: Any) -> list[Rule]:
    # LDM numbers every layer of the UNet in one sequence per side. A down block takes layers_per_block slots plus
    # one for its downsampler; an up block has one resnet more than a down block and keeps its upsampler inside
    # the last slot: both take layers_per_block + 1.
    per_block = config.layers_per_block + 1
    has_attention = [t.startswith("CrossAttn") for t in config.up_block_types]

    def layer(side: str, first: int) -> Callable[[re.Match[str]], str]:
        def rename(m: re.Match[str]) -> str:
            index = int(m["block"]) * per_block + int(m["layer"]) + first
            if m["kind"] == "resnets":
                return f"{side}.{index}.0.{_renamed(m['rest'], UNET_RESNET)}"
            return f"{side}.{index}.1.{m['rest']}"
        return rename

    def upsampler(m: re.Match[str]) -> str:
        block = int(m["block"])
        last_slot = (block + 1) * per_block - 1
        # The upsampler follows the last layer's resnet, and its attention when the block has one.
        return f"output_blocks.{last_slot}.{2 if has_attention[block] else 1}.conv.{m['rest']}"

    def mid(m: re.Match[str]) -> str:
        index = int(m["layer"])
        if m["kind"] == "resnets":
            return f"middle_block.{2 * index}.{_renamed(m['rest'], UNET_RESNET)}"
        return f"middle_block.{2 * index + 1}.{m['rest']}"

    layers = r"\.(?P<block>\d+)\.(?P<kind>resnets|attentions)\.(?P<layer>\d+)\.(?P<rest>.+)"
    return [
        (re.compile("down_blocks" + layers), layer("input_blocks", 1)),  # input_blocks.0 is conv_in
        (re.compile(r"down_blocks\.(?P<block>\d+)\.downsamplers\.0\.conv\.(?P<rest>.+)"),
         lambda m: f"input_blocks.{(int(m['block']) + 1) * per_block}.0.op.{m['rest']}"),
        (re.compile(r"mid_block\.(?P<kind>resnets|attentions)\.(?P<layer>\d+)\.(?P<rest>.+)"), mid),
        (re.compile("up_blocks" + layers), layer("output_blocks", 0)),
        (re.compile(r"up_blocks\.(?P<block>\d+)\.upsamplers\.0\.conv\.(?P<rest>.+)"), upsampler),
    ]


def _vae_rules(config: Any) -> list[Rule]:
    last_up = len(config.up_block_types) - 1  # LDM numbers decoder blocks from the lowest resolution up

    def attention(m: re.Match[str]) -> str:
        return f"{m['coder']}.mid.attn_1.{_renamed(m['rest'], VAE_ATTENTION)}"

    return [
        (re.compile(r"encoder\.down_blocks\.(?P<block>\d+)\.resnets\.(?P<layer>\d+)\.(?P<rest>.+)"),
         lambda m: f"encoder.down.{m['block']}.block.{m['layer']}.{_renamed(m['rest'], VAE_RESNET)}"),
        (re.compile(r"encoder\.down_blocks\.(?P<block>\d+)\.downsamplers\.0\.conv\.(?P<rest>.+)"),
         lambda m: f"encoder.down.{m['block']}.downsample.conv.{m['rest']}"),
        (re.compile(r"(?P<coder>encoder|decoder)\.mid_block\.resnets\.(?P<layer>\d+)\.(?P<rest>.+)"),
         lambda m: f"{m['coder']}.mid.block_{int(m['layer']) + 1}.{_renamed(m['rest'], VAE_RESNET)}"),
        (re.compile(r"(?P<coder>encoder|decoder)\.mid_block\.attentions\.0\.(?P<rest>.+)"), attention),
        (re.compile(r"decoder\.up_blocks\.(?P<block>\d+)\.resnets\.(?P<layer>\d+)\.(?P<rest>.+)"),
         lambda m: f"decoder.up.{last_up - int(m['block'])}.block.{m['layer']}.{_renamed(m['rest'], VAE_RESNET)}"),
        (re.compile(r"decoder\.up_blocks\.(?P<block>\d+)\.upsamplers\.0\.conv\.(?P<rest>.+)"),
         lambda m: f"decoder.up.{last_up - int(m['block'])}.upsample.conv.{m['rest']}"),
    ]


def _to_ldm(state: dict[str, torch.Tensor], fixed: dict[str, str], rules: list[Rule]) -> dict[str, torch.Tensor]:
    converted = {}
    for key, tensor in state.items():
        if key in fixed:
            converted[fixed[key]] = tensor
            continue
        for pattern, rename in rules:
            match = pattern.fullmatch(key)
            if match:
                converted[rename(match)] = tensor
                break
        else:
            raise KeyError(f"no LDM name for {key}: this converter covers SD 1.x-shaped UNets and KL VAEs only")
    return converted


def unet_to_ldm(unet: torch.nn.Module) -> dict[str, torch.Tensor]:
    return _to_ldm(unet.state_dict(), DIFFUSERS_TO_LDM_MAPPING["unet"]["layers"], _unet_rules(unet.config))


def vae_to_ldm(vae: torch.nn.Module) -> dict[str, torch.Tensor]:
    converted = _to_ldm(vae.state_dict(), DIFFUSERS_TO_LDM_MAPPING["vae"], _vae_rules(vae.config))
    return {key: _as_conv(key, tensor) for key, tensor in converted.items()}


def _as_conv(key: str, tensor: torch.Tensor) -> torch.Tensor:
    layer = key.split(".")[-2]
    if ".attn_1." in key and layer in VAE_ATTENTION_CONVS and key.endswith(".weight"):
        return tensor[:, :, None, None]
    return tensor


def clip_to_ldm(text_encoder: torch.nn.Module) -> dict[str, torch.Tensor]:
    # transformers >= 5.6 flattened CLIPTextModel (no `text_model.` level); checkpoints keep the original names.
    return {LDM_CLIP_PREFIX + (key if key.startswith("text_model.") else "text_model." + key): tensor
            for key, tensor in text_encoder.state_dict().items()}


def pipeline_to_ldm(pipe: Any) -> dict[str, torch.Tensor]:
    """One state dict, as in an original SD 1.x `.safetensors` checkpoint, from a StableDiffusionPipeline."""
    checkpoint = {LDM_UNET_KEY + key: value for key, value in unet_to_ldm(pipe.unet).items()}
    checkpoint.update({LDM_VAE_PREFIX + key: value for key, value in vae_to_ldm(pipe.vae).items()})
    checkpoint.update(clip_to_ldm(pipe.text_encoder))
    # safetensors refuses tensors that share storage or are not contiguous.
    return {key: value.detach().clone().contiguous() for key, value in checkpoint.items()}
