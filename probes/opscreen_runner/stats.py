"""Random ops (class random, compare "stat"): goodness-of-fit tests.

The candidate and native each draw their samples from a generator seeded with
the case seed; each sample is tested against the distribution the aten call
asks for (bound from the call's own arguments). The runner reports p-values;
the daemon fails the case when the candidate's is below its level
(VERDICT_STAT_ALPHA in daemon/verdict.h, 1e-4) and native's is not
(docs/protocol.md).

The tests run on the samples' device, in float64: on the host, a runner's
torch threads compete with every other runner's compiles (a 131,072-sample
KS test took 6-7 s in the H200 warm screen of 2026-12-03).

False-alarm rate: a correct library fails a case with probability alpha per
case (tests inside one case are combined with a Bonferroni correction). Seeds
are fixed, so a case's outcome is reproducible; over a screen of R random
cases the expected number of false alarms is R * alpha.

Samples in 16-bit or 8-bit dtypes are rounded: the continuous tests compare the
empirical CDF with the CDF of the *rounded* distribution (each sample value x
stands for the interval of width ulp(x) around it), so rounding alone is not
read as a wrong distribution.
"""

import math

import torch

from .figures import bound_arg

F64 = torch.float64


def _ks_pvalue(d, n):
    """Asymptotic Kolmogorov p-value of statistic d at sample size n."""
    if n <= 0:
        return 1.0
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    if lam < 0.2:
        return 1.0
    p = 0.0
    for k in range(1, 101):
        term = 2 * (-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam)
        p += term
        if abs(term) < 1e-12:
            break
    return min(max(p, 0.0), 1.0)


def _halfwidth(x, dtype):
    """Half the rounding interval of each sample value in its dtype (an upper
    bound: the spacing at |x| is at most eps*|x|, subnormals at least tiny*eps)."""
    if dtype in (torch.float64, torch.float32):
        return torch.zeros_like(x)
    fi = torch.finfo(dtype)
    return (x.abs() * fi.eps).clamp(min=fi.tiny * fi.eps) / 2


def _ks(x, cdf, dtype):
    """KS statistic of samples x (float64, on their device) against cdf,
    rounding-aware."""
    x = x[torch.isfinite(x)]
    n = x.numel()
    if n == 0:
        return 1.0, 0.0
    x, _ = torch.sort(x)
    h = _halfwidth(x, dtype)
    hi = cdf(x + h)
    lo = cdf(x - h)
    i = torch.arange(1, n + 1, dtype=F64, device=x.device)
    d = max((i / n - hi).max().item(), (lo - (i - 1) / n).max().item(), 0.0)
    return d, _ks_pvalue(d, n)


def _norm_cdf(x):
    return 0.5 * torch.erfc(-x / math.sqrt(2.0))


def _z_pvalue(z):
    return math.erfc(abs(z) / math.sqrt(2.0))


def _binomial(count, n, p):
    """Two-sided normal-approximation p-value of count ones in n Bernoulli(p)."""
    if n == 0 or p <= 0 or p >= 1:
        ok = (count == 0) if p <= 0 else (count == n) if p >= 1 else True
        return 1.0 if ok else 0.0
    z = (count - n * p) / math.sqrt(n * p * (1 - p))
    return _z_pvalue(z)


def _chi2(observed, expected):
    """Pearson chi-square p-value; bins expecting < 5 are merged into one."""
    keep = expected >= 5
    obs = torch.cat([observed[keep], observed[~keep].sum().reshape(1)])
    exp = torch.cat([expected[keep], expected[~keep].sum().reshape(1)])
    nz = exp > 0
    obs, exp = obs[nz], exp[nz]
    df = obs.numel() - 1
    if df < 1:
        return 0.0, 1.0
    x2 = (((obs - exp) ** 2) / exp).sum().cpu()
    p = torch.special.gammaincc(torch.tensor(df / 2.0, dtype=F64), x2 / 2).item()
    return x2.item(), p


def _samples(out):
    t = out[0] if isinstance(out, (tuple, list)) else out
    return t, t.detach().to(F64).reshape(-1)


def _arg(op, args, kwargs, name, default=None):
    v = bound_arg(op, args, kwargs, name)
    return default if v is None else v


def _f64(t, device):
    return t.detach().to(device, F64).reshape(-1) if isinstance(t, torch.Tensor) \
        else torch.tensor([float(t)], dtype=F64, device=device)


def _continuous(op, key, args, kwargs, x, dtype, shape):
    """(test name, statistic, p) for the continuous distributions."""
    base = key.split(".")[0]
    if base in ("uniform_", "rand", "rand_like"):
        lo = float(_arg(op, args, kwargs, "from", 0.0))
        hi = float(_arg(op, args, kwargs, "to", 1.0))
        d, p = _ks(x, lambda v: ((v - lo) / (hi - lo)).clamp(0, 1), dtype)
        return f"ks uniform[{lo:g},{hi:g})", d, p
    if base == "exponential_":
        lam = float(_arg(op, args, kwargs, "lambd", 1.0))
        d, p = _ks(x, lambda v: (1 - torch.exp(-lam * v.clamp(min=0))), dtype)
        return f"ks exponential({lam:g})", d, p
    if base in ("normal_", "randn", "randn_like", "normal"):
        def param(name, default):
            v = _arg(op, args, kwargs, name, default)
            if base != "normal":
                v = float(v)
            v = v.detach().to(x.device, F64) if isinstance(v, torch.Tensor) \
                else torch.tensor(float(v), dtype=F64, device=x.device)
            try:  # mean and std broadcast against each other (normal.Tensor_Tensor)
                return torch.broadcast_to(v, shape).reshape(-1)
            except RuntimeError:
                raise ValueError(f"normal: {name} of shape {list(v.shape)} does not "
                                 f"broadcast to the output {list(shape)}") from None
        mean, std = param("mean", 0.0), param("std", 1.0)
        # standardised; each sample's rounding interval scales with it
        h = _halfwidth(x, dtype) / std
        z = (x - mean) / std
        d, p = _ks_std(z, h)
        return "ks normal (standardised)", d, p
    raise KeyError(key)


def _ks_std(z, h):
    keep = torch.isfinite(z)
    z, h = z[keep], h[keep]
    n = z.numel()
    if n == 0:
        return 1.0, 0.0
    z, order = torch.sort(z)
    h = h[order]
    i = torch.arange(1, n + 1, dtype=F64, device=z.device)
    d = max((i / n - _norm_cdf(z + h)).max().item(),
            (_norm_cdf(z - h) - (i - 1) / n).max().item(), 0.0)
    return d, _ks_pvalue(d, n)


def _bernoulli(op, args, kwargs, x):
    p = float(_arg(op, args, kwargs, "p", 0.5))
    if not bool(((x == 0) | (x == 1)).all()):
        return f"bernoulli({p:g}) values", 1.0, 0.0
    ones = int(x.sum().item())
    return f"binomial z bernoulli({p:g})", ones / max(x.numel(), 1), \
        _binomial(ones, x.numel(), p)


def _dropout(op, args, kwargs, out):
    """native_dropout: kept fraction ~ 1-p, kept values scaled by 1/(1-p)."""
    dev = out[0].device
    inp = _f64(args[0], dev)
    p = float(_arg(op, args, kwargs, "p", 0.5))
    train = _arg(op, args, kwargs, "train", True)
    y, mask = _f64(out[0], dev), out[1].detach().reshape(-1)
    if train is False or p == 0:
        ok = torch.equal(y, inp)
        return "dropout identity", 0.0, 1.0 if ok else 0.0
    keep = mask.to(torch.bool)
    scale = 1.0 / (1.0 - p)
    expect = torch.where(keep, inp * scale, torch.zeros_like(inp))
    # a few roundings of |inp| * scale in the output dtype, and at least the
    # dtype's smallest subnormal step (fp16 rounds tiny products coarsely)
    fi = torch.finfo(out[0].dtype)
    tol = 4 * fi.eps * (inp.abs() * scale) + fi.tiny * fi.eps
    if not bool(((y - expect).abs() <= tol).all()):
        return f"dropout({p:g}) scaled values", 1.0, 0.0
    kept = int(keep.sum().item())
    return f"binomial z dropout({p:g}) kept", kept / max(keep.numel(), 1), \
        _binomial(kept, keep.numel(), 1.0 - p)


def _multinomial(op, args, kwargs, out):
    probs = args[0].detach().to(out.device, F64)
    probs = probs.reshape(-1, probs.shape[-1])
    probs = probs / probs.sum(-1, keepdim=True)
    idx = out.detach().to(torch.int64).reshape(probs.shape[0], -1)
    k = probs.shape[-1]
    if bool(((idx < 0) | (idx >= k)).any()):
        return "multinomial range", 1.0, 0.0
    if not _arg(op, args, kwargs, "replacement", False):
        srt, _ = torch.sort(idx, -1)
        if idx.shape[-1] > 1 and bool((srt[:, 1:] == srt[:, :-1]).any()):
            return "multinomial without replacement repeats", 1.0, 0.0
        if bool((probs.gather(1, idx) == 0).any()):
            return "multinomial drew a zero-probability category", 1.0, 0.0
        idx = idx[:, :1]  # the first draw of each row follows probs
    expected = (probs * idx.shape[-1]).sum(0)
    observed = torch.zeros(k, dtype=F64, device=idx.device).index_add_(
        0, idx.reshape(-1), torch.ones(idx.numel(), dtype=F64, device=idx.device))
    x2, p = _chi2(observed, expected)
    return "chi2 multinomial", x2, p


def _randperm(x):
    n = x.numel()
    ar = torch.arange(n, device=x.device)
    if not torch.equal(torch.sort(x.to(torch.int64)).values, ar):
        return "randperm is a permutation", 1.0, 0.0
    if n < 3:
        return "randperm", 0.0, 1.0
    fixed = int((x.to(torch.int64) == ar).sum().item())
    # P(Poisson(1) >= fixed)
    p_fixed = 1.0 - sum(math.exp(-1) / math.factorial(j) for j in range(fixed)) \
        if fixed < 60 else 0.0
    desc = int((x[1:] < x[:-1]).sum().item())
    z = (desc - (n - 1) / 2) / math.sqrt((n + 1) / 12)
    p = min(1.0, 2 * min(max(p_fixed, 0.0), _z_pvalue(z)))
    return "randperm fixed points and descents", float(fixed), p


def figures(case, op, args, kwargs, out):
    """(test, statistic, p) of one call's samples."""
    key = case["key"]
    base = key.split(".")[0]
    if base == "native_dropout":
        return _dropout(op, args, kwargs, out)
    if base == "multinomial":
        return _multinomial(op, args, kwargs, out)
    t, x = _samples(out)
    if base == "randperm":
        return _randperm(x)
    if base.startswith("bernoulli"):
        return _bernoulli(op, args, kwargs, x)
    return _continuous(op, key, args, kwargs, x, t.dtype, t.shape)


def _meta(t):
    t = t[0] if isinstance(t, (tuple, list)) else t
    if not isinstance(t, torch.Tensor):
        return None
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "strides": list(t.stride())}


def compare(case, op, args, kwargs, cand, native):
    """One stat OUT record (docs/protocol.md): p-values of candidate and native."""
    rec = {"index": 0, "cand": _meta(cand), "native": _meta(native), "kind": "stat"}
    ref = native[0] if isinstance(native, (tuple, list)) else native
    rec["numel"] = ref.numel() if isinstance(ref, torch.Tensor) else 0
    if rec["cand"] is None or rec["native"] is None or rec["cand"]["shape"] != \
            rec["native"]["shape"]:
        rec["kind"] = "shape_only"
        return [rec]
    test, s_n, p_n = figures(case, op, args, kwargs, native)
    _, s_c, p_c = figures(case, op, args, kwargs, cand)
    rec.update(test=test, stat_c=s_c, stat_n=s_n, p_c=p_c, p_n=p_n)
    return [rec]
