"""The random chain generator (test/models/chain_generator.py) on the GPU:
each draw compiled with solder.compile's CUDA path in both precisions and
compared with PyTorch in float64 (ieee within 1e-5, tf32 within max(3x eager
TF32's error, 1e-3)), or refused on the user's line for a reason
chain_generator.KNOWN_REFUSALS lists. SOLDER_DRAWS=FIRST:COUNT picks the
seeds (default 1000:40; the CPU test takes 0-79).
"""

import os
import re
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import chain_generator  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")

FIRST, COUNT = (int(n) for n in os.environ.get("SOLDER_DRAWS", "1000:40").split(":"))


@pytest.mark.parametrize("precision", ["ieee", "tf32"])
@pytest.mark.parametrize("seed", range(FIRST, FIRST + COUNT))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_draw_on_the_gpu(seed, precision, tmp_path, monkeypatch):
    tf32 = precision == "tf32"
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", tf32)
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", tf32)
    drawn = chain_generator.draw(seed, tmp_path)
    outcome, detail = chain_generator.check(drawn, "cuda", precision)
    print(f"seed {seed} {precision}: {outcome} {detail} ops {drawn.ops}")
    if outcome == "refused":
        assert any(re.match(known, detail) for known in chain_generator.KNOWN_REFUSALS), (
            f"seed {seed}: a refusal not in KNOWN_REFUSALS: {detail}\n{drawn.source}")
