"""Where a short chain's call goes: torch.profiler over solder.compile's
call and eager's, both precisions, and their CUDA-event timings."""
import sys
import torch
import solder
sys.path.insert(0, "test/models")
import kernelbench  # noqa: E402
from solder.bench import set_precision, time_cuda  # noqa: E402

P = torch.profiler.ProfilerActivity
for name in sys.argv[1:]:
    for precision in ("ieee", "tf32"):
        set_precision(precision)
        model, xs = kernelbench.make(name, "full", seed=1)
        model, xs = model.cuda(), tuple(x.cuda() for x in xs)
        with torch.no_grad():
            compiled = solder.compile(model, xs, precision=precision, quiet=True)
            for _ in range(5):
                compiled(*xs)
            torch.cuda.synchronize()
            with torch.profiler.profile(activities=[P.CPU, P.CUDA]) as prof:
                for _ in range(20):
                    compiled(*xs)
                torch.cuda.synchronize()
            print(f"== {name} {precision} solder.compile")
            print(prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=12))
            print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=12))
            print(f"{name} {precision}: solder.compile {time_cuda(lambda: compiled(*xs), 30, 3):.4f} ms,"
                  f" eager {time_cuda(lambda: model(*xs), 30, 3):.4f} ms")
