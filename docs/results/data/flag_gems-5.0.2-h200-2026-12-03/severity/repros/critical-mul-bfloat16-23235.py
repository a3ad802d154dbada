# opscreen repro: case 23235, mul.Tensor served by flag_gems.mul (bfloat16, class same_shape), 2^31-element operands from kernels/' generator: run it from an opscreen checkout with PYTHONPATH=probes and OPSCREEN_KERNELS=build/libopscreen_kernels.so; it prints the RESULT the daemon judges.
import json
from opscreen_runner.adapters import FlagGemsStyle
from opscreen_runner.execute import run_case
CASE = json.loads('{"args": [{"domain": "normal", "dtype": "bfloat16", "gen": "philox", "shape": [2147483665], "t": "tensor"}, {"domain": "normal", "dtype": "bfloat16", "gen": "philox", "shape": [2147483665], "t": "tensor"}], "class": "same_shape", "compare": "float", "dtype": "bfloat16", "huge": true, "id": 23235, "inplace": false, "key": "mul.Tensor", "kwargs": {}, "name": "mul", "sample": {"every": 65521, "tail": 4096}, "seed": 802499456, "steady": {"calls": 3, "max_ms": 500.0}}')
adapter = FlagGemsStyle('flag_gems')
adapter.load()
adapter.entries()
print(json.dumps(run_case(CASE, adapter, "cuda"), indent=1)[:4000])
