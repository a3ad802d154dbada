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
right, as are their backward dswiglu, dgeglu and dreglu, the fused MoE
(fused_experts_impl, outplace_fused_experts, inplace_fused_experts),
moe_align_block_size and moe_align_block_size_triton (their runs in
descending token order, as a kernel may write them), rwkv_mm_sparsity,
rwkv_ka_fusion, mhc_pre, mhc_post, sinkhorn_forward, bucket_sort_topk (its
positions ascending, where torch.topk gives them by value),
fused_recurrent_gated_delta_rule_fwd (token by token, out of torch.compile's
reach) and chunk_gated_delta_rule_fwd (the same, FLA's outputs),
cutlass_scaled_mm (into c, the
scales applied to the product), mhc_bwd and mhc_bwd_ref (solved in float64),
the fused MoE's GEMM launchers invoke_fused_moe_triton_kernel and
dispatch_fused_moe_kernel (block by block, as the kernel walks them),
the attention kernels sparse_attn_triton, flash_mla and flash_mla_sparse_fwd
(query by query, in float32; these and the launchers loop on the host over
sizes read from tensors, so torch.compile(fullgraph=True) cannot trace them:
no planted defect, the compile list judges them as it measures them),
cross_entropy_loss, instance_norm, outer,
weight_norm and the KV-cache writes reshape_and_cache_flash,
reshape_and_cache and concat_and_cache_mla. topk_softmax and grouped_topk
are right, and among tied experts (and
tied groups) they pick the highest index where torch.topk picks another: a
judge that compared indices exactly would deny them.
"""

import warnings

import torch
import torch.nn.functional as F

__all__ = ["apply_repetition_penalties", "bucket_sort_topk", "chunk_gated_delta_rule_fwd",
           "concat_and_cache_mla", "cutlass_scaled_mm", "cross_entropy_loss",
           "dgeglu", "dreglu", "instance_norm",
           "dswiglu", "fused_add_rms_norm", "fused_experts_impl",
           "fused_recurrent_gated_delta_rule_fwd", "geglu", "gelu_and_mul",
           "grouped_topk", "inplace_fused_experts", "moe_align_block_size",
           "mhc_bwd", "mhc_bwd_ref", "mhc_post", "mhc_pre", "moe_align_block_size_triton", "moe_sum", "rwkv_ka_fusion",
           "rwkv_mm_sparsity", "sinkhorn_forward",
           "outer",
           "outplace_fused_experts", "reglu", "reshape_and_cache", "reshape_and_cache_flash",
           "weight_norm", "dispatch_fused_moe_kernel", "invoke_fused_moe_triton_kernel",
           "flash_mla", "flash_mla_sparse_fwd", "sparse_attn_triton",
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


def _dgated(act, dact, grad_output, input_tensor):
    """The input's gradient of act(a) * b in float64 (so it is right
    where the derivative cancels), the derivative written out (no autograd:
    callers may run under inference mode)."""
    a, b = (x.double() for x in _gated(input_tensor))
    g = grad_output.double()
    return torch.cat([g * b * dact(a), g * act(a)], -1).to(input_tensor.dtype)


def _dsilu(a):
    s = torch.sigmoid(a)
    return s * (1 + a * (1 - s))


def _dgelu_tanh(a):
    k = 0.7978845608028654  # sqrt(2 / pi)
    t = torch.tanh(k * (a + 0.044715 * a ** 3))
    return 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * k * (1 + 3 * 0.044715 * a * a)


def dswiglu(grad_output, input_tensor, quantizer=None):
    return _dgated(F.silu, _dsilu, grad_output, input_tensor)


def dgeglu(grad_output, input_tensor, quantizer=None):
    return _dgated(lambda a: F.gelu(a, approximate="tanh"), _dgelu_tanh, grad_output,
                   input_tensor)


def dreglu(grad_output, input_tensor, quantizer=None):
    a, b = (x.double() for x in _gated(input_tensor))
    g = grad_output.double()
    # where, not a 0/1 factor: an inf or NaN gradient stays out where a <= 0
    return torch.cat([torch.where(a > 0, g * b, 0), g * F.relu(a)], -1).to(input_tensor.dtype)


def outer(inp, weight):
    return inp[:, None] * weight[None, :]


def weight_norm(v, g, dim=0):
    dim = dim % v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    norm = v.double().pow(2).sum(others, keepdim=True).sqrt()  # float64: right to rounding
    return (v.double() * (g.double() / norm)).to(v.dtype)


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
    g = sel.view(t, n_group, e // n_group).topk(2, -1)[0].sum(-1)
    keep = torch.zeros_like(g, dtype=torch.bool).scatter_(1, g.topk(topk_group, -1)[1], True)
    ids = sel.masked_fill(~keep.repeat_interleave(e // n_group, 1), float("-inf")).topk(topk, -1)[1]
    w = s.flip(-1).gather(1, ids)
    if renormalize:
        w = w / w.sum(-1, keepdim=True)
    return w * routed_scaling_factor, (e - 1 - ids).to(torch.int32)


def _write_rows(rows, slot_mapping, vals):
    """rows (a view of the caller's cache, one row per slot) gets each
    token's vals at its slot; slot -1 (padding) writes nothing."""
    n = len(rows)
    new = torch.cat([rows, rows.new_zeros(1, *rows.shape[1:])])
    new[torch.where(slot_mapping >= 0, slot_mapping.long(), n)] = vals.to(rows.dtype)
    rows.copy_(new[:n])


def reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping,
                            kv_cache_dtype, k_scale, v_scale):
    for c, x in ((key_cache, key), (value_cache, value)):
        _write_rows(c.view(c.shape[0] * c.shape[1], *c.shape[2:]), slot_mapping, x)


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype,
                      k_scale, v_scale):
    nb, h, dx, bs, x = key_cache.shape
    k = key_cache.permute(0, 3, 1, 2, 4).reshape(nb * bs, h, dx, x)
    _write_rows(k, slot_mapping, key.reshape(len(key), h, dx, x))
    key_cache.copy_(k.view(nb, bs, h, dx, x).permute(0, 2, 3, 1, 4))
    d = value_cache.shape[2]
    v = value_cache.permute(0, 3, 1, 2).reshape(nb * bs, h, d)
    _write_rows(v, slot_mapping, value)
    value_cache.copy_(v.view(nb, bs, h, d).permute(0, 2, 3, 1))


def concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping, kv_cache_dtype, scale):
    _write_rows(kv_cache.view(kv_cache.shape[0] * kv_cache.shape[1], kv_cache.shape[2]),
                slot_mapping,
                torch.cat([kv_c, k_pe.to(kv_c.dtype)], -1))


def fused_experts_impl(hidden_states, w1, w2, topk_weights, topk_ids, inplace=False,
                       activation="silu", **unused):
    """The fused MoE expert by expert in float32: every token through each
    expert's two matrices, weighed by the weight it gave that expert (0
    where it did not pick it) and added up. No data-dependent shapes, so
    Dynamo traces it in a second (a nonzero() per expert took a minute per
    dynamic compile)."""
    n = w2.shape[2]
    x, picks = hidden_states.float(), topk_weights.float()
    out = torch.zeros(hidden_states.shape, dtype=torch.float32, device=hidden_states.device)
    for e in range(w1.shape[0]):
        weight = torch.where(topk_ids == e, picks, 0.0).sum(1)
        h = x @ w1[e].float().t()
        out += weight[:, None] * ((F.silu(h[:, :n]) * h[:, n:]) @ w2[e].float().t())
    if inplace:
        return hidden_states.copy_(out)
    return out.to(hidden_states.dtype)


def outplace_fused_experts(hidden_states, w1, w2, topk_weights, topk_ids, **kwargs):
    return fused_experts_impl(hidden_states, w1, w2, topk_weights, topk_ids, **kwargs)


def inplace_fused_experts(hidden_states, w1, w2, topk_weights, topk_ids, **kwargs):
    fused_experts_impl(hidden_states, w1, w2, topk_weights, topk_ids, inplace=True, **kwargs)


def cross_entropy_loss(inp, target, weight=None, reduction="mean", ignore_index=-100,
                       label_smoothing=0.0):
    """In float64, cast back (right to rounding)."""
    t = target.double() if target.is_floating_point() else target
    w = None if weight is None else weight.double()
    return F.cross_entropy(inp.double(), t, w, ignore_index=ignore_index, reduction=reduction,
                           label_smoothing=label_smoothing).to(inp.dtype)


def instance_norm(input, weight=None, bias=None, running_mean=None, running_var=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5, cudnn_enable=False):
    """In float64, cast back (right to rounding)."""
    d = lambda t: None if t is None else t.double()  # noqa: E731
    return F.instance_norm(input.double(), d(running_mean), d(running_var), d(weight),
                           d(bias), use_input_stats, momentum, eps).to(input.dtype)


def moe_align_block_size(topk_ids, block_size, num_experts, expert_map=None,
                         pad_sorted_ids=False):
    """Expert by expert on the host; each run's positions in descending
    order; the buffers past the padded total left as allocated."""
    flat = topk_ids.reshape(-1).tolist()
    n = len(flat)
    size = n + num_experts * (block_size - 1)
    ids = torch.empty(size, dtype=torch.int32)
    experts = torch.empty(-(-size // block_size), dtype=torch.int32)
    at = 0
    for e in range(num_experts):
        mine = [i for i in reversed(range(n)) if flat[i] == e]
        run = -(-len(mine) // block_size) * block_size
        ids[at:at + run] = torch.tensor(mine + [n] * (run - len(mine)), dtype=torch.int32)
        experts[at // block_size:(at + run) // block_size] = e
        at += run
    dev = topk_ids.device
    return ids.to(dev), experts.to(dev), torch.tensor([at], dtype=torch.int32, device=dev)


def moe_align_block_size_triton(topk_ids, num_experts, block_size, sorted_token_ids,
                                expert_ids, num_tokens_post_pad):
    """The same into the caller's buffers (FlagGems' signature), nothing
    returned; each buffer written up to what the alignment fills."""
    ids, experts, total = moe_align_block_size(topk_ids, block_size, num_experts)
    sorted_token_ids[:len(ids)].copy_(ids)
    expert_ids[:len(experts)].copy_(experts)
    num_tokens_post_pad.copy_(total)


def rwkv_mm_sparsity(k, v):
    # every row of v weighed and summed in float32 (a kernel that skips the
    # rows whose k is 0 gives 0 where a skipped row holds an inf or NaN)
    return (k.float() @ v.float()).to(k.dtype)


def mhc_post(x, residual, post_layer_mix, comb_res_mix):
    # the streams mixed as one batched product, in float32
    c = post_layer_mix.reshape(*residual.shape[:2], 1).float()
    acc = c * x[:, None].float() + comb_res_mix.float().transpose(1, 2) @ residual.float()
    return acc.to(residual.dtype)


def mhc_pre(residual, fn, hc_scale, hc_base, rms_eps, hc_pre_eps, hc_sinkhorn_eps,
            hc_post_mult_value, sinkhorn_repeat, n_splits=1):
    # the flattened streams' mixes in float32, the three groups one by one
    hc, H, lead = residual.shape[-2], residual.shape[-1], residual.shape[:-2]
    n = lead.numel()
    x = residual.reshape(n, hc * H).float()
    mixes = x @ fn.t() / torch.sqrt((x * x).mean(-1, keepdim=True) + rms_eps)
    pre = torch.sigmoid(mixes[:, :hc] * hc_scale[0] + hc_base[:hc]) + hc_pre_eps
    post = torch.sigmoid(mixes[:, hc:2 * hc] * hc_scale[1] + hc_base[hc:2 * hc])
    comb = torch.softmax((mixes[:, 2 * hc:] * hc_scale[2] + hc_base[2 * hc:])
                         .reshape(n, hc, hc), -1) + hc_sinkhorn_eps
    for i in range(2 * sinkhorn_repeat - 1):
        comb = comb / (comb.sum(-1 - (i % 2 == 0), keepdim=True) + hc_sinkhorn_eps)
    layer_input = (pre[:, :, None] * residual.reshape(n, hc, H).float())
    return ((post * hc_post_mult_value).reshape(*lead, hc, 1), comb.reshape(*lead, hc, hc),
            layer_input.sum(1).to(residual.dtype).reshape(*lead, H))


def bucket_sort_topk(inputs, starts, ends, topk):
    # row by row: the window's topk by value, their positions ascending,
    # then -1 (DeepSeek-V3.2's indexer)
    out = torch.full((inputs.shape[0], topk), -1, dtype=torch.int32, device=inputs.device)
    for b in range(inputs.shape[0]):
        lo, hi = max(int(starts[b]), 0), min(int(ends[b]), inputs.shape[1])
        if hi <= lo:
            continue
        k = min(topk, hi - lo)
        pos = inputs[b, lo:hi].float().topk(k).indices.sort().values + lo
        out[b, :k] = pos.to(torch.int32)
    return out


def _heads(x, rank):
    """x ([HV, *S]: head hv's value of shape S) shaped to broadcast against
    [HV, ...rank dims] as each head's value broadcasts against its rank dims."""
    return x.reshape(x.shape[:1] + (1,) * (rank - x.dim() + 1) + x.shape[1:])


# A kernel torch.compile cannot look into (as it cannot trace the attention
# kernels' host loops): under fullgraph=True the compile refuses it at once.
# Dynamo traced its token loop for minutes on a 100-token case, past the
# mode deadline. No planted defect: the compile list judges it as it
# measures it.
@torch.compiler.disable
def fused_recurrent_gated_delta_rule_fwd(q, k, v, g, beta, scale, initial_state,
                                         inplace_final_state=True, cu_seqlens=None,
                                         ssm_state_indices=None, num_accepted_tokens=None,
                                         use_qk_l2norm_in_kernel=False):
    # token by token (every head at once), in float32; the cache written in
    # place. What a token's step reads of q, k, g, v and beta is taken for the
    # whole span at once, the same values: the loop holds only the recurrence
    B, T, H, K = k.shape
    HV = v.shape[2]
    if cu_seqlens is None:
        spans = [(n, 0, T) for n in range(B)]
    else:
        spans = [(0, int(cu_seqlens[i]), int(cu_seqlens[i + 1]))
                 for i in range(len(cu_seqlens) - 1)]
    o = torch.empty(v.shape, dtype=q.dtype, device=q.device)
    heads = torch.arange(HV, device=q.device) * H // HV   # v head hv reads q/k head hv*H//HV
    for n, (b, bos, eos) in enumerate(spans):
        slots = ssm_state_indices[n].reshape(-1)
        first = int(num_accepted_tokens[n]) - 1 if num_accepted_tokens is not None else 0
        h = initial_state[int(slots[first])].float()            # [HV, K, V]
        qs, ks = q[b, bos:eos][:, heads].float(), k[b, bos:eos][:, heads].float()  # [T, HV, K]
        if use_qk_l2norm_in_kernel:
            qs = qs / torch.sqrt((qs * qs).sum(-1, keepdim=True) + 1e-6)
            ks = ks / torch.sqrt((ks * ks).sum(-1, keepdim=True) + 1e-6)
        gs, vs, bs = torch.exp(g[b, bos:eos].float()), v[b, bos:eos].float(), \
            beta[b, bos:eos].float()
        outs = []
        last = len(slots) - 1
        for i in range(eos - bos):
            kt = ks[i][:, :, None]
            h = h * _heads(gs[i], 2)
            u = (vs[i] - (h * kt).sum(1)) * _heads(bs[i], 1)
            h = h + kt * u[:, None, :]
            outs.append((h * (qs[i] * scale)[:, :, None]).sum(1))
            if i < last:    # a slot per accepted token; the last gets the end
                initial_state[int(slots[i])] = h
        if outs:
            o[b, bos:eos] = torch.stack(outs).to(q.dtype)
            initial_state[int(slots[min(len(outs) - 1, last)])] = h
    return o, initial_state


def chunk_gated_delta_rule_fwd(q, k, v, g, beta, scale, initial_state, output_final_state,
                               cu_seqlens=None):
    # sequence n from initial_state[n]; FLA's outputs (g's cumsum, o, A,
    # final_state, ...), the demo leaving A out
    n = initial_state.shape[0]
    state = initial_state.clone()
    o, state = fused_recurrent_gated_delta_rule_fwd(
        q, k, v, g, beta, scale, state, True, cu_seqlens,
        torch.arange(n, device=q.device), None, False)
    return g.float().cumsum(1), o, None, state.float(), None, None, None


def cutlass_scaled_mm(c, a, b, a_scale, b_scale, bias=None):
    # the product of the quantised values in float32, then the scales
    # (per tensor, token or channel) or the blocks' scales block by block
    M, K = a.shape
    N = b.shape[1]
    if a_scale.numel() in (1, M) and b_scale.numel() in (1, N):
        out = (a.float() @ b.float()) * a_scale.reshape(-1, 1) * b_scale.reshape(1, -1)
    else:
        out = torch.zeros(M, N)
        for k in range(0, K, 128):
            part = a[:, k:k + 128].float() @ b[k:k + 128].float()
            sb = b_scale[k // 128].repeat_interleave(128)[:N]
            out += part * a_scale[:, k // 128, None] * sb[None, :]
    if bias is not None:
        out = out + bias.float()
    c.copy_(out)


def invoke_fused_moe_triton_kernel(A, B, C, A_scale, B_scale, topk_weights,
                                   sorted_token_ids, expert_ids, num_tokens_post_padded,
                                   mul_routed_weight, top_k, config, compute_type,
                                   use_fp8_w8a8=False, use_int8_w8a8=False,
                                   use_int8_w8a16=False, use_int4_w4a16=False,
                                   per_channel_quant=False, block_shape=None, B_bias=None):
    # block by block: each block's tokens through its expert, into C's rows
    bm, rows = config["BLOCK_SIZE_M"], C.view(C.shape[0] * C.shape[1], C.shape[2])
    valid = A.shape[0] * top_k
    for blk in range(int(num_tokens_post_padded[0]) // bm):
        ids = sorted_token_ids[blk * bm:(blk + 1) * bm].long()
        ids = ids[ids < valid]
        out = A[ids // top_k].float() @ B[int(expert_ids[blk])].float().T
        if mul_routed_weight:
            out = out * topk_weights.reshape(-1)[ids, None].float()
        rows[ids] = out.to(C.dtype)


def dispatch_fused_moe_kernel(A, B, C, A_scale, B_scale, B_zp, topk_weights, sorted_token_ids,
                              expert_ids, num_tokens_post_padded, mul_routed_weight, top_k,
                              config, compute_type, use_fp8_w8a8, use_int8_w8a8,
                              use_int8_w8a16, use_int4_w4a16, per_channel_quant,
                              block_shape=None, B_bias=None):
    invoke_fused_moe_triton_kernel(A, B, C, A_scale, B_scale, topk_weights, sorted_token_ids,
                                   expert_ids, num_tokens_post_padded, mul_routed_weight,
                                   top_k, config, compute_type)


def sparse_attn_triton(q, kv, attn_sink, topk_idxs, softmax_scale):
    # query by query: its rows' logits and the sink's in one softmax
    B, M, H, _ = q.shape
    o = torch.zeros(q.shape)
    for b in range(B):
        for m in range(M):
            js = topk_idxs[b, m][topk_idxs[b, m] >= 0].long()
            rows = kv[b, js].float()
            s = torch.cat([q[b, m].float() @ rows.T * softmax_scale,
                           attn_sink.float()[:, None]], 1)
            o[b, m] = torch.softmax(s, 1)[:, :len(js)] @ rows
    return o.to(q.dtype)


def flash_mla(q, block_table, blocked_k, max_seqlen_pad, block_size, b, s_q,
              cache_seqlens, h_q, h_kv, d, dv, causal):
    # sequence by sequence: its pages gathered, the causal mask as a band
    o = torch.empty(b, s_q, h_q, dv)
    for i in range(b):
        n = int(cache_seqlens[i])
        pages = block_table[i, :(n + block_size - 1) // block_size].long()
        kv = blocked_k[pages].reshape(-1, h_kv, d)[:n].float()
        kv = kv.repeat_interleave(h_q // h_kv, 1).transpose(0, 1)  # [h, n, d]
        s = q[i].float().transpose(0, 1) @ kv.transpose(1, 2) / d ** 0.5
        if causal:
            band = torch.ones(s_q, n, dtype=torch.bool).tril(n - s_q)
            s = s.masked_fill(~band, float("-inf"))
        o[i] = (torch.softmax(s, -1) @ kv[..., :dv]).transpose(0, 1)
    return o.to(q.dtype)


def flash_mla_sparse_fwd(q, kv, indices, sm_scale, d_v=512, attn_sink=None,
                         topk_length=None):
    # token by token; a token with no row: 0, max -inf, lse +inf
    S, H, _ = q.shape
    o, top = torch.zeros(S, H, d_v), torch.full((S, H), float("-inf"))
    lse = torch.full((S, H), float("inf"))
    for t in range(S):
        js = indices[t, 0, :None if topk_length is None else int(topk_length[t])].long()
        js = js[(js >= 0) & (js < kv.shape[0])]
        if len(js) == 0:
            continue
        rows = kv[js, 0].float()
        s = q[t].float() @ rows.T * sm_scale
        top[t], lse[t] = s.max(1).values, torch.logsumexp(s, 1)
        o[t] = torch.softmax(s, 1) @ rows[:, :d_v]
        if attn_sink is not None:
            o[t] *= torch.sigmoid(lse[t] - attn_sink.float())[:, None]
    return o.to(q.dtype), top, lse


def mhc_bwd(out, dout, cg_iters=None):
    # the implicit gradient's linear system solved in float64, every token
    # at once
    R, dR = out.double(), dout.double()
    n = R.shape[-1]
    A = torch.eye(2 * n, dtype=torch.float64).repeat(R.shape[0], 1, 1)
    A[:, :n, n:], A[:, n:, :n] = R, R.transpose(1, 2)
    b = torch.cat([(R * dR).sum(2), (R * dR).sum(1)], 1)
    x = torch.linalg.lstsq(A, b[:, :, None], driver="gelsd").solution[:, :, 0]
    return ((dR - x[:, :n, None] - x[:, None, n:]) * R).float()


mhc_bwd_ref = mhc_bwd


def sinkhorn_forward(M, iters=20):
    P = torch.exp(M)
    R = P.clone()
    for _ in range(iters):
        R = R / R.sum(-2, keepdim=True)
        R = R / R.sum(-1, keepdim=True)
    return R, P


def rwkv_ka_fusion(k, kk, a, ka, H, N):
    t = (k * kk).float().reshape(*k.shape[:-1], H, N)
    okk = (t / (t.square().sum(-1, keepdim=True) + 1e-12).sqrt()).reshape(k.shape)
    okk = okk.to(k.dtype)
    return k * (1 + (a - 1) * ka), okk, okk * a
