"""fixed_torch.py -- Chapter 24, PyTorch twin of fixed.cu: each batch
counts into a tensor made with torch.zeros(), so its counts start from 0
whatever the memory held before."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_torch_or_skip()

import torch

N = 256      # values per batch
BINS = 8     # the values run from 0 to BINS - 1
BATCHES = 3  # each batch counts the same N values


def run():
    values = (torch.arange(N) % BINS).to("cuda")
    ones = torch.ones(N, dtype=torch.int32, device="cuda")
    want = torch.full((BINS,), N // BINS, dtype=torch.int32)
    print("%d batches of %d values, %d of each value from 0 to %d"
          % (BATCHES, N, N // BINS, BINS - 1))

    wrong = 0
    for batch in range(1, BATCHES + 1):
        # Each batch counts into a tensor of its own, freed at its end.
        # FIX: torch.empty() does not clear the memory it returns; ask for
        # zeros, where the counts must start.
        counts = torch.zeros(BINS, dtype=torch.int32, device="cuda")
        counts.index_add_(0, values, ones)  # counts[values[i]] += 1
        host = counts.cpu()
        del counts  # back to PyTorch's cache, not to CUDA

        print("batch %d counts: %s" % (batch, " ".join(
            str(int(v)) for v in host)))
        wrong += clinic.check_ints("batch %d" % batch, host.numpy(),
                                   want.numpy())
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
