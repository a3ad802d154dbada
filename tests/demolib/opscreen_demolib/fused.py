"""The demo library's own entry points, called directly by engines (not
through aten), as FlagGems' `flag_gems.fused` module is. Planted defects:

- gelu_and_mul is right eagerly, but it looks at its input on the host
  (a NaN check that reads the tensor), which torch.compile(fullgraph=True)
  cannot trace: it breaks an engine that compiles its model;
- fused_add_rms_norm normalises over every dim but the first instead of
  normalized_shape's: wrong on 3-D inputs normalised over their last dim;
- moe_sum branches in Python on the expert count: right, but a dynamic
  compile recompiles when the count crosses the branch.

apply_repetition_penalties, silu_and_mul_out, swiglu, geglu and reglu are
right. topk_softmax and grouped_topk are right, and among tied experts (and
tied groups) they pick the highest index where torch.topk picks another: a
judge that compared indices exactly would deny them.
"""

import warnings

import torch
import torch.nn.functional as F

__all__ = ["apply_repetition_penalties", "fused_add_rms_norm", "geglu",
           "gelu_and_mul", "grouped_topk", "moe_sum", "reglu",
           "silu_and_mul", "silu_and_mul_out", "skip_layer_norm", "swiglu",
           "topk_softmax"]


def silu_and_mul(A, B):
    return F.silu(A) * B  # torch's promotion of A and B, as FlagGems'


def apply_repetition_penalties(logits, prompt_mask, output_mask, repetition_penalties):
    # in place on the logits, as vLLM's and FlagGems'
    p = repetition_penalties.unsqueeze(1).to(logits.dtype)
    p = torch.where(prompt_mask | output_mask, p, torch.ones_like(p))
    logits.copy_(torch.where(logits > 0, logits / p, logits * p))


def silu_and_mul_out(A, B, out):
    return out.copy_(F.silu(A) * B)


def _gated(input_tensor):
    if input_tensor.dim() == 0 or input_tensor.shape[-1] % 2:
        raise ValueError("the last dimension must be even")
    return input_tensor.chunk(2, -1)


def swiglu(input_tensor, quantizer=None):
    a, b = _gated(input_tensor)
    return F.silu(a) * b


def geglu(input_tensor, quantizer=None):
    a, b = _gated(input_tensor)
    return F.gelu(a, approximate="tanh") * b


def reglu(input_tensor, quantizer=None):
    a, b = _gated(input_tensor)
    return F.relu(a) * b


def gelu_and_mul(x, y, approximate="none"):
    # a host-side sanity check: it reads the tensor (a graph break under
    # torch.compile) and changes nothing
    if bool(torch.isnan(x).any()):
        warnings.warn("gelu_and_mul: NaN input")
    return F.gelu(x, approximate=approximate) * y


def fused_add_rms_norm(x, residual, normalized_shape, weight, eps=1e-5):
    """In place: x gets the normalised sum, residual the sum."""
    s = x.float() + residual.float()
    dims = tuple(range(1, s.dim())) or (0,)  # planted: not normalized_shape's
    out = s * torch.rsqrt(s.pow(2).mean(dims, keepdim=True) + eps) * weight.float()
    x.copy_(out)
    residual.copy_(s)
    return x, residual


def skip_layer_norm(x, residual, normalized_shape, weight, bias, eps=1e-5):
    s = x.float() + residual.float()
    return F.layer_norm(s, normalized_shape, weight.float(), bias.float(), eps).to(x.dtype)


def moe_sum(input, output):
    """Writes the sum over the top-k dim into output; returns nothing.
    Planted: a Python branch on the expert count (a kernel picked per k),
    right both ways, recompiles under torch.compile(dynamic=True) when k
    crosses it."""
    if input.shape[1] > 4:
        output.copy_(input[:, :4].float().sum(1) + input[:, 4:].float().sum(1))
    else:
        output.copy_(input.float().sum(1))


def topk_softmax(topk_weights, topk_indices, token_expert_indices, gating_output,
                 renormalize=False):
    """Fills the three buffers, as FlagGems' and vLLM's do. The experts are
    searched from the last, so a tie goes to the highest index."""
    t, e = gating_output.shape
    k = topk_weights.shape[-1]
    w, i = torch.softmax(gating_output.float(), -1).flip(-1).topk(k, -1)
    if renormalize:
        w = w / w.sum(-1, keepdim=True)
    topk_weights.copy_(w)
    topk_indices.copy_(e - 1 - i)
    token_expert_indices.copy_(torch.arange(k, device=w.device)[None, :] * t +
                               torch.arange(t, device=w.device)[:, None])


def grouped_topk(scores, n_group, topk_group, topk, renormalize, routed_scaling_factor,
                 bias, scoring_func=0):
    """DeepSeek-V3's grouped routing in float32, as FlagGems' signature has
    it (weights float32, expert ids int32). The experts are searched from
    the last (the groups too), so a tie goes to the highest index."""
    t, e = scores.shape
    s = scores.float().sigmoid() if scoring_func else scores.float()
    sel = (s + bias.float()).flip(-1)
    g = sel.view(t, n_group, -1).topk(2, -1)[0].sum(-1)
    keep = torch.zeros_like(g, dtype=torch.bool).scatter_(1, g.topk(topk_group, -1)[1], True)
    ids = sel.masked_fill(~keep.repeat_interleave(e // n_group, 1), float("-inf")).topk(topk, -1)[1]
    w = s.flip(-1).gather(1, ids)
    if renormalize:
        w = w / w.sum(-1, keepdim=True)
    return w * routed_scaling_factor, (e - 1 - ids).to(torch.int32)
