"""References of a library's own entry points (keys "fused::NAME").

Engines call a kernel library's fused operators directly, outside aten
(vllm-plugin-FL: silu_and_mul, gelu_and_mul, fused_add_rms_norm, ...). For
each one opscreen knows, this module defines a reference operator with the
schema the catalog gives the key (probes/catalog.c; tests/runner checks the
two agree) in the torch.library namespace `opscreen_fused`, written as an
engine's native path computes it (vLLM's forward_native: norms accumulate in
float32, pointwise products stay in the input dtype). The runner calls it as
"native" on the case's inputs and, on float64 copies, as the fp64 oracle,
exactly as it calls an aten operator; the candidate is the library's
function, called through CALLS[name] with the same arguments.

A name of the library's entry points without a reference here is reported
with an empty schema: the daemon has no probes for it and its name is never
allowed (fail closed).
"""

import torch
import torch.nn.functional as F

NAMESPACE = "opscreen_fused"
PREFIX = "fused::"

_lib = torch.library.Library(NAMESPACE, "DEF")
SCHEMAS = {}  # name -> schema (without namespace)
IMPLS = {}  # name -> the reference's Python function (a repro embeds it)
HELPERS = {}  # name -> the functions IMPLS[name] calls (a repro embeds them first)
CALLS = {}  # name -> call(library_fn, *args, **kwargs) -> outputs as the reference's


def _silu_and_mul(A, B):
    return F.silu(A) * B


def _gelu_and_mul(x, y, approximate="none"):
    return F.gelu(x, approximate=approximate) * y


def _fused_add_rms_norm(x, residual, normalized_shape, weight, eps=1e-5):
    acc = torch.float64 if x.dtype == torch.float64 else torch.float32
    s = x.to(acc) + residual.to(acc)
    var = s.pow(2).mean(tuple(range(-len(normalized_shape), 0)), keepdim=True)
    return (s * torch.rsqrt(var + eps) * weight.to(acc)).to(x.dtype), s.to(x.dtype)


def _skip_layer_norm(x, residual, normalized_shape, weight, bias, eps=1e-5):
    acc = torch.float64 if x.dtype == torch.float64 else torch.float32
    s = x.to(acc) + residual.to(acc)
    return F.layer_norm(s, normalized_shape, weight.to(acc), bias.to(acc), eps).to(x.dtype)


def _moe_sum(input, output):
    return input.sum(1)


def _apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, rotary_interleaved=False,
                          inplace=False):
    if position_ids is None and q.dim() != 4:  # the API's contract
        raise ValueError("without position_ids q is (batch, seq, heads, dim)")
    pos = torch.arange(q.shape[-3], device=q.device) if position_ids is None else position_ids
    c, s = cos[pos].unsqueeze(-2).to(q.dtype), sin[pos].unsqueeze(-2).to(q.dtype)

    def rot(x):
        x1, x2 = (x[..., 0::2], x[..., 1::2]) if rotary_interleaved else x.chunk(2, -1)
        y = (x1 * c - x2 * s, x2 * c + x1 * s)
        return torch.stack(y, -1).flatten(-2) if rotary_interleaved else torch.cat(y, -1)
    return rot(q), rot(k)


def _topk_softmax(gating_output, topk, renormalize=False):
    """vLLM's routing: softmax over the experts in float32, the top k,
    optionally renormalised over the k; token_expert_indices[t, j] = j * T + t."""
    acc = torch.float64 if gating_output.dtype == torch.float64 else torch.float32
    w, i = torch.softmax(gating_output.to(acc), -1).topk(topk, -1)
    w = w / w.sum(-1, keepdim=True) if renormalize else w
    src = torch.arange(topk * len(gating_output), device=gating_output.device)
    return w, i.to(torch.int32), src.view(topk, len(gating_output)).t().to(torch.int32)


# TransformerEngine's gated units, which FlagGems' swiglu, geglu and reglu
# follow: the last dim holds the activation's input, then the gate, so it
# must be even (_halves checks it; a repro embeds it, HELPERS)
def _halves(input):
    if input.dim() == 0 or input.shape[-1] % 2:
        raise ValueError("the last dimension of the input must be even")
    return input.chunk(2, -1)


def _swiglu(input):
    a, b = _halves(input)
    return F.silu(a) * b


def _geglu(input):  # the tanh form of GELU, as TransformerEngine's
    a, b = _halves(input)
    return F.gelu(a, approximate="tanh") * b


def _reglu(input):
    a, b = _halves(input)
    return F.relu(a) * b


# their backward (TransformerEngine's dswiglu, dgeglu, dreglu): the gradient
# of the input given the output's, the activation's part then the gate's
def _dswiglu(grad_output, input):
    a, b = _halves(input)
    return torch.cat([torch.ops.aten.silu_backward(grad_output * b, a),
                      grad_output * F.silu(a)], -1)


def _dgeglu(grad_output, input):
    a, b = _halves(input)
    return torch.cat([torch.ops.aten.gelu_backward(grad_output * b, a, approximate="tanh"),
                      grad_output * F.gelu(a, approximate="tanh")], -1)


def _dreglu(grad_output, input):
    a, b = _halves(input)
    return torch.cat([torch.where(a > 0, grad_output * b, 0), grad_output * F.relu(a)], -1)


def _outer(inp, weight):
    return torch.outer(inp, weight)


def _rwkv_mm_sparsity(k, v):
    """RWKV's channel mix k @ v (k a ReLU-squared activation, mostly zero,
    [K]; v [K, N]): every row of v weighed by its k."""
    return torch.matmul(k, v)


def _rwkv_ka_fusion(k, kk, a, ka, heads, head_size):
    """RWKV-7's time mix of its keys (the model's own code): k scaled by
    1 + (a - 1) * ka; kk = k * kk normalised (L2, eps 1e-12) within each of
    the heads of head_size channels; kka = that times a."""
    t = (k * kk).reshape(*k.shape[:-1], heads, head_size)
    okk = F.normalize(t, dim=-1, p=2.0, eps=1e-12).reshape(k.shape)
    return k * (1 + (a - 1) * ka), okk, okk * a


def _mhc_post(x, residual, post_layer_mix, comb_res_mix):
    """DeepSeek's manifold-constrained hyper-connections, after the layer:
    each of the hc residual streams i becomes post_layer_mix[i] times the
    layer's output plus the streams j mixed by comb_res_mix[j, i]; in the
    residual's dtype, computed in the mixes' (float32)."""
    mix = post_layer_mix.reshape(*residual.shape[:2], 1)
    acc = mix * x[:, None, :].to(mix.dtype) + torch.einsum(
        "nji,njh->nih", comb_res_mix, residual.to(comb_res_mix.dtype))
    return acc.to(residual.dtype)


def _mhc_pre(residual, fn, hc_scale, hc_base, rms_eps, hc_pre_eps, hc_sinkhorn_eps,
             hc_post_mult_value, sinkhorn_repeat, n_splits=1):
    """DeepSeek's manifold-constrained hyper-connections, before the layer
    (the model's own math, in fn's dtype, float32): the hc streams of width
    H flattened and RMS-normalised, mixed by fn into hc pre, hc post and
    hc x hc combination logits, each group scaled by its hc_scale and
    shifted by hc_base; the layer's input is the streams weighed by
    sigmoid(pre) + hc_pre_eps (in the residual's dtype), post_mix is
    sigmoid(post) * hc_post_mult_value, comb_mix the combination logits'
    softmax made doubly stochastic by sinkhorn_repeat rounds of column and
    row normalisation (eps hc_sinkhorn_eps). n_splits is a launch knob."""
    hc, acc = residual.shape[-2], fn.dtype
    x = residual.flatten(-2).to(acc)
    mixes = (x @ fn.T) * torch.rsqrt(x.square().mean(-1, keepdim=True) + rms_eps)
    scale = torch.cat([hc_scale[0:1].expand(hc), hc_scale[1:2].expand(hc),
                       hc_scale[2:3].expand(hc * hc)])
    mixes = mixes * scale + hc_base
    pre = torch.sigmoid(mixes[..., :hc]).unsqueeze(-1) + hc_pre_eps
    post = (torch.sigmoid(mixes[..., hc:2 * hc]) * hc_post_mult_value).unsqueeze(-1)
    comb = mixes[..., 2 * hc:].unflatten(-1, (hc, hc)).softmax(-1) + hc_sinkhorn_eps
    comb = comb / (comb.sum(-2, keepdim=True) + hc_sinkhorn_eps)
    for _ in range(sinkhorn_repeat - 1):
        comb = comb / (comb.sum(-1, keepdim=True) + hc_sinkhorn_eps)
        comb = comb / (comb.sum(-2, keepdim=True) + hc_sinkhorn_eps)
    return post, comb, (residual.to(acc) * pre).sum(-2).to(residual.dtype)


def _bucket_sort_topk(inputs, starts, ends, topk):
    """DeepSeek-V3.2's sparse-attention indexer: for each row b, the
    positions of the topk largest of inputs[b] within its window
    [starts[b], ends[b]), in any order, -1 where the window holds fewer;
    judged in _picks' form (the values picked, not the positions: a tie
    may go either way)."""
    B, S = inputs.shape
    pos = torch.arange(S, device=inputs.device)
    inside = (pos >= starts[:, None].long()) & (pos < ends[:, None].long())
    idx = inputs.masked_fill(~inside, float("-inf")).topk(min(topk, S), -1).indices
    idx = torch.where(torch.gather(inside, 1, idx), idx, -1)
    idx = torch.cat([idx, idx.new_full((B, topk - idx.shape[1]), -1)], 1)
    return _picks(inputs, starts, ends, idx)


def _picks(inputs, starts, ends, idx):
    """A top-k's positions in canonical form: per row, the values they pick
    in descending order (-inf for a -1, the padding) and the count of wrong
    positions (outside the row's window but not -1, or picked twice)."""
    S, idx = inputs.shape[1], idx.long()
    inside = (idx >= starts[:, None].long()) & (idx < ends[:, None].long()) & \
        (idx >= 0) & (idx < S)
    vals = torch.gather(inputs, 1, torch.where(inside, idx, 0)) if S else \
        inputs.new_zeros(idx.shape)
    vals = torch.where(inside, vals, float("-inf")).sort(-1, descending=True).values
    marks = torch.where(inside, idx, -2 - torch.arange(idx.shape[1], device=idx.device))
    marks = marks.sort(-1).values
    wrong = (~inside & (idx != -1)).sum(-1) + (marks[:, 1:] == marks[:, :-1]).sum(-1)
    return vals, wrong


def _sorted_topk(fn, inputs, starts, ends, topk):
    """bucket_sort_topk's positions (int32, any order) in _picks' form."""
    return _picks(inputs, starts, ends, fn(inputs, starts, ends, topk))


def _gated_delta_rule(q, k, v, g, beta, scale, initial_state, inplace_final_state=True,
                      cu_seqlens=None, ssm_state_indices=None, num_accepted_tokens=None,
                      use_qk_l2norm_in_kernel=False):
    """Gated DeltaNet's recurrence (Qwen3-Next's linear attention), token by
    token as vLLM decodes with it: each sequence's state [HV, K, V] read from
    the cache slot ssm_state_indices names (its accepted token's slot under
    speculative decoding), decayed by exp(g), corrected towards v by beta
    (the delta rule), read by q times scale; the state after each token is
    written back to that token's slot (one slot a sequence when the indices
    are 1-D). q and k may be L2-normalised first (eps 1e-6); the H key heads
    are shared by HV / H value heads each. Sequences: the batch's rows, or
    the spans of cu_seqlens in a batch of one. Returns the output in q's
    dtype and the cache after the call (a copy: the library writes it in
    place)."""
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    (B, T, H, K), HV = k.shape, v.shape[2]
    q2, k2, v2, g2, b2 = (t.reshape(B * T, t.shape[2], -1).to(acc) for t in (q, k, v, g, beta))
    # L2-normalised (or not), q scaled, each key head shared by HV / H value heads
    q2, k2 = ((t / torch.sqrt(t.square().sum(-1, keepdim=True) + 1e-6) if
               use_qk_l2norm_in_kernel else t).repeat_interleave(HV // H, 1) * f
              for t, f in ((q2, scale), (k2, 1)))
    cache, o = initial_state.clone(), torch.empty_like(v2)
    spans = [(n * T, n * T + T) for n in range(B)] if cu_seqlens is None else \
        list(zip(cu_seqlens[:-1].tolist(), cu_seqlens[1:].tolist()))
    for n, (bos, eos) in enumerate(spans):
        idx = ssm_state_indices[n].reshape(-1).tolist()
        h = cache[idx[0 if num_accepted_tokens is None else
                      int(num_accepted_tokens[n]) - 1]].to(acc)
        for t in range(bos, eos):
            h = h * torch.exp(g2[t])[:, :, None]
            u = (v2[t] - (h * k2[t][:, :, None]).sum(1)) * b2[t]
            h = h + k2[t][:, :, None] * u[:, None, :]
            o[t] = (h * q2[t][:, :, None]).sum(1)
            cache[idx[min(t - bos, len(idx) - 1)]] = h.to(cache.dtype)
    return o.reshape(v.shape).to(q.dtype), cache


def _chunk_gated_delta_rule(q, k, v, g, beta, scale, initial_state, output_final_state,
                            cu_seqlens=None):
    """Gated DeltaNet over whole sequences, as vLLM prefills with it (FLA's
    chunked form is an exact rewriting of the recurrence): sequence n starts
    from initial_state[n]; the output and each sequence's final state in
    float32."""
    o, s = _gated_delta_rule(q, k, v, g, beta, scale, initial_state, True, cu_seqlens,
                             torch.arange(initial_state.shape[0], device=q.device))
    return o, s if s.dtype == torch.float64 else s.float()


def _chunk_outputs(fn, *args, **kwargs):
    """FLA's chunk_gated_delta_rule_fwd returns (g's chunk cumsum, o, A,
    final_state, ...): the outputs an engine uses are o and final_state."""
    return tuple(fn(*args, **kwargs)[i] for i in (1, 3))


def _recurrent_in_place(fn, q, k, v, g, beta, scale, initial_state, *args, **kwargs):
    """The library writes the state cache in place (initial_state, as
    vLLM's kernel): the outputs are o and that cache after the call, on a
    private copy of the one passed."""
    o, _ = fn(q, k, v, g, beta, scale, cache := initial_state.clone(), *args, **kwargs)
    return o, cache


def _scaled_mm(c, a, b, a_scale, b_scale, bias=None):
    """vLLM's scaled matrix product (W8A8): a (fp8 or int8, M x K) and b
    (K x N) dequantised by their scales and multiplied in float32, plus
    bias, in c's dtype. Scales per tensor or per token (a: 1 or M values)
    and per tensor or channel (b: 1 or N); otherwise per 128-wide block
    (a: M x K/128, b: K/128 x N/128), as DeepSeek's checkpoints quantise."""
    acc = torch.float64 if c.dtype == torch.float64 else torch.float32
    (M, K), N = a.shape, b.shape[1]
    A, B = a.to(acc), b.to(acc)
    if a_scale.numel() in (1, M) and b_scale.numel() in (1, N):
        A, B = A * a_scale.to(acc).reshape(-1, 1), B * b_scale.to(acc).reshape(1, -1)
    else:
        A = A * a_scale.to(acc).repeat_interleave(128, 1)[:, :K]
        B = B * b_scale.to(acc).repeat_interleave(128, 0).repeat_interleave(128, 1)[:K, :N]
    out = A @ B
    return (out if bias is None else out + bias.to(acc)).to(c.dtype)


def _sinkhorn_backward(out, dout, cg_iters=None):
    """mHC's Sinkhorn backward by implicit differentiation at its fixed
    point R = out (doubly stochastic): dM = (dR - x1 1^T - 1 x2^T) * R,
    where [[I, R], [R^T, I]] [x1; x2] = [rowsums of R dR; column sums],
    solved exactly (the pseudo-inverse: the system is singular along
    x1 + c, x2 - c, which leaves dM as it is) in float32; cg_iters, the
    library's count of conjugate-gradient steps, is a knob."""
    acc = torch.float64 if out.dtype == torch.float64 else torch.float32
    R, dR = out.to(acc), dout.to(acc)
    n = R.shape[-1]
    eye = torch.eye(n, dtype=acc, device=R.device).expand_as(R)
    A = torch.cat([torch.cat([eye, R], -1), torch.cat([R.transpose(-1, -2), eye], -1)], -2)
    b = torch.cat([(R * dR).sum(-1), (R * dR).sum(-2)], -1)
    x = (torch.linalg.pinv(A) @ b.unsqueeze(-1)).squeeze(-1)
    return (dR - x[..., :n, None] - x[..., None, n:]) * R


def _sinkhorn_forward(M, iters=20):
    """Sinkhorn's normalisation (mHC): P = exp(M), and R from P by
    `iters` rounds of dividing by the column sums, then the row sums."""
    P = torch.exp(M)
    R = P
    for _ in range(iters):
        R = R / R.sum(-2, keepdim=True)
        R = R / R.sum(-1, keepdim=True)
    return R, P


def _weight_norm(v, g, dim=0):
    """v scaled to g's norm over every dim but dim (torch's weight_norm)."""
    return torch._weight_norm(v, g, dim)


def _apply_repetition_penalties(logits, prompt_mask, output_mask, repetition_penalties):
    """vLLM's sampler (apply_repetition_penalties_torch): a token seen in the
    prompt or the output has its logit divided by the sequence's penalty
    where positive, multiplied where not."""
    p = repetition_penalties.unsqueeze(1).to(logits.dtype)
    p = torch.where(prompt_mask | output_mask, p, torch.ones_like(p))
    return logits * torch.where(logits > 0, 1.0 / p, p)


def _grouped_scores(scores, bias, n_group, scoring_func):
    """DeepSeek-V3's grouped routing (vLLM's torch grouped_topk with a
    correction bias, FlagGems' grouped_topk; in the input dtype, the bias
    cast to it): the scores after the scoring function (0 none, 1 sigmoid),
    the selection scores (with the bias) and each group's score (the sum of
    its two best selection scores)."""
    if scores.dim() != 2 or n_group < 1 or scores.shape[1] % n_group:
        raise ValueError("scores is (tokens, experts), experts a multiple of n_group")
    if scoring_func not in (0, 1) or scores.shape[1] // n_group < 2:
        raise ValueError("scoring_func is 0 or 1, every group has two experts or more")
    s = scores.sigmoid() if scoring_func else scores  # in the input dtype, as vLLM's
    sel = s + bias.to(scores.dtype).flatten()
    return s, sel, sel.view(len(sel), n_group, sel.shape[1] // n_group).topk(2, -1)[0].sum(-1)


def _grouped_weights(s, ids, renormalize, routed_scaling_factor):
    """The routing weights of experts ids: their scores without the bias,
    renormalised over the k, scaled."""
    w = s.gather(1, ids.long())
    return (w / w.sum(-1, keepdim=True) if renormalize else w) * routed_scaling_factor


def _grouped_topk(scores, n_group, topk_group, topk, renormalize, routed_scaling_factor,
                  bias, scoring_func=0):
    s, sel, groups = _grouped_scores(scores, bias, n_group, scoring_func)
    keep = torch.zeros_like(groups, dtype=torch.bool).scatter_(
        1, groups.topk(topk_group, -1)[1], True)
    masked = sel.masked_fill(~keep.repeat_interleave(sel.shape[1] // n_group, 1), float("-inf"))
    ids = masked.topk(topk, -1)[1]
    w = _grouped_weights(s, ids, renormalize, routed_scaling_factor)
    return w.to(torch.promote_types(w.dtype, torch.float32)), ids.to(torch.int32)


def grouped_tolerance(dtype):
    """The ties grouped_routing_ok allows for a routing computed in dtype:
    4 of its epsilons (relative to a token's largest score)."""
    return 4 * torch.finfo(dtype).eps


def grouped_routing_ok(scores, n_group, topk_group, bias, scoring_func, ids, tol):
    """Per token, whether expert ids are a right grouped routing in fp64,
    with ties within tol (relative to the row's largest score) broken any
    way: valid distinct ids; every group they come from among the
    topk_group best (within tol of the topk_group-th group score), every
    group clearly above it selected too; the picks the best of the groups
    selected: no expert left in a selected group (or in as many tied groups
    as the selection has left) above the weakest pick by more than tol."""
    s, sel, g = _grouped_scores(scores.double(), bias.double(), n_group, scoring_func)
    m, ninf = sel.shape[1] // n_group, float("-inf")
    kth = g.topk(topk_group, -1)[0][:, -1:]
    tg, te = (tol * x.abs().amax(-1, keepdim=True) for x in (g, sel))
    must, maybe = g > kth + tg, g >= kth - tg
    ok = ((ids >= 0) & (ids < sel.shape[1])).all(-1)
    ids = ids.long().clamp(0, sel.shape[1] - 1)
    ok &= (ids.sort(-1)[0].diff(dim=-1) != 0).all(-1)
    used = torch.zeros_like(must).scatter_(1, ids // m, True)
    known = must | used
    ok &= ~(used & ~maybe).any(-1) & (known.sum(-1) <= topk_group)
    low = sel.gather(1, ids).amin(-1, keepdim=True) + te
    best = sel.scatter(1, ids, ninf).view(len(sel), n_group, m).amax(-1)
    ok &= ~((best > low) & known).any(-1)
    return ok & ((maybe & ~known & (best <= low)).sum(-1) >= topk_group - known.sum(-1))


# vLLM's KV-cache writes (reshape_and_cache_flash, reshape_and_cache,
# concat_and_cache_mla): each token's key and value go to the cache slot
# slot_mapping gives it (block = slot // block_size, offset = slot %
# block_size); slot -1 is padding, written nowhere. An engine never maps two
# tokens to one slot: a case's random slots keep each slot's first token
# and make the later ones padding (_unique_slots, the same for the library's
# call and the reference's)
def _unique_slots(slot_mapping):
    # static shapes (no torch.unique): the library's call traces whole
    s, n = slot_mapping, len(slot_mapping)
    earlier = torch.ones(n, n, dtype=torch.bool, device=s.device).tril(-1)
    return torch.where(((s[:, None] == s[None, :]) & earlier).any(1), -1, s)


def _kv_put(rows, slots, vals):
    """rows [slots, ...] with each token's vals at its slot (slots as
    _unique_slots gives them; padding: a row past the end, dropped; no
    data-dependent shapes, so it traces)."""
    n, s = len(rows), slots.long()
    out = torch.cat([rows, rows.new_zeros(1, *rows.shape[1:])])
    out[torch.where(s >= 0, s, n)] = vals.to(rows.dtype)
    return out[:n]


def _kv_auto(kv_cache_dtype):
    if kv_cache_dtype != "auto":  # fp8 caches: not probed (FlagGems 5.0.2 writes raw)
        raise ValueError("only kv_cache_dtype 'auto' has a reference")


def _reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping,
                             kv_cache_dtype, k_scale, v_scale):
    """Caches [num_blocks, block_size, heads, head_size]."""
    _kv_auto(kv_cache_dtype)
    s = _unique_slots(slot_mapping)
    return tuple(_kv_put(c.reshape(c.shape[0] * c.shape[1], *c.shape[2:]), s, x).view(c.shape)
                 for c, x in ((key_cache, key), (value_cache, value)))


def _reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype,
                       k_scale, v_scale):
    """vLLM's paged layout: key_cache [num_blocks, heads, head_size / x,
    block_size, x], value_cache [num_blocks, heads, head_size, block_size]."""
    _kv_auto(kv_cache_dtype)
    (nb, h, dx, bs, x), t, d = key_cache.shape, len(key), value_cache.shape[2]
    s = _unique_slots(slot_mapping)
    kc = _kv_put(key_cache.permute(0, 3, 1, 2, 4).reshape(nb * bs, h, dx, x), s,
                 key.reshape(t, h, dx, x))
    vc = _kv_put(value_cache.permute(0, 3, 1, 2).reshape(nb * bs, h, d), s, value)
    return (kc.view(nb, bs, h, dx, x).permute(0, 2, 3, 1, 4).contiguous(),
            vc.view(nb, bs, h, d).permute(0, 2, 3, 1).contiguous())


def _concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping, kv_cache_dtype, scale):
    """MLA's cache [num_blocks, block_size, kv_lora_rank + pe_dim]: each
    token's compressed kv, then its rotary part."""
    _kv_auto(kv_cache_dtype)
    rows = kv_cache.reshape(kv_cache.shape[0] * kv_cache.shape[1], kv_cache.shape[2])
    return _kv_put(rows, _unique_slots(slot_mapping), torch.cat([kv_c, k_pe.to(kv_c.dtype)],
                                                                -1)).view(
        kv_cache.shape)


def _fused_experts(hidden_states, w1, w2, topk_weights, topk_ids):
    """vLLM's fused MoE (unquantised, SiLU): each token through its top-k
    experts' w1 [experts, 2N, hidden] (gate then up), SiLU-and-mul, w2
    [experts, hidden, N], weighed by topk_weights and summed. Every expert
    on every token (dense: no data-dependent shapes, so it traces), the
    intermediates in the input dtype as vLLM's caches hold them."""
    n = w2.shape[2]
    h = torch.einsum("th,eih->tei", hidden_states, w1)
    y = torch.einsum("ten,ehn->teh", F.silu(h[..., :n]) * h[..., n:], w2)
    picked = y.gather(1, topk_ids.long()[..., None].expand(-1, -1, y.shape[2]))
    return (topk_weights.to(y.dtype)[..., None] * picked).sum(1)


def _moe_align_block_size(topk_ids, block_size, num_experts):
    """vLLM's moe_align_block_size: the positions of topk_ids (flattened)
    grouped by expert, each expert's run padded to a multiple of block_size
    with the pad value topk_ids.numel(), runs in expert order; the expert of
    each block (-1 past the last used block) and the padded total. Static
    shapes (the buffers' sizes as vLLM allocates them), so it traces."""
    flat, e, z = topk_ids.reshape(-1).long(), num_experts, topk_ids.new_zeros(1).long()
    n, size = flat.numel(), flat.numel() + num_experts * (block_size - 1)
    ex = torch.where((flat >= 0) & (flat < e), flat, e)  # past the experts: nowhere
    counts = torch.zeros(e + 1, dtype=torch.long, device=flat.device).scatter_add_(
        0, ex, torch.ones_like(ex))[:e]
    padded = (counts + block_size - 1) // block_size * block_size
    ends, order = padded.cumsum(0), torch.sort(ex, stable=True)[1]  # by expert, index order
    sorted_ex = ex[order]
    rank = torch.arange(n, device=flat.device) - torch.cat([counts.cumsum(0) - counts, z])[sorted_ex]
    at = torch.where(sorted_ex < e, torch.cat([ends - padded, z])[sorted_ex] + rank, size)
    out = torch.full((size + 1,), n, dtype=torch.long, device=flat.device)
    out[at] = order
    b = torch.arange(-(-size // block_size), device=flat.device) * block_size
    total = ends[-1:] if e else z
    expert = torch.where(b < total, torch.searchsorted(ends, b, right=True), -1)
    return out[:size].to(torch.int32), expert.to(torch.int32), total.to(torch.int32)


def _sparse_attn(q, kv, attn_sink, topk_idxs, softmax_scale):
    """DeepSeek's sparse attention with an attention sink (FlagGems'
    sparse_attn_triton): query (b, m) attends, in every head h, to the kv
    rows topk_idxs[b, m] names (-1: none; a row named twice counts twice),
    each row both key and value; exp(attn_sink[h]) joins the softmax's
    denominator only. A query with no row gets 0. Output in q's dtype."""
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    (B, M, T), valid = topk_idxs.shape, topk_idxs >= 0
    rows = kv.to(acc)[torch.arange(B, device=kv.device)[:, None, None],
                      topk_idxs.long().clamp(min=0)]  # [B, M, T, D]
    rows = torch.where(valid[..., None], rows, 0)
    s = torch.einsum("bmhd,bmtd->bmht", q.to(acc), rows) * softmax_scale
    s = s.masked_fill(~valid[:, :, None, :], float("-inf"))
    sink = attn_sink.to(acc)[:, None].expand(B, M, -1, 1)
    # P in q's dtype for the second product, as flash kernels read it (the
    # fp64 oracle keeps it exact; docs/design.md, "Deployment modes and the
    # library's entry points", the attention kernels)
    p = torch.softmax(torch.cat([s, sink], -1), -1)[..., :T].to(q.dtype).to(acc)
    return torch.einsum("bmht,bmtd->bmhd", p, rows).to(q.dtype)


def _flash_mla(q, block_table, blocked_k, max_seqlen_pad, block_size, b, s_q, cache_seqlens,
               h_q, h_kv, d, dv, causal):
    """FlashMLA's decode attention over a paged MLA cache (FlagGems'
    flash_mla): batch i's first cache_seqlens[i] tokens, page j of them in
    blocked_k[block_table[i, j]] ([pages, block_size, h_kv, d]); keys the
    whole d (latent and rotary), values the first dv; each of h_q query
    heads reads kv head h / (h_q / h_kv); softmax scale 1/sqrt(d); causal:
    query t of s_q sees the tokens up to seqlen - s_q + t (speculative
    decoding). Output [b, s_q, h_q, dv] in q's dtype."""
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    (B, S, H, D), HK = q.shape, blocked_k.shape[2]
    kv = blocked_k[block_table.long()].reshape(B, -1, HK, D).to(acc)  # every page
    ahead = (S - 1 - torch.arange(S, device=q.device)) * int(causal)
    limit = cache_seqlens.long()[:, None] - ahead  # [B, S]: tokens each query sees
    seen = torch.arange(kv.shape[1], device=q.device) < limit[..., None]
    s = torch.einsum("bskgd,bnkd->bkgsn", q.reshape(B, S, HK, H // HK, D).to(acc), kv)
    s = (s * D ** -0.5).masked_fill(~seen[:, None, None], float("-inf"))
    p = torch.softmax(s, -1).to(q.dtype).to(acc)  # as flash kernels (_sparse_attn)
    o = torch.einsum("bkgsn,bnkd->bskgd", p, kv[..., :dv])
    return o.reshape(B, S, H, dv).to(q.dtype)


def _flash_mla_sparse(q, kv, indices, sm_scale, d_v=512, attn_sink=None, topk_length=None):
    """FlashMLA's sparse prefill (FlagGems' flash_mla_sparse_fwd, DeepSeek
    V3.2): query token t attends, in every head, to the kv rows
    indices[t, 0, :topk_length[t]] names (rows < 0 or past kv: none; the
    first d_v dims are the values); outputs the attention in q's dtype,
    the largest logit and the logits' natural log-sum-exp per token and
    head. attn_sink[h] scales the output by exp(lse) / (exp(lse) +
    exp(sink)) and leaves lse alone. A query with no row: output 0,
    max_logits -inf, lse +inf (FlashMLA's tests/ref.py)."""
    acc = torch.float64 if q.dtype == torch.float64 else torch.float32
    (S, H, D), (N, T) = q.shape, (kv.shape[0], indices.shape[-1])
    idx = indices.reshape(S, T).long()
    if topk_length is not None:
        idx = torch.where(torch.arange(T, device=q.device) < topk_length.long()[:, None], idx, -1)
    valid = (idx >= 0) & (idx < N)
    rows = kv.reshape(N, D).to(acc)[torch.where(valid, idx, 0)]  # [S, T, D]
    rows = torch.where(valid[..., None], rows, 0)
    s = torch.einsum("shd,std->sht", q.to(acc), rows) * sm_scale
    s = s.masked_fill(~valid[:, None, :], float("-inf"))
    lse, top = torch.logsumexp(s, -1), s.amax(-1)
    full = lse if attn_sink is None else torch.logaddexp(lse, attn_sink.to(acc)[None, :])
    p = torch.exp(s - torch.where(full == float("-inf"), float("inf"), full)[..., None])
    o = torch.einsum("sht,std->shd", p.to(q.dtype).to(acc), rows[..., :d_v])
    return o.to(q.dtype), top, torch.where(lse == float("-inf"), float("inf"), lse)


def _moe_gemm(A, B, C, topk_weights, topk_ids, mul_routed_weight, top_k, block_size_m=16,
              block_size_n=32, block_size_k=64, group_size_m=1):
    """vLLM's fused MoE GEMM as its launchers run it (unquantised): row f
    of C ([tokens, top_k, N] flattened) is A[f // top_k] times the
    transpose of B[topk_ids.flat[f]] ([experts, N, K]), times
    topk_weights.flat[f] when mul_routed_weight, accumulated in float32, in
    C's dtype. The first GEMM (top_k the routing's) and the second (A one
    row per token and expert, top_k 1) alike; the tile sizes are the
    launcher's config, no part of the result."""
    acc = torch.float64 if C.dtype == torch.float64 else torch.float32
    e, N = topk_ids.reshape(-1).long(), B.shape[1]
    out = torch.einsum("fk,enk->fen", A.to(acc).repeat_interleave(top_k, 0), B.to(acc))
    out = out.gather(1, e[:, None, None].expand(-1, 1, N))[:, 0]
    out = out * topk_weights.reshape(-1, 1).to(acc) if mul_routed_weight else out
    return out.reshape(C.shape).to(C.dtype)


def _moe_blocks(fn, C, topk_ids, experts, bm=16, bn=32, bk=64, gm=1):
    """The launcher's keyword arguments: the token ids sorted into blocks
    of bm (moe_align_block_size's layout, opscreen's), the tile config, the
    compute type in the library's own Triton language (`tl` of its module;
    C's torch dtype for a library without one), no quantisation."""
    ids, blocks, total = _moe_align_block_size(topk_ids, bm, experts)
    return dict(sorted_token_ids=ids, expert_ids=blocks, num_tokens_post_padded=total,
                config=dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=gm),
                compute_type=getattr(getattr(fn, "__globals__", {}).get("tl"),
                                     str(C.dtype).removeprefix("torch."), C.dtype),
                use_fp8_w8a8=False, use_int8_w8a8=False, use_int8_w8a16=False,
                use_int4_w4a16=False, per_channel_quant=False)


def _cross_entropy_loss(inp, target, weight=None, reduction="mean", ignore_index=-100,
                        label_smoothing=0.0):
    """torch's cross_entropy: class indices or class probabilities."""
    return F.cross_entropy(inp, target, weight, ignore_index=ignore_index,
                           reduction=reduction, label_smoothing=label_smoothing)


def _instance_norm(input, weight=None, bias=None, running_mean=None, running_var=None,
                   use_input_stats=True, momentum=0.1, eps=1e-05, cudnn_enable=False):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def _direct(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def _in_place_pair(fn, x, residual, *args, **kwargs):
    """The library writes x and residual in place (FlagGems, vLLM): the
    outputs are the caller's two tensors after the call, on private copies
    (a kernel that writes a contiguous copy of a strided x leaves the
    caller's x as it was, which shows)."""
    fn(x := x.clone(), residual := residual.clone(), *args, **kwargs)
    return x, residual


def _q_k_copies(fn, q, k, *args, **kwargs):
    """inplace=True writes q and k: on private copies, which are the outputs
    (as the function returns them)."""
    return fn(q.clone(), k.clone(), *args, **kwargs)


def _out_last(fn, *args):
    """The library writes its last argument (an output buffer) and returns
    nothing (FlagGems' moe_sum): the output is that buffer after the call,
    a private copy of the one passed."""
    fn(*args[:-1], out := args[-1].clone())
    return out


def _in_place_first(fn, x, *args, **kwargs):
    """The library writes its first argument in place and returns nothing
    (vLLM's and FlagGems' apply_repetition_penalties on the logits,
    cutlass_scaled_mm into its output buffer c): the output is that tensor
    after the call, on a private copy."""
    fn(x := x.clone(), *args, **kwargs)
    return x


def _moe_invoke(fn, A, B, C, topk_weights, topk_ids, mul_routed_weight, top_k, *config):
    """invoke_fused_moe_triton_kernel writes C and returns nothing: C after
    the call, on a private copy; no scales (A_scale, B_scale)."""
    fn(A, B, C := C.clone(), None, None, topk_weights, mul_routed_weight=mul_routed_weight,
       top_k=top_k, **_moe_blocks(fn, C, topk_ids, len(B), *config))
    return C


def _moe_dispatch(fn, A, B, C, topk_weights, topk_ids, mul_routed_weight, top_k, *config):
    """dispatch_fused_moe_kernel likewise, with no zero points (B_zp)."""
    fn(A, B, C := C.clone(), None, None, None, topk_weights, mul_routed_weight=mul_routed_weight,
       top_k=top_k, **_moe_blocks(fn, C, topk_ids, len(B), *config))
    return C


def _kv_pair(fn, key, value, key_cache, value_cache, slot_mapping, *args):
    """The library writes the two caches in place and returns nothing
    (vLLM, FlagGems): the outputs are the caches after the call, private
    copies of the ones passed (a slot no token maps to keeps its value)."""
    fn(key, value, kc := key_cache.clone(), vc := value_cache.clone(),
       _unique_slots(slot_mapping), *args)
    return kc, vc


def _kv_one(fn, kv_c, k_pe, kv_cache, slot_mapping, *args):
    """As _kv_pair, one cache (MLA's)."""
    fn(kv_c, k_pe, c := kv_cache.clone(), _unique_slots(slot_mapping), *args)
    return c


def _aligned(fn, topk_ids, block_size, num_experts):
    """moe_align_block_size's outputs in their canonical form (_canonical)."""
    return _canonical(*fn(topk_ids, block_size, num_experts), topk_ids, block_size)


def _aligned_buffers(fn, topk_ids, block_size, num_experts):
    """moe_align_block_size_triton fills three buffers it is given, sized
    as vLLM allocates them (torch.empty: uninitialised), and returns
    nothing: the buffers after the call, in _canonical's form."""
    size, d = topk_ids.numel() + num_experts * (block_size - 1), topk_ids.device
    out = (torch.empty(size, dtype=torch.int32, device=d),
           torch.empty(-(-size // block_size), dtype=torch.int32, device=d),
           torch.empty(1, dtype=torch.int32, device=d))
    fn(topk_ids, num_experts, block_size, *out)
    return _canonical(*out, topk_ids, block_size)


def _canonical(ids, experts, total, topk_ids, block_size):
    """moe_align_block_size's outputs in their canonical form: within each
    run of blocks of one expert the token positions ascending (the order is
    the kernel's to choose: the MoE GEMM reads a block's tokens in any
    order), past the padded total the pad value and expert -1 (vLLM's
    buffers are allocated uninitialised there)."""
    n, size = topk_ids.numel(), len(ids)
    ids = torch.where(torch.arange(size, device=ids.device) < total.to(ids.device)[:1],
                      ids.long(), n)
    experts = torch.where(torch.arange(len(experts), device=experts.device) * block_size <
                          total.to(experts.device)[:1], experts.long(), -1)
    run = torch.cat([experts.new_zeros(1), (experts[1:] != experts[:-1]).long()]).cumsum(0)
    key = run.repeat_interleave(block_size)[:size] * (n + 1) + ids
    return ids[torch.sort(key, stable=True)[1]].to(torch.int32), experts.to(torch.int32), total


def _out_alloc(fn, A, B):
    """The library writes an output buffer it is given and returns it
    (FlagGems' silu_and_mul_out, vLLM's silu_and_mul(out, x)): allocated
    as an engine allocates it (torch.empty of the result's shape and
    dtype), so a position the kernel never writes holds whatever was there."""
    # promote_types where it is result_type (no 0-d operand): Dynamo
    # traces it, and result_type would break the trace class's graph
    dt = torch.promote_types(A.dtype, B.dtype) if A.dim() and B.dim() else \
        torch.result_type(A, B)
    out = torch.empty(torch.broadcast_shapes(A.shape, B.shape), device=A.device, dtype=dt)
    r = fn(A, B, out)
    if r is not None and r is not out:
        raise AssertionError("silu_and_mul_out returned a tensor other than out")
    return out


def _routing_buffers(fn, gating_output, topk, renormalize=False):
    """The library fills three buffers it is given (FlagGems, vLLM:
    topk_weights float32, topk_indices int32, token_expert_indices int32)
    and returns nothing: the outputs are those buffers after the call,
    allocated as an engine allocates them (torch.empty, so a position the
    kernel never writes holds whatever was there)."""
    e = dict(size=(len(gating_output), topk), device=gating_output.device)
    out = [torch.empty(**e, dtype=d) for d in (torch.float32, torch.int32, torch.int32)]
    fn(*out, gating_output, renormalize)
    return tuple(out)


def _define(schema, impl, call):
    name = schema.split("(", 1)[0]
    _lib.define(schema)
    # decomposes into aten ops under tracing (fake tensors, torch.compile)
    _lib.impl(name, impl, "CompositeImplicitAutograd")
    SCHEMAS[name] = schema
    IMPLS[name] = impl
    CALLS[name] = call


_define("silu_and_mul(Tensor A, Tensor B) -> Tensor", _silu_and_mul, _direct)
_define("gelu_and_mul(Tensor x, Tensor y, str approximate='none') -> Tensor",
        _gelu_and_mul, _direct)
_define("fused_add_rms_norm(Tensor x, Tensor residual, int[] normalized_shape, "
        "Tensor weight, float eps=1e-05) -> (Tensor, Tensor)",
        _fused_add_rms_norm, _in_place_pair)
_define("skip_layer_norm(Tensor x, Tensor residual, int[] normalized_shape, "
        "Tensor weight, Tensor bias, float eps=1e-05) -> Tensor",
        _skip_layer_norm, _direct)
_define("moe_sum(Tensor input, Tensor output) -> Tensor", _moe_sum, _out_last)
_define("apply_rotary_pos_emb(Tensor q, Tensor k, Tensor cos, Tensor sin, "
        "Tensor? position_ids=None, bool rotary_interleaved=False, "
        "bool inplace=False) -> (Tensor, Tensor)", _apply_rotary_pos_emb, _q_k_copies)
_define("silu_and_mul_out(Tensor A, Tensor B) -> Tensor", _silu_and_mul, _out_alloc)
for _n, _f in (("swiglu", _swiglu), ("geglu", _geglu), ("reglu", _reglu)):
    _define(f"{_n}(Tensor input) -> Tensor", _f, _direct)
    HELPERS[_n] = (_halves,)
for _n, _f in (("dswiglu", _dswiglu), ("dgeglu", _dgeglu), ("dreglu", _dreglu)):
    _define(f"{_n}(Tensor grad_output, Tensor input) -> Tensor", _f, _direct)
    HELPERS[_n] = (_halves,)
_define("outer(Tensor inp, Tensor weight) -> Tensor", _outer, _direct)
for _n, _c in (("moe_align_block_size", _aligned),
               ("moe_align_block_size_triton", _aligned_buffers)):
    _define(f"{_n}(Tensor topk_ids, int block_size, int num_experts) "
            "-> (Tensor, Tensor, Tensor)", _moe_align_block_size, _c)
    HELPERS[_n] = (_canonical,)
_define("rwkv_mm_sparsity(Tensor k, Tensor v) -> Tensor", _rwkv_mm_sparsity, _direct)
_define("mhc_post(Tensor x, Tensor residual, Tensor post_layer_mix, Tensor comb_res_mix) "
        "-> Tensor", _mhc_post, _direct)
_define("sinkhorn_forward(Tensor M, int iters=20) -> (Tensor, Tensor)", _sinkhorn_forward,
        _direct)
_define("bucket_sort_topk(Tensor inputs, Tensor starts, Tensor ends, int topk) "
        "-> (Tensor, Tensor)", _bucket_sort_topk, _sorted_topk)
HELPERS["bucket_sort_topk"] = (_picks,)
_define("fused_recurrent_gated_delta_rule_fwd(Tensor q, Tensor k, Tensor v, Tensor g, "
        "Tensor beta, float scale, Tensor initial_state, bool inplace_final_state=True, "
        "Tensor? cu_seqlens=None, Tensor? ssm_state_indices=None, "
        "Tensor? num_accepted_tokens=None, bool use_qk_l2norm_in_kernel=False) "
        "-> (Tensor, Tensor)", _gated_delta_rule, _recurrent_in_place)
_define("chunk_gated_delta_rule_fwd(Tensor q, Tensor k, Tensor v, Tensor g, Tensor beta, "
        "float scale, Tensor initial_state, bool output_final_state, "
        "Tensor? cu_seqlens=None) -> (Tensor, Tensor)", _chunk_gated_delta_rule, _chunk_outputs)
HELPERS["chunk_gated_delta_rule_fwd"] = (_gated_delta_rule,)
_define("cutlass_scaled_mm(Tensor c, Tensor a, Tensor b, Tensor a_scale, Tensor b_scale, "
        "Tensor? bias=None) -> Tensor", _scaled_mm, _in_place_first)
for _n in ("mhc_bwd", "mhc_bwd_ref"):
    _define(f"{_n}(Tensor out, Tensor dout, int? cg_iters=None) -> Tensor", _sinkhorn_backward,
            _direct)
_define("mhc_pre(Tensor residual, Tensor fn, Tensor hc_scale, Tensor hc_base, float rms_eps, "
        "float hc_pre_eps, float hc_sinkhorn_eps, float hc_post_mult_value, "
        "int sinkhorn_repeat, int n_splits=1) -> (Tensor, Tensor, Tensor)", _mhc_pre, _direct)
_define("rwkv_ka_fusion(Tensor k, Tensor kk, Tensor a, Tensor ka, int heads, int head_size) "
        "-> (Tensor, Tensor, Tensor)", _rwkv_ka_fusion, _direct)
_define("cross_entropy_loss(Tensor inp, Tensor target, Tensor? weight=None, "
        "str reduction='mean', int ignore_index=-100, float label_smoothing=0.0) -> Tensor",
        _cross_entropy_loss, _direct)
_define("instance_norm(Tensor input, Tensor? weight=None, Tensor? bias=None, "
        "Tensor? running_mean=None, Tensor? running_var=None, bool use_input_stats=True, "
        "float momentum=0.1, float eps=1e-05, bool cudnn_enable=False) -> Tensor",
        _instance_norm, _direct)
for _n, _c in (("fused_experts_impl", _direct), ("outplace_fused_experts", _direct),
               ("inplace_fused_experts", _in_place_first)):
    _define(f"{_n}(Tensor hidden_states, Tensor w1, Tensor w2, Tensor topk_weights, "
            "Tensor topk_ids) -> Tensor", _fused_experts, _c)
_define("weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor", _weight_norm, _direct)
_define("apply_repetition_penalties(Tensor logits, Tensor prompt_mask, Tensor output_mask, "
        "Tensor repetition_penalties) -> Tensor", _apply_repetition_penalties,
        _in_place_first)
_define("grouped_topk(Tensor scores, int n_group, int topk_group, int topk, "
        "bool renormalize, float routed_scaling_factor, Tensor bias, int scoring_func=0) "
        "-> (Tensor, Tensor)", _grouped_topk, _direct)
HELPERS["grouped_topk"] = (_grouped_scores, _grouped_weights)
for _n, _f, _c in (("reshape_and_cache_flash", _reshape_and_cache_flash, _kv_pair),
                   ("reshape_and_cache", _reshape_and_cache, _kv_pair)):
    _define(f"{_n}(Tensor key, Tensor value, Tensor key_cache, Tensor value_cache, "
            "Tensor slot_mapping, str kv_cache_dtype, Tensor k_scale, Tensor v_scale) "
            "-> (Tensor, Tensor)", _f, _c)
    HELPERS[_n] = (_unique_slots, _kv_put, _kv_auto)
_define("concat_and_cache_mla(Tensor kv_c, Tensor k_pe, Tensor kv_cache, "
        "Tensor slot_mapping, str kv_cache_dtype, Tensor scale) -> Tensor",
        _concat_and_cache_mla, _kv_one)
HELPERS["concat_and_cache_mla"] = (_unique_slots, _kv_put, _kv_auto)
for _n, _c in (("invoke_fused_moe_triton_kernel", _moe_invoke),
               ("dispatch_fused_moe_kernel", _moe_dispatch)):
    _define(f"{_n}(Tensor A, Tensor B, Tensor C, Tensor topk_weights, Tensor topk_ids, "
            "bool mul_routed_weight, int top_k, int block_size_m=16, int block_size_n=32, "
            "int block_size_k=64, int group_size_m=1) -> Tensor", _moe_gemm, _c)
    HELPERS[_n] = (_moe_align_block_size, _moe_blocks)
_define("sparse_attn_triton(Tensor q, Tensor kv, Tensor attn_sink, Tensor topk_idxs, "
        "float softmax_scale) -> Tensor", _sparse_attn, _direct)
_define("flash_mla(Tensor q, Tensor block_table, Tensor blocked_k, int max_seqlen_pad, "
        "int block_size, int b, int s_q, Tensor cache_seqlens, int h_q, int h_kv, int d, "
        "int dv, bool causal) -> Tensor", _flash_mla, _direct)
_define("flash_mla_sparse_fwd(Tensor q, Tensor kv, Tensor indices, float sm_scale, "
        "int d_v=512, Tensor? attn_sink=None, Tensor? topk_length=None) "
        "-> (Tensor, Tensor, Tensor)", _flash_mla_sparse, _direct)
_define("topk_softmax(Tensor gating_output, int topk, bool renormalize=False) "
        "-> (Tensor, Tensor, Tensor)", _topk_softmax, _routing_buffers)


def is_entry(key):
    return isinstance(key, str) and key.startswith(PREFIX)


def resolve(key):
    """The reference operator of key "fused::NAME"; ValueError when none."""
    name = key[len(PREFIX):]
    if name not in SCHEMAS:
        raise ValueError(f"no reference for the entry point {name!r}")
    return getattr(getattr(torch.ops, NAMESPACE), name).default


def schema(name):
    """The catalog's schema of entry point NAME, "" when opscreen has no
    reference for it."""
    return SCHEMAS.get(name, "")


def candidate(name, fn):
    """The library's function `fn` called as the reference of NAME is."""
    call = CALLS[name]

    def cand(*args, **kwargs):
        return call(fn, *args, **kwargs)
    cand.__name__ = name
    return cand
