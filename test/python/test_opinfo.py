"""PyTorch's OpInfo samples (test/models/opinfo_samples.py) for every op the
importer claims, each a one-op module on the CPU backend after the CUDA code
generator has seen it: correct against float64, or refused on the op's line
for a reason opinfo_samples.KNOWN_REFUSALS pins. The max pools have
thousands of samples (every kernel, stride, padding, dilation, ceil_mode and
layout): CI takes every 48th; SOLDER_OPINFO_ALL=1 takes them all.
"""

import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import opinfo_samples  # noqa: E402

INFOS = opinfo_samples.op_infos()
EVERY = 1 if os.environ.get("SOLDER_OPINFO_ALL") else 48


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLDER_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("name", opinfo_samples.CLAIMED)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_samples_are_correct_or_refused_for_a_known_reason(name):
    samples = opinfo_samples.samples(INFOS[name])
    if re.search(r"\.max_pool\dd$", name):
        samples = samples[::EVERY]
    problems, correct = [], 0
    for index, sample in enumerate(samples):
        try:
            outcome, detail = opinfo_samples.check(name, INFOS[name], sample)
        except AssertionError as error:
            problems.append(f"sample {index}: {error}")
            continue
        if outcome == "correct":
            correct += 1
        elif not any(re.match(known, detail) for known in opinfo_samples.KNOWN_REFUSALS) or (
                detail.startswith("the module returns its input") and
                not opinfo_samples.REDUCTIONS.match(name)):
            problems.append(f"sample {index}: refused for a reason not pinned: {detail}")
    assert not problems, f"{name}: " + "\n".join(problems)
    # Every op has samples Solder compiles (an op refused whole would pass
    # on refusals alone).
    assert correct > 0, f"{name}: no sample compiled"
